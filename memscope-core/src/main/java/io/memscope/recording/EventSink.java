package io.memscope.recording;

/**
 * Receives stored events one at a time, without an object per event: how the {@code EventStore} hands events to a
 * recording writer, an exporter or an analysis. Each event comes as an {@link EventView} that the producer reuses
 * for the next one: read its fields during the call, copy what you keep. A field added to events later is a new
 * accessor of the view, so a sink written today keeps compiling and working.
 */
@FunctionalInterface
public interface EventSink {
    /** One event; {@code event} is valid only until this call returns. */
    void accept(EventView event);
}
