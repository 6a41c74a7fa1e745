package io.memscope.internal.recording;

/**
 * The thread table of one EVENTS or SCOPE_EDGES block, and the block's current thread: the one home of how both
 * codecs write and read a thread. An item (event or edge) whose thread differs from the current one carries the
 * THREAD bit and a reference:
 * <pre>
 *   uleb ref                          ref &lt; n: entry ref of the block's table (n entries so far)
 *   [uleb threadId, uleb threadNameId]  only when ref == n: a new entry, which becomes entry n
 *                                     ref &gt; n: damage
 * </pre>
 * An item without the THREAD bit has the current thread; before the first THREAD bit of a block the current thread
 * is (0, 0). The thread name id is a string id, written as an unsigned 32-bit value. The encoder adds an entry only
 * for a thread the block has not referenced yet, so entries are distinct and numbered in order of first use.
 *
 * <p>One instance serves one encoder or one decoder for the whole recording, {@link #reset() reset} at every block
 * boundary. Not thread-safe.
 */
final class BlockThreads {
    private final BlockDictionary table = new BlockDictionary(16);
    private long threadId;
    private int threadNameId;

    /** Empties the table and makes (0, 0) the current thread: the state at the start of a block. */
    void reset() {
        table.clear();
        threadId = 0;
        threadNameId = 0;
    }

    /** @return the current thread's id */
    long threadId() {
        return threadId;
    }

    /** @return the current thread's name (a string id) */
    int threadNameId() {
        return threadNameId;
    }

    /** Encoding: @return whether an item of this thread must carry the THREAD bit and a {@link #write reference} */
    boolean changesTo(long threadId, int threadNameId) {
        return threadId != this.threadId || threadNameId != this.threadNameId;
    }

    /** Encoding: writes the reference to this thread (with a new entry if the block has none for it yet), now current. */
    void write(ByteSink out, long threadId, int threadNameId) {
        long name = Integer.toUnsignedLong(threadNameId);
        int ref = table.find(threadId, name);
        out.reserve(3 * ByteSink.MAX_VARINT_BYTES); // one check for the three varints a new entry takes
        if (ref >= 0) {
            out.ulebReserved(ref);
        } else {
            out.ulebReserved(table.add(threadId, name));
            out.ulebReserved(threadId);
            out.ulebReserved(name);
        }
        this.threadId = threadId;
        this.threadNameId = threadNameId;
    }

    /**
     * Decoding: reads a reference (and the new entry it may introduce), whose thread becomes current.
     *
     * @param stringCount number of string ids defined so far: the thread name id must be below it
     * @param item        what the reference belongs to, for the damage message ("event", "scope edge")
     * @param index       the item's index in the block, for the damage message
     * @throws ByteSource.Malformed on a reference beyond the table or an undefined name, where it was found
     */
    void read(ByteSource in, int stringCount, String item, int index) {
        int refAt = in.position();
        long ref = in.uleb();
        int entries = table.size();
        if (ref >= 0 && ref < entries) {
            threadId = table.keyA((int) ref);
            threadNameId = (int) table.keyB((int) ref);
        } else if (ref == entries) {
            long id = in.uleb();
            int name = EventBlockCodec.Decoder.stringId(in, stringCount, "thread name");
            table.add(id, Integer.toUnsignedLong(name));
            threadId = id;
            threadNameId = name;
        } else {
            throw new ByteSource.Malformed(refAt, item + " " + index + ": thread reference "
                    + Long.toUnsignedString(ref) + " beyond the block's " + entries + " threads");
        }
    }
}
