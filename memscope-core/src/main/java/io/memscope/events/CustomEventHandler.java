package io.memscope.events;

/**
 * Receives decoded custom events of one {@link EventType}; register with
 * {@link EventCursor#onCustom(EventType, CustomEventHandler)}.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface CustomEventHandler<T> {
    void event(long threadId, long timestamp, String name, T value);
}
