package io.memscope.internal.store;

/** What a bounded {@link EventStore} does with an event when it is full. Every drop is counted exactly. */
public enum OverflowPolicy {
    /** Keep what is stored; the new event is not stored and counts as dropped. */
    DROP_NEWEST,
    /**
     * Remove the oldest stored events to make room (in batches of up to 1/16 of the capacity, from the thread
     * whose oldest stored event is the oldest), counting them as dropped. If another thread is snapshotting,
     * draining or clearing at that moment, the recording thread does not wait: the new event is dropped instead
     * (and counted).
     */
    DROP_OLDEST
}
