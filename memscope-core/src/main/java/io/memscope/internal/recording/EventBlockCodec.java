package io.memscope.internal.recording;

import static io.memscope.internal.recording.RecordingFormat.TAG_ALL;
import static io.memscope.internal.recording.RecordingFormat.TAG_PREVIOUS_SIZE;
import static io.memscope.internal.recording.RecordingFormat.TAG_SIZE;
import static io.memscope.internal.recording.RecordingFormat.TAG_STACK;
import static io.memscope.internal.recording.RecordingFormat.TAG_THREAD;
import static io.memscope.internal.recording.RecordingFormat.TAG_TYPE_MASK;
import static io.memscope.internal.recording.RecordingFormat.TAG_TYPE_NAME;
import static io.memscope.internal.recording.RecordingFormat.TAG_VARIABLE;

import java.util.Arrays;

/**
 * Encodes and decodes the payload of an EVENTS block. State (previous timestamp and address, the current
 * thread and the block's thread table (both kept by {@link BlockThreads}), the block's stack table, the per-site memo)
 * starts afresh in every block, so each block decodes on its own.
 *
 * <pre>
 *  EVENTS payload
 *    uleb count                      1 .. MAX_EVENTS_PER_BLOCK
 *    zz   base timestamp             System.nanoTime() ns; "previous timestamp" of the first event
 *    count x event:
 *      uleb tag                      bits 0-2 type code (MemoryEventType.code(), 0..5)
 *                                    bit 3 THREAD   bit 4 SIZE   bit 5 TYPE_NAME   bit 6 STACK
 *                                    bit 7 PREVIOUS_SIZE   bit 8 VARIABLE   bits 9+ must be 0
 *      zz   timestamp - previous timestamp
 *      [THREAD]  uleb ref            ref &lt; n: thread table entry ref; ref == n: a new entry follows
 *                [uleb threadId, uleb threadNameId]  and becomes entry n; ref &gt; n: damage
 *                                    (no THREAD bit: same thread as the previous event; before the
 *                                    first THREAD bit of a block the thread is (0, 0)): BlockThreads
 *      zz   address - previous address   (64-bit wrapping; previous address starts at 0)
 *      uleb siteId                   u32 (0 = none)
 *      [SIZE]      uleb size         else memo[siteId].size
 *      [TYPE_NAME] uleb typeNameId   else memo[siteId].typeNameId
 *      [STACK]     uleb ref          like THREAD, new entry [uleb stackId (u64)]; else memo[siteId].stackId
 *      [PREVIOUS_SIZE] uleb          else 0
 *      [VARIABLE]  uleb variableNameId   else 0
 *    after each event: memo[siteId] = (size, typeNameId, stackId); a site's memo starts as (0, 0, 0).
 * </pre>
 */
public final class EventBlockCodec {
    private EventBlockCodec() {
    }

    /**
     * What the previous event of each site in the block carried (size, type name id, stack id), which an event of
     * the same site does not repeat: the same table on both sides, so that the encoder's tag bits and the decoder's
     * reading of them agree. Slots are the block's site dictionary indexes; a new site starts at all zeros.
     */
    static final class SiteMemo {
        private final BlockDictionary sites = new BlockDictionary(256);
        long[] size = new long[256];
        long[] typeName = new long[256];
        long[] stack = new long[256];

        void clear() {
            sites.clear();
        }

        /** @return the slot of {@code site}, added (all zeros) when the block has not seen it yet */
        int slot(long site) {
            int slot = sites.find(site, 0);
            return slot >= 0 ? slot : added(site);
        }

        /** A site new to the block (out of line: the common case above stays small for the JIT). */
        private int added(long site) {
            int slot = sites.add(site, 0);
            if (slot == size.length) {
                size = Arrays.copyOf(size, slot * 2);
                typeName = Arrays.copyOf(typeName, slot * 2);
                stack = Arrays.copyOf(stack, slot * 2);
            }
            size[slot] = 0;
            typeName[slot] = 0;
            stack[slot] = 0;
            return slot;
        }

        void remember(int slot, long size, long typeName, long stack) {
            this.size[slot] = size;
            this.typeName[slot] = typeName;
            this.stack[slot] = stack;
        }
    }

