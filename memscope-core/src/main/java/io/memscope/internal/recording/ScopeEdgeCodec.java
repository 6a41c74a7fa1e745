package io.memscope.internal.recording;

/**
 * Encodes and decodes the payload of a SCOPE_EDGES block (format 1.2): the entries into and exits out of scopes,
 * per thread in the order they happened. State (previous timestamp, the current thread and the block's thread table,
 * both kept by {@link BlockThreads}) starts afresh in every block, so each block decodes on its own.
 *
 * <pre>
 *  SCOPE_EDGES payload
 *    uleb count                      1 .. MAX_EVENTS_PER_BLOCK
 *    zz   base timestamp             System.nanoTime() ns; "previous timestamp" of the first edge
 *    count x edge:
 *      uleb tag                      bit 0 EXIT (else an entry)   bit 1 THREAD   bit 2 TASK   bit 3 BYTES
 *                                    bits 4+ must be 0; TASK only on an entry, BYTES only on an exit
 *      zz   timestamp - previous timestamp
 *      [THREAD]  uleb ref            as in EVENTS: ref &lt; n an entry of the block's thread table; ref == n a new
 *                [uleb threadId, uleb threadNameId]  entry; ref &gt; n damage (no THREAD: the previous edge's thread;
 *                                    (0, 0) before the first): BlockThreads
 *      uleb pathId                   u32, not 0: a SCOPE_PATHS entry
 *      [TASK]    uleb taskId         the entry runs a task handed over from another thread (its MOVE event)
 *      [BYTES]   uleb allocatedBytes heap bytes the thread allocated inside the scope, children included (absent:
 *                                    unknown, e.g. a virtual thread)
 * </pre>
 */
public final class ScopeEdgeCodec {
    static final int EXIT = 1;
    static final int THREAD = 1 << 1;
    static final int TASK = 1 << 2;
    static final int BYTES = 1 << 3;
    static final int ALL = (1 << 4) - 1;

    private ScopeEdgeCodec() {
    }

    /** Receives decoded edges. */
    interface Sink {
        void edge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                  long allocatedBytes);
    }

    /** Appends edges to a SCOPE_EDGES payload under construction. Not thread-safe. */
    static final class Encoder {
        final ByteSink body;
        private int count;
        private long base;
        private long previousTimestamp;
        private final BlockThreads threads = new BlockThreads();

        Encoder(int initialBytes) {
            body = new ByteSink(initialBytes);
        }

        int count() {
            return count;
        }

        int bodyBytes() {
            return body.length();
        }

        void reset() {
            body.reset();
            count = 0;
            threads.reset();
        }

        /**
         * @param taskId         entries: not 0 for a task handed over (ignored on exits)
         * @param allocatedBytes exits: the scope's allocated bytes, negative when unknown (ignored on entries)
         */
        void add(long timestamp, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                 long allocatedBytes) {
            if (count == 0) {
                base = timestamp;
                previousTimestamp = timestamp;
            }
            boolean newThread = threads.changesTo(threadId, threadNameId);
            int tag = exit ? EXIT : 0;
            if (newThread) {
                tag |= THREAD;
            }
            if (!exit && taskId != 0) {
                tag |= TASK;
            }
            if (exit && allocatedBytes >= 0) {
                tag |= BYTES;
            }
            ByteSink out = body;
            out.uleb(tag);
            out.zigzag(timestamp - previousTimestamp);
            if (newThread) {
                threads.write(out, threadId, threadNameId);
            }
            out.uleb(Integer.toUnsignedLong(pathId));
            if ((tag & TASK) != 0) {
                out.uleb(taskId);
            }
            if ((tag & BYTES) != 0) {
                out.uleb(allocatedBytes);
            }
            previousTimestamp = timestamp;
            count++;
        }

        /** Writes the payload prefix (count, base timestamp) that goes before {@link #body}. */
        void writePrefix(ByteSink out) {
            out.uleb(count);
            out.zigzag(base);
        }
    }

    /** Decodes SCOPE_EDGES payloads. Reused across blocks; not thread-safe. */
    static final class Decoder {
        private final BlockThreads threads = new BlockThreads();

        /**
         * Decodes one payload, validating all of it before the first edge goes to {@code sink}.
         *
         * @throws ByteSource.Malformed on any inconsistency, at the position where it was found
         */
        void decode(ByteSource in, int stringCount, Sink sink) {
            int start = in.position();
            pass(in, stringCount, null);
            in.reset(start);
            pass(in, stringCount, sink);
        }

        private void pass(ByteSource in, int stringCount, Sink sink) {
            int countAt = in.position();
            long count = in.uleb();
            // Every edge takes at least 3 bytes (tag, time delta, path).
            if (count < 1 || count > RecordingFormat.MAX_EVENTS_PER_BLOCK || count > in.remaining() / 3) {
                throw new ByteSource.Malformed(countAt, "scope edge count " + Long.toUnsignedString(count)
                        + " impossible for a payload of " + in.remaining() + " remaining bytes");
            }
            long timestamp = in.zigzag();
            threads.reset();
            for (int i = 0; i < count; i++) {
                int at = in.position();
                long tag = in.uleb();
                boolean exit = (tag & EXIT) != 0;
                if ((tag & ~(long) ALL) != 0 || exit && (tag & TASK) != 0 || !exit && (tag & BYTES) != 0) {
                    throw new ByteSource.Malformed(at, "scope edge " + i + ": bad tag 0x" + Long.toHexString(tag));
                }
                timestamp += in.zigzag();
                if ((tag & THREAD) != 0) {
                    threads.read(in, stringCount, "scope edge", i);
                }
                int pathAt = in.position();
                int path = (int) in.ulebAtMost(0xFFFF_FFFFL, "scope path id");
                if (path == 0) {
                    throw new ByteSource.Malformed(pathAt, "scope edge " + i + ": path id 0 is reserved");
                }
                long task = (tag & TASK) != 0 ? in.uleb() : 0;
                long bytes = (tag & BYTES) != 0 ? in.uleb() : -1;
                if (sink != null) {
                    sink.edge(timestamp, threads.threadId(), threads.threadNameId(), exit, path, task, bytes);
                }
            }
        }
    }
}
