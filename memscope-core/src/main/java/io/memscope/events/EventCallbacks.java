package io.memscope.events;

import java.nio.ByteBuffer;

/**
 * What {@link EventCursor#poll(EventCallbacks)} calls for each event read, per kind. Every method has an empty
 * default: implement the ones you need. Names are the strings stored in the file (the same String instance for
 * every event of a name). Timestamps are monotonic nanoseconds; {@link EventCursor#toEpochNanos(long)} converts.
 * Thread ids are Java thread ids of the writing thread.
 */
public interface EventCallbacks {
    default void spanBegin(long threadId, long timestamp, String name) {
    }

    default void spanEnd(long threadId, long timestamp, String name) {
    }

    default void lifecycle(long threadId, long timestamp, String name, long data) {
    }

    default void counter(long threadId, long timestamp, String name, long value) {
    }

    /**
     * Any custom event, whether or not its type is registered in this process.
     *
     * @param typeName the payload type's name as stored in the file ("unit", "int", "long", "span" or custom)
     * @param payload the payload bytes, read-only, valid only during the call
     */
    default void custom(long threadId, long timestamp, String name, String typeName, ByteBuffer payload) {
    }

    /** The reader was lapped on this thread's ring: exactly {@code count} events were overwritten unread. */
    default void lost(long threadId, long count) {
    }

    /**
     * One thread's ring is damaged (what a writer never writes: a record that does not fit, a wrong lap). By default
     * the damage is thrown and the poll stops; a reader that returns instead goes on with the other rings, and that
     * ring is not read again by this cursor.
     *
     * @param threadId the ring's thread, as last known
     */
    default void damaged(long threadId, io.memscope.error.CorruptFileException damage) {
        throw damage;
    }
}
