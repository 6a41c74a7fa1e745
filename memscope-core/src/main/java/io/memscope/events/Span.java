package io.memscope.events;

/**
 * A named span: {@link #begin()} and {@link #end()} on the same thread bracket a period of time. Spans nest.
 * Each call writes a 16-byte record when events are enabled; when disabled it is one branch.
 */
public final class Span {
    private final EventsProducer producer;
    final int id;
    private final String name;

    Span(EventsProducer producer, int id, String name) {
        this.producer = producer;
        this.id = id;
        this.name = name;
    }

    public void begin() {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_SPAN_BEGIN, id, System.nanoTime());
        }
    }

    public void end() {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_SPAN_END, id, System.nanoTime());
        }
    }

    /** Begin at a given time, in {@link RuntimeEvents#now()} nanoseconds (for events reported after the fact). */
    public void begin(long timestampNanos) {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_SPAN_BEGIN, id, timestampNanos);
        }
    }

    /** End at a given time, in {@link RuntimeEvents#now()} nanoseconds. */
    public void end(long timestampNanos) {
        if (producer.enabled) {
            producer.write(RingLayout.KIND_SPAN_END, id, timestampNanos);
        }
    }

    /**
     * Records a whole span after the fact: both edges or, if events stop in between, neither (a span reported by
     * another source, such as a GC pause from JFR). Times in {@link RuntimeEvents#now()} nanoseconds.
     */
    public void record(long beginNanos, long endNanos) {
        if (producer.enabled) {
            RingWriter w = producer.writer();
            if (w != null) {
                w.write(RingLayout.KIND_SPAN_BEGIN, id, beginNanos);
                w.write(RingLayout.KIND_SPAN_END, id, endNanos);
            }
        }
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Span[" + name + "]";
    }

    /** The value of a custom event of type {@link EventType#SPAN}. Encoded as one byte: 0 begin, 1 end. */
    public enum Edge {
        BEGIN,
        END
    }
}
