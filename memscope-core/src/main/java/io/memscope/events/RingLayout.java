package io.memscope.events;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte layout of the {@code <pid>.events} ring file (format version {@value #VERSION}); docs/formats/events.md is
 * the reader-facing copy of this description. All numbers are little-endian; all offsets are in bytes.
 *
 * <pre>
 * File
 * +--------------------------+ 0
 * | file header (4096)       |
 * +--------------------------+ NAMES_OFFSET (= 4096)
 * | names region             |  namesCapacity bytes, append-only entries
 * +--------------------------+ SLOTS_OFFSET (= 4096 + namesCapacity)
 * | slot 0: header (256)     |
 * |         ring (ringSize)  |
 * | slot 1 ...               |  slotCount slots, each SLOT_HEADER_BYTES + ringSize bytes
 * +--------------------------+ fileSize
 *
 * File header
 *  0 u64 magic "MSEVENTS"         8 u32 version          12 u32 header size (4096)
 * 16 i64 pid                      24 i64 start time, ns since the Unix epoch
 * 32 i64 monotonic clock (ns) read at the same moment as the start time (clock pair)
 * 40 u32 slot count               44 u32 ring size (bytes, power of two, 4096 .. 2^30)
 * 48 u32 slot header size (256)   52 u32 names capacity (bytes)
 * 56 u64 names offset             64 u64 slots offset          72 u64 file size
 * 80 u32 max record size (1024)   84 u32 names used (bytes; store-release after the entry bytes)
 * 88 u32 ready (1; store-release, written last)                92 u32 closed (1 after a clean stop)
 * 96 u64 events dropped: no free slot or re-entrant write     104 u64 names dropped: names region full
 *
 * Names region entry (8-byte aligned, appended under a lock by the producer process)
 *  0 u16 entry length (multiple of 8)   2 u8 entry kind (1 type, 2 event)   3 u8 event kind (events only)
 *  4 u16 id (type id or event id)       6 u16 type id (custom events)      8 u16 name length (UTF-8 bytes)
 * 10 name bytes, zero padding to the entry length
 *
 * Slot header (256 bytes; four 64-byte cache lines)
 *   0 u64 state = generation &lt;&lt; 8 | state (0 free, 1 active, 2 retired, 3 claiming)
 *   8 i64 thread id          16 u64 start position of this generation    24 i64 retired at (monotonic ns)
 *  32 i64 thread id of the previous generation (0: none or unknown)
 *  40 u64 start position of the previous generation
 *  64 u64 head (position of the oldest record)   72 u64 head sequence (records before head)
 *  80 u64 head version (seqlock: odd while head and head sequence change)
 * 128 u64 tail (position after the newest record; store-release after the record bytes)
 * 136 u16 previous generation's thread name length   138 its name, UTF-8, at most 54 bytes
 * 192 u16 thread name length    194 thread name, UTF-8, at most 62 bytes
 *
 * Record (8-byte aligned; position p lives at ring offset p &amp; (ringSize - 1))
 *  0 u64 header word: bits 0-15 length (bytes, unpadded, including these 16 header bytes),
 *        bits 16-23 kind, bits 24-39 id, bits 40-63 lap = (p / ringSize) &amp; 0xFFFFFF
 *  8 i64 timestamp, monotonic ns (same clock as the header's clock pair)
 * 16 payload (length - 16 bytes), zero padding to 8
 * A padding record (kind 0) is only the header word; its length fills the ring to its end.
 * </pre>
 */
final class RingLayout {
    static final long MAGIC = 0x5354_4E45_5645_534DL; // "MSEVENTS" little-endian
    static final int VERSION = 1;
    static final int HEADER_BYTES = 4096;

    static final int H_MAGIC = 0;
    static final int H_VERSION = 8;
    static final int H_HEADER_SIZE = 12;
    static final int H_PID = 16;
    static final int H_START_EPOCH = 24;
    static final int H_START_MONO = 32;
    static final int H_SLOT_COUNT = 40;
    static final int H_RING_SIZE = 44;
    static final int H_SLOT_HEADER_SIZE = 48;
    static final int H_NAMES_CAPACITY = 52;
    static final int H_NAMES_OFFSET = 56;
    static final int H_SLOTS_OFFSET = 64;
    static final int H_FILE_SIZE = 72;
    static final int H_MAX_RECORD = 80;
    static final int H_NAMES_USED = 84;
    static final int H_READY = 88;
    static final int H_CLOSED = 92;
    static final int H_DROPPED = 96;
    static final int H_NAMES_DROPPED = 104;

    static final int SLOT_HEADER_BYTES = 256;
    static final int S_STATE = 0;
    static final int S_TID = 8;
    static final int S_START_POS = 16;
    static final int S_RETIRED_AT = 24;
    static final int S_PREV_TID = 32;
    static final int S_PREV_START_POS = 40;
    static final int S_HEAD = 64;
    static final int S_HEAD_SEQ = 72;
    static final int S_HEAD_VERSION = 80;
    static final int S_TAIL = 128;
    static final int S_PREV_NAME_LEN = 136;
    static final int S_PREV_NAME = 138;
    static final int MAX_PREV_THREAD_NAME_BYTES = 54;
    static final int S_NAME_LEN = 192;
    static final int S_NAME = 194;
    static final int MAX_THREAD_NAME_BYTES = 62;

    static final int STATE_FREE = 0;
    static final int STATE_ACTIVE = 1;
    static final int STATE_RETIRED = 2;
    static final int STATE_CLAIMING = 3;

    /** Largest record in bytes, header word and timestamp included. */
    static final int MAX_RECORD_BYTES = 1024;
    /** Bytes of header word and timestamp before a record's payload. */
    static final int RECORD_HEADER_BYTES = 16;
    /** Largest payload of a custom event, in bytes. */
    static final int MAX_PAYLOAD_BYTES = MAX_RECORD_BYTES - RECORD_HEADER_BYTES;

    static final int KIND_PADDING = 0;
    static final int KIND_SPAN_BEGIN = 1;
    static final int KIND_SPAN_END = 2;
    static final int KIND_LIFECYCLE = 3;
    static final int KIND_COUNTER = 4;
    static final int KIND_CUSTOM = 5;

    static final int ENTRY_TYPE = 1;
    static final int ENTRY_EVENT = 2;
    static final int ENTRY_HEADER_BYTES = 10;
    static final int MAX_NAME_BYTES = 1000;

    /** Event kinds as stored in name entries. */
    static final int EVENT_SPAN = 1;
    static final int EVENT_LIFECYCLE = 2;
    static final int EVENT_COUNTER = 3;
    static final int EVENT_CUSTOM = 4;

    static final int MIN_RING_SIZE = 4096;
    static final int MAX_RING_SIZE = 1 << 30;
    static final int LAP_MASK = 0xFF_FFFF;

    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private RingLayout() {
    }

    static long header(int length, int kind, int id, long lap) {
        return (length & 0xFFFFL) | ((long) (kind & 0xFF) << 16) | ((long) (id & 0xFFFF) << 24)
                | ((lap & LAP_MASK) << 40);
    }

    static int length(long header) {
        return (int) (header & 0xFFFF);
    }

    static int kind(long header) {
        return (int) ((header >>> 16) & 0xFF);
    }

    static int id(long header) {
        return (int) ((header >>> 24) & 0xFFFF);
    }

    static int lap(long header) {
        return (int) (header >>> 40);
    }

    static int align8(int n) {
        return (n + 7) & ~7;
    }

    static long slotsBytes(int slotCount, int ringSize) {
        return (long) slotCount * (SLOT_HEADER_BYTES + (long) ringSize);
    }
}
