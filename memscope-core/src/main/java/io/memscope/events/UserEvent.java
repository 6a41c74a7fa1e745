package io.memscope.events;

import io.memscope.internal.error.Failures;

/**
 * A registered custom event: a name (stored in the ring file) bound to a payload {@link EventType}. Use the
 * write method that matches the type; a mismatch is reported to memscope's failure counters ({@code Failures}) and the
 * event dropped. The typed writers ({@link #write()}, {@link #writeInt(int)}, {@link #writeLong(long)},
 * {@link #begin()}, {@link #end()}) allocate nothing; {@link #write(Object)} costs what the codec costs.
 *
 * @param <T> the payload type
 */
public final class UserEvent<T> {
    private final EventsProducer producer;
    final int id;
    private final String name;
    private final EventType<T> type;

    UserEvent(EventsProducer producer, int id, String name, EventType<T> type) {
        this.producer = producer;
        this.id = id;
        this.name = name;
        this.type = type;
    }

    /** Writes a unit event. */
    public void write() {
        if (producer.enabled && check(EventType.UNIT)) {
            RingWriter w = producer.writer();
            if (w != null) {
                w.writeSmall(id, System.nanoTime(), 0, 0);
            }
        }
    }

    /** Writes an int event. */
    public void writeInt(int value) {
        if (producer.enabled && check(EventType.INT)) {
            RingWriter w = producer.writer();
            if (w != null) {
                w.writeSmall(id, System.nanoTime(), value, 4);
            }
        }
    }

    /** Writes a long event (24-byte record). */
    public void writeLong(long value) {
        if (producer.enabled && check(EventType.LONG)) {
            producer.write(RingLayout.KIND_CUSTOM, id, System.nanoTime(), value); // drops if re-entrant
        }
    }

    /** Writes the begin edge of a span-typed event. */
    public void begin() {
        edge(0);
    }

    /** Writes the end edge of a span-typed event. */
    public void end() {
        edge(1);
    }

    private void edge(int e) {
        if (producer.enabled && check(EventType.SPAN)) {
            RingWriter w = producer.writer();
            if (w != null) {
                w.writeSmall(id, System.nanoTime(), e, 1);
            }
        }
    }

    /** Writes a value of any type (built-in values are unboxed; custom types go through their codec). */
    public void write(T value) {
        if (!producer.enabled) {
            return;
        }
        switch (type.id()) {
            case NameRegistry.TYPE_UNIT: write(); return;
            case NameRegistry.TYPE_INT: writeInt((Integer) value); return;
            case NameRegistry.TYPE_LONG: writeLong((Long) value); return;
            case NameRegistry.TYPE_SPAN: edge(value == Span.Edge.END ? 1 : 0); return;
            default:
        }
        RingWriter w = producer.writer();
        if (w == null || !w.enter()) {
            return;
        }
        try {
            int n = type.codec().encode(value, w.scratch);
            if (n < 0 || n > RingLayout.MAX_PAYLOAD_BYTES) {
                throw new IllegalArgumentException("codec of " + type.name() + " wrote " + n + " bytes (max "
                        + RingLayout.MAX_PAYLOAD_BYTES + ")");
            }
            w.writeScratch(id, System.nanoTime(), n);
        } catch (Throwable t) {
            Failures.report("events.custom." + name, t);
        } finally {
            w.exit();
        }
    }

    private boolean check(EventType<?> expected) {
        if (type == expected) {
            return true;
        }
        Failures.report("events.custom." + name, new IllegalArgumentException(
                "event '" + name + "' has type " + type.name() + ", not " + expected.name()));
        return false;
    }

    public String name() {
        return name;
    }

    public EventType<T> type() {
        return type;
    }

    @Override
    public String toString() {
        return "UserEvent[" + name + ": " + type.name() + "]";
    }
}
