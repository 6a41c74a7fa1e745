package io.memscope.events;

/** A named counter: each {@link #set(long)} records a measurement (24-byte record). One branch when disabled. */
public final class Counter {
    private final EventsProducer producer;
    final int id;
    private final String name;

    Counter(EventsProducer producer, int id, String name) {
        this.producer = producer;
        this.id = id;
        this.name = name;
    }

    /** Records {@code value} now. */
    public void set(long value) {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_COUNTER, id, System.nanoTime(), value);
        }
    }

    /** Records {@code value} at a given time, in {@link RuntimeEvents#now()} nanoseconds. */
    public void set(long value, long timestampNanos) {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_COUNTER, id, timestampNanos, value);
        }
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Counter[" + name + "]";
    }
}