    /** Appends events to an EVENTS payload under construction. Not thread-safe. */
    static final class Encoder {
        /**
         * The most bytes one event takes: 13 varints (tag, time, a new thread's index, id and name, address, site,
         * size, type name, a new stack's index and id, previous size, variable name).
         */
        static final int MAX_EVENT_BYTES = 13 * ByteSink.MAX_VARINT_BYTES;

        final ByteSink body;
        private int count;
        private long base;
        private long previousTimestamp;
        private long previousAddress;
        private final BlockThreads threads = new BlockThreads();
        private final BlockDictionary stacks = new BlockDictionary(256);
        private final SiteMemo memo = new SiteMemo();

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
            previousAddress = 0;
            threads.reset();
            stacks.clear();
            memo.clear();
        }

        /** String ids and site ids are written as unsigned 32-bit values. */
        void add(long timestamp, int typeCode, long address, long size, long previousSize, long threadId,
                 int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId) {
            if (count == 0) {
                base = timestamp;
                previousTimestamp = timestamp;
            }
            long typeName = Integer.toUnsignedLong(typeNameId);
            long site = Integer.toUnsignedLong(siteId);
            int slot = memo.slot(site);
            int tag = typeCode;
            boolean newThread = threads.changesTo(threadId, threadNameId);
            if (newThread) {
                tag |= TAG_THREAD;
            }
            if (size != memo.size[slot]) {
                tag |= TAG_SIZE;
            }
            if (typeName != memo.typeName[slot]) {
                tag |= TAG_TYPE_NAME;
            }
            if (stackId != memo.stack[slot]) {
                tag |= TAG_STACK;
            }
            if (previousSize != 0) {
                tag |= TAG_PREVIOUS_SIZE;
            }
            if (variableNameId != 0) {
                tag |= TAG_VARIABLE;
            }
            ByteSink out = body;
            out.reserve(MAX_EVENT_BYTES);
            out.ulebReserved(tag);
            out.zigzagReserved(timestamp - previousTimestamp);
            if (newThread) {
                threads.write(out, threadId, threadNameId);
            }
            out.zigzagReserved(address - previousAddress);
            out.ulebReserved(site);
            if ((tag & TAG_SIZE) != 0) {
                out.ulebReserved(size);
            }
            if ((tag & TAG_TYPE_NAME) != 0) {
                out.ulebReserved(typeName);
            }
            if ((tag & TAG_STACK) != 0) {
                int ref = stacks.find(stackId, 0);
                if (ref >= 0) {
                    out.ulebReserved(ref);
                } else {
                    out.ulebReserved(stacks.add(stackId, 0));
                    out.ulebReserved(stackId);
                }
            }
            if (previousSize != 0) {
                out.ulebReserved(previousSize);
            }
            if (variableNameId != 0) {
                out.ulebReserved(Integer.toUnsignedLong(variableNameId));
            }
            memo.remember(slot, size, typeName, stackId);
            previousTimestamp = timestamp;
            previousAddress = address;
            count++;
        }

