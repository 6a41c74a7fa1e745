package io.memscope;

/**
 * What happened to a piece of memory. memscope-rs's six kinds, with their meaning on the JVM:
 *
 * <table>
 * <caption>Event types</caption>
 * <tr><th>type</th><th>heap object</th><th>native memory</th><th>pools and accounting</th></tr>
 * <tr><td>{@link #ALLOCATE}</td><td>a (sampled or counted) object was allocated at a site; address is the
 *     sample id</td><td>{@code Unsafe.allocateMemory}, a direct ByteBuffer, an FFM segment: the real address</td>
 *     <td>an instrument charged bytes</td></tr>
 * <tr><td>{@link #DEALLOCATE}</td><td>the sampled object was collected, observed through its weak reference;
 *     address is the sample id</td><td>{@code freeMemory}, a direct buffer released (explicitly or by its
 *     Cleaner), a segment's arena closed</td><td>an instrument released bytes</td></tr>
 * <tr><td>{@link #REALLOCATE}</td><td>never (heap objects do not grow)</td><td>{@code reallocateMemory}: size is
 *     the new size, previous size the old one, address the new address</td><td>a realloc under an
 *     instrument</td></tr>
 * <tr><td>{@link #MOVE}</td><td colspan="2">ownership passed to another thread (the performance schema's memory claim):
 * the
 *     event's thread is the new owner</td><td>{@code claim}</td></tr>
 * <tr><td>{@link #BORROW}</td><td colspan="2">a buffer or object was taken out of a pool</td><td></td></tr>
 * <tr><td>{@link #RETURN}</td><td colspan="2">a borrowed buffer or object was given back to its pool</td>
 *     <td></td></tr>
 * </table>
 */
public enum MemoryEventType {
    ALLOCATE,
    DEALLOCATE,
    REALLOCATE,
    MOVE,
    BORROW,
    RETURN;

    private static final MemoryEventType[] VALUES = values();

    /** @return the type with this ordinal, as stored in files */
    public static MemoryEventType ofCode(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown memory event type code " + code);
        }
        return VALUES[code];
    }

    /** @return the stable code of this type in files (its ordinal; never reorder the constants) */
    public int code() {
        return ordinal();
    }
}
