package io.memscope.events;

/**
 * A named span: {@link #begin()} and {@link #end()} on the same thread bracket a period of time. Spans nest.
 * Each call writes a 16-byte record when events are enabled; when disabled it is one branch.
 */
public final class Span {
    final int id;
    private final String name;

    Span(int id, String name) {
        this.id = id;
        this.name = name;
    }

    public void begin() {
        if (RuntimeEvents.enabled) {
            RuntimeEvents.write(RingLayout.KIND_SPAN_BEGIN, id, System.nanoTime());
        }
    }

    public void end() {
        if (RuntimeEvents.enabled) {
            RuntimeEvents.write(RingLayout.KIND_SPAN_END, id, System.nanoTime());
        }
    }

    /** Begin at a given time, in {@link RuntimeEvents#now()} nanoseconds (for events reported after the fact). */
    public void begin(long timestampNanos) {
        if (RuntimeEvents.enabled) {
            RuntimeEvents.write(RingLayout.KIND_SPAN_BEGIN, id, timestampNanos);
        }
    }

    /** End at a given time, in {@link RuntimeEvents#now()} nanoseconds. */
    public void end(long timestampNanos) {
        if (RuntimeEvents.enabled) {
            RuntimeEvents.write(RingLayout.KIND_SPAN_END, id, timestampNanos);
        }
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Span[" + name + "]";
    }
}
