package io.memscope.internal.store;

/**
 * A block of consecutive events of one {@link ThreadBuffer}, stored as primitive columns: 32 bytes per event.
 *
 * <pre>
 *  column        type    bytes  holds
 *  timestamps    long[]  8      clock reading, nanoseconds
 *  addresses     long[]  8      address or sample id, as recorded
 *  sizes         long[]  8      size in bytes, as recorded
 *  contexts      int[]   4      bits 31..29: MemoryEventType code; bits 28..0: index in the buffer's ContextTable
 *  previous      int[]   4      previous size when it fits in 0..Integer.MAX_VALUE, else -1 (then the
 *                               context entry holds it)
 * </pre>
 *
 * <p>The owner thread writes slots at and above its buffer's published end; readers only read slots below it, so a
 * slot is never read while it is written. {@link #base} and {@link #next} are written by the owner before the chunk
 * is linked (a volatile write), so readers that reach the chunk through {@code next} see them.
 */
final class Chunk {
    static final int MIN_CAPACITY = 16;
    static final int MAX_CAPACITY = 4096;
    static final int BYTES_PER_EVENT = 8 + 8 + 8 + 4 + 4;

    final long[] timestamps;
    final long[] addresses;
    final long[] sizes;
    final int[] contexts;
    final int[] previous;
    final int capacity;

    /** Logical position (in the buffer's event sequence) of slot 0. */
    long base;
    /** The next chunk of the same buffer, null while this is the tail. */
    volatile Chunk next;

    Chunk(int capacity) {
        this.capacity = capacity;
        this.timestamps = new long[capacity];
        this.addresses = new long[capacity];
        this.sizes = new long[capacity];
        this.contexts = new int[capacity];
        this.previous = new int[capacity];
    }

    /** @return bytes this chunk's columns occupy (array payloads, without array headers) */
    long payloadBytes() {
        return (long) capacity * BYTES_PER_EVENT;
    }
}
