package io.memscope.events;

import io.memscope.error.CorruptFileException;

import java.nio.ByteBuffer;

import static io.memscope.events.RingLayout.*;

/**
 * A ring file's header as a reader found it (its layout is drawn in {@link RingLayout}), every field checked: the
 * ready word and the magic, the version, the fixed sizes, the slots and names geometry and the file's length.
 *
 * @param pid           the producer's process id
 * @param startEpoch    the producer's start, ns since the Unix epoch
 * @param startMono     the producer's monotonic clock (ns) at {@code startEpoch}
 * @param slotCount     thread rings in the file
 * @param ringSize      bytes of each ring (a power of two)
 * @param namesCapacity bytes of the names region
 * @param slotsOffset   where the first slot starts
 */
record RingHeader(long pid, long startEpoch, long startMono, int slotCount, int ringSize, int namesCapacity,
                  long slotsOffset) {
    /**
     * Reads and checks the header of the file mapped in {@code buf}, named {@code path} in errors.
     *
     * @throws CorruptFileException with the offset of the first field that is wrong
     */
    static RingHeader read(ByteBuffer buf, String path) {
        long size = buf.capacity();
        if (size < HEADER_BYTES) {
            throw corrupt(path, 0, "truncated: " + size + " bytes, the header alone is " + HEADER_BYTES);
        }
        // the ready word first (acquire), then the magic: read the other way round, a header completed between
        // the two reads would look like a zero magic with the ready word set, i.e. a foreign file
        int ready = (int) INT.getAcquire(buf, H_READY);
        long magic = buf.getLong(H_MAGIC);
        if (ready == 0 && (magic == 0 || magic == MAGIC)) {
            throw corrupt(path, H_READY, "not ready: the producer has not finished writing the header (or the file "
                    + "is all zeros)");
        }
        if (magic != MAGIC) {
            throw corrupt(path, H_MAGIC, String.format("not a memscope events file (magic 0x%016x)", magic));
        }
        int version = buf.getInt(H_VERSION);
        if (version != VERSION) {
            throw corrupt(path, H_VERSION, "unsupported events format version " + version + " (this reader reads "
                    + VERSION + ")");
        }
        if (ready != 1) {
            throw corrupt(path, H_READY, "header ready word " + ready + " (1 when the header is complete)");
        }
        check(path, buf.getInt(H_HEADER_SIZE) == HEADER_BYTES, H_HEADER_SIZE,
                "header size " + buf.getInt(H_HEADER_SIZE));
        check(path, buf.getInt(H_SLOT_HEADER_SIZE) == SLOT_HEADER_BYTES, H_SLOT_HEADER_SIZE,
                "slot header size " + buf.getInt(H_SLOT_HEADER_SIZE));
        check(path, buf.getInt(H_MAX_RECORD) == MAX_RECORD_BYTES, H_MAX_RECORD,
                "max record " + buf.getInt(H_MAX_RECORD));
        int slotCount = buf.getInt(H_SLOT_COUNT);
        check(path, slotCount >= 1 && slotCount <= 4096, H_SLOT_COUNT, "slot count " + slotCount);
        int ringSize = buf.getInt(H_RING_SIZE);
        check(path, ringSize >= MIN_RING_SIZE && ringSize <= MAX_RING_SIZE && Integer.bitCount(ringSize) == 1,
                H_RING_SIZE, "ring size " + ringSize);
        int namesCapacity = buf.getInt(H_NAMES_CAPACITY);
        check(path, namesCapacity >= 0 && namesCapacity <= (1 << 24) && namesCapacity % 8 == 0, H_NAMES_CAPACITY,
                "names capacity " + namesCapacity);
        check(path, buf.getLong(H_NAMES_OFFSET) == HEADER_BYTES, H_NAMES_OFFSET, "names offset "
                + buf.getLong(H_NAMES_OFFSET));
        long slotsOffset = buf.getLong(H_SLOTS_OFFSET);
        check(path, slotsOffset == HEADER_BYTES + (long) namesCapacity, H_SLOTS_OFFSET,
                "slots offset " + slotsOffset);
        long fileSize = buf.getLong(H_FILE_SIZE);
        check(path, fileSize == slotsOffset + slotsBytes(slotCount, ringSize), H_FILE_SIZE,
                "file size field " + fileSize);
        if (size < fileSize) {
            throw corrupt(path, size, "truncated: " + size + " bytes, the header says " + fileSize);
        }
        return new RingHeader(buf.getLong(H_PID), buf.getLong(H_START_EPOCH), buf.getLong(H_START_MONO), slotCount,
                ringSize, namesCapacity, slotsOffset);
    }

    private static void check(String path, boolean ok, long offset, String what) {
        if (!ok) {
            throw corrupt(path, offset, "bad header: " + what);
        }
    }

    private static CorruptFileException corrupt(String path, long offset, String what) {
        return new CorruptFileException(path, offset, what);
    }
}
