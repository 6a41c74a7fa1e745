package io.memscope.events;

/**
 * A named point in time of the runtime's life (VM start, shutdown, thread start, thread end) with one 64-bit
 * datum (for example a thread id). One branch when disabled.
 */
public final class Lifecycle {
    private final EventsProducer producer;
    final int id;
    private final String name;

    Lifecycle(EventsProducer producer, int id, String name) {
        this.producer = producer;
        this.id = id;
        this.name = name;
    }

    /** Records the event now. */
    public void emit(long data) {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_LIFECYCLE, id, System.nanoTime(), data);
        }
    }

    /** Records the event at a given time, in {@link RuntimeEvents#now()} nanoseconds. */
    public void emit(long data, long timestampNanos) {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_LIFECYCLE, id, timestampNanos, data);
        }
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Lifecycle[" + name + "]";
    }
}