        /** Writes the payload prefix (count, base timestamp) that goes before {@link #body}. */
        void writePrefix(ByteSink out) {
            out.uleb(count);
            out.zigzag(base);
        }
    }

    /** Decodes EVENTS payloads. Reused across blocks; not thread-safe. */
    static final class Decoder {
        private final SiteMemo memo = new SiteMemo();
        private final BlockThreads threads = new BlockThreads();
        private long[] stackIds = new long[64];

        /**
         * Decodes one payload into {@code out} (cleared first).
         *
         * @param stringCount number of string ids defined so far (ids 0 .. stringCount-1 are valid)
         * @throws ByteSource.Malformed on any inconsistency, at the position where it was found
         */
        void decode(ByteSource in, int stringCount, EventColumns out) {
            out.clear();
            memo.clear();
            threads.reset();
            int countAt = in.position();
            long count = in.uleb();
            // Every event takes at least 4 bytes (tag, time delta, address delta, site): validate before allocating.
            checkCount(count, in.remaining(), countAt);
            long timestamp = in.zigzag();
            long address = 0;
            long threadId = 0;
            int threadName = 0;
            int stackCount = 0;
            for (int i = 0; i < count; i++) {
                int eventAt = in.position();
                int tag = checkTag(in.uleb(), i, eventAt);
                int typeCode = tag & TAG_TYPE_MASK;
                timestamp += in.zigzag();
                if ((tag & TAG_THREAD) != 0) {
                    threads.read(in, stringCount, "event", i);
                    threadId = threads.threadId();
                    threadName = threads.threadNameId();
                }
                address += in.zigzag();
                int site = (int) in.ulebAtMost(0xFFFF_FFFFL, "site id");
                int slot = memo.slot(site);
                long size = (tag & TAG_SIZE) != 0 ? in.uleb() : memo.size[slot];
                int typeName = (tag & TAG_TYPE_NAME) != 0 ? stringId(in, stringCount, "type name")
                        : (int) memo.typeName[slot]; // a string id the decoder checked when it was remembered
                long stack = memo.stack[slot];
                if ((tag & TAG_STACK) != 0) {
                    int refAt = in.position();
                    long ref = in.uleb();
                    if (ref >= 0 && ref < stackCount) {
                        stack = stackIds[(int) ref];
                    } else if (ref == stackCount) {
                        stack = in.uleb();
                        if (stackCount == stackIds.length) {
                            stackIds = Arrays.copyOf(stackIds, stackCount * 2);
                        }
                        stackIds[stackCount++] = stack;
                    } else {
                        throw badStackReference(ref, stackCount, i, refAt);
                    }
                }
                long previousSize = (tag & TAG_PREVIOUS_SIZE) != 0 ? in.uleb() : 0;
                int variable = (tag & TAG_VARIABLE) != 0 ? stringId(in, stringCount, "variable name") : 0;
                memo.remember(slot, size, Integer.toUnsignedLong(typeName), stack);
                out.add(timestamp, typeCode, address, size, previousSize, threadId, threadName, variable, typeName,
                        stack, site);
            }
        }

        static int stringId(ByteSource in, int stringCount, String what) {
            int at = in.position();
            return checkStringId(in.uleb(), stringCount, what, at);
        }
    }

    // The checks both decoders make (this one and the first read's EventBlockScanner), with their messages: a
    // damaged payload is refused by either at the same position with the same words.

    /** @throws ByteSource.Malformed when {@code count} events cannot fit in {@code remaining} bytes (4 at least each) */
    static void checkCount(long count, int remaining, int at) {
        if (count < 1 || count > RecordingFormat.MAX_EVENTS_PER_BLOCK || count > remaining / 4) {
            throw new ByteSource.Malformed(at, "event count " + Long.toUnsignedString(count)
                    + " impossible for a payload of " + remaining + " remaining bytes");
        }
    }

    /**
     * @return the tag of event {@code i}, read at {@code at}
     * @throws ByteSource.Malformed on tag bits or an event type this format does not define
     */
    static int checkTag(long tagValue, int i, int at) {
        if ((tagValue & ~(long) TAG_ALL) != 0) {
            throw new ByteSource.Malformed(at, "event " + i + ": unknown tag bits 0x" + Long.toHexString(tagValue));
        }
        int typeCode = (int) tagValue & TAG_TYPE_MASK;
        if (typeCode > 5) {
            throw new ByteSource.Malformed(at, "event " + i + ": unknown event type code " + typeCode);
        }
        return (int) tagValue;
    }

    /**
     * @return {@code id}, a string id read at {@code at}
     * @throws ByteSource.Malformed when the string table of {@code stringCount} ids does not define it
     */
    static int checkStringId(long id, int stringCount, String what, int at) {
        if (id < 0 || id >= stringCount) {
            throw new ByteSource.Malformed(at, what + " string id " + Long.toUnsignedString(id)
                    + " is not defined (the string table has " + stringCount + " ids)");
        }
        return (int) id;
    }

    /** @return the error for event {@code i}'s stack reference beyond the block's {@code stackCount} stacks */
    static ByteSource.Malformed badStackReference(long ref, int stackCount, int i, int at) {
        return new ByteSource.Malformed(at, "event " + i + ": stack reference " + Long.toUnsignedString(ref)
                + " beyond the block's " + stackCount + " stacks");
    }
}
