package io.memscope.events;

import java.lang.invoke.VarHandle;
import java.nio.MappedByteBuffer;

import static io.memscope.events.RingLayout.*;

/**
 * The single writer of one thread's ring. Positions ({@code head}, {@code tail}) are byte counts since the
 * slot was first used and only grow; a position's ring offset is {@code position & (ringSize - 1)}.
 *
 * <p>A write: (1) if the record does not fit between the tail and the end of the ring, a padding record fills the
 * rest; (2) if the ring lacks room, the head advances over whole oldest records, by at least one batch
 * ({@code ringSize >> }{@value #HEAD_BATCH_SHIFT} bytes, so that a full ring pays for the seqlock once per batch, not
 * once per record), and the new head and head sequence are published under the head seqlock followed by a
 * store-store fence, before any of those bytes is overwritten; (3) the record's header word, timestamp and payload are stored; (4) the new tail is published with
 * a store-release. Readers therefore see only complete records below the tail, and a reader that copied bytes
 * the writer overwrote sees a head beyond its position when it re-checks.
 *
 * <p>Not thread-safe by design: only the owning thread calls it. A re-entrant write (from a custom codec that
 * itself writes events) is dropped and counted instead of corrupting the ring.
 */
final class RingWriter {
    /** The head advances by at least ringSize &gt;&gt; this many bytes when the ring is full (1/16 of the ring). */
    static final int HEAD_BATCH_SHIFT = 4;

    final EventsFile file;
    final int slot;
    /** The slot's generation this writer owns (the state word's upper bits while it is active). */
    final long generation;
    private final MappedByteBuffer buf;
    private final int base;
    private final int data;
    private final int size;
    private final int mask;
    private final int shift;
    private long head;
    private long headSeq;
    private long headVersion;
    private long tail;
    private final int batch;
    private boolean busy;
    final byte[] scratch = new byte[MAX_PAYLOAD_BYTES];

    RingWriter(EventsFile file, int slot, int base, long generation) {
        this.file = file;
        this.slot = slot;
        this.generation = generation;
        this.buf = file.buf;
        this.base = base;
        this.data = base + SLOT_HEADER_BYTES;
        this.size = file.ringSize;
        this.mask = size - 1;
        this.shift = Integer.numberOfTrailingZeros(size);
        this.batch = size >>> HEAD_BATCH_SHIFT;
        this.head = (long) LONG.getVolatile(buf, base + S_HEAD);
        this.headSeq = (long) LONG.getVolatile(buf, base + S_HEAD_SEQ);
        this.headVersion = (long) LONG.getVolatile(buf, base + S_HEAD_VERSION);
        if ((headVersion & 1) != 0) {
            headVersion++; // a writer died mid-update in an earlier life of this file: never the case in-process
        }
        this.tail = (long) LONG.getVolatile(buf, base + S_TAIL);
    }

    /** Writes a record without payload (span begin/end). */
    void write(int kind, int id, long timestamp) {
        if (busy) {
            file.countDropped();
            return;
        }
        long pos = reserve(RECORD_HEADER_BYTES);
        int off = data + (int) (pos & mask);
        buf.putLong(off, header(RECORD_HEADER_BYTES, kind, id, pos >>> shift));
        buf.putLong(off + 8, timestamp);
        publish(pos + RECORD_HEADER_BYTES);
    }

    /** Writes a record with an 8-byte payload (lifecycle, counter, long custom). */
    void write(int kind, int id, long timestamp, long value) {
        if (busy) {
            file.countDropped();
            return;
        }
        long pos = reserve(24);
        int off = data + (int) (pos & mask);
        buf.putLong(off, header(24, kind, id, pos >>> shift));
        buf.putLong(off + 8, timestamp);
        buf.putLong(off + 16, value);
        publish(pos + 24);
    }

    /**
     * Writes a custom record whose payload is the low {@code length} (0..8) bytes of {@code bits}, little-endian
     * (unit, int, span edge): one record of 16 or 24 bytes, no copy through the scratch array.
     */
    void writeSmall(int id, long timestamp, long bits, int length) {
        if (busy) {
            file.countDropped();
            return;
        }
        int aligned = length == 0 ? RECORD_HEADER_BYTES : 24;
        long pos = reserve(aligned);
        int off = data + (int) (pos & mask);
        buf.putLong(off, header(RECORD_HEADER_BYTES + length, KIND_CUSTOM, id, pos >>> shift));
        buf.putLong(off + 8, timestamp);
        if (length > 0) {
            buf.putLong(off + 16, length == 8 ? bits : bits & ((1L << (8 * length)) - 1));
        }
        publish(pos + aligned);
    }

    /** Writes a custom record whose payload is {@code scratch[0, length)}. */
    void writeScratch(int id, long timestamp, int length) {
        int len = RECORD_HEADER_BYTES + length;
        int aligned = align8(len);
        long pos = reserve(aligned);
        int off = data + (int) (pos & mask);
        buf.putLong(off, header(len, KIND_CUSTOM, id, pos >>> shift));
        buf.putLong(off + 8, timestamp);
        int p = off + RECORD_HEADER_BYTES;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            buf.putLong(p + i, getLongLE(scratch, i));
        }
        for (; i < aligned - RECORD_HEADER_BYTES; i++) {
            buf.put(p + i, i < length ? scratch[i] : 0);
        }
        publish(pos + aligned);
    }

    private static long getLongLE(byte[] b, int i) {
        return (b[i] & 0xFFL) | (b[i + 1] & 0xFFL) << 8 | (b[i + 2] & 0xFFL) << 16 | (b[i + 3] & 0xFFL) << 24
                | (b[i + 4] & 0xFFL) << 32 | (b[i + 5] & 0xFFL) << 40 | (b[i + 6] & 0xFFL) << 48
                | (b[i + 7] & 0xFFL) << 56;
    }

    /** Marks the writer busy while a custom codec runs; returns false if it already was (re-entrant call). */
    boolean enter() {
        if (busy) {
            file.countDropped();
            return false;
        }
        busy = true;
        return true;
    }

    void exit() {
        busy = false;
    }

    /** @return the position of the new record, after padding and making room for {@code aligned} bytes */
    private long reserve(int aligned) {
        long pos = tail;
        int room = size - (int) (pos & mask);
        long need = aligned <= room ? aligned : room + (long) aligned;
        if (pos + need - head > size) {
            // free a batch at once: the head seqlock (two fences, four ordered stores) is then paid once per
            // batch instead of once per record; readers simply see the head jump further (and count those events
            // lost), the ring keeps between size - batch and size bytes of history
            makeRoom(pos + need - size, Math.min(pos, pos + need - size + batch));
        }
        if (aligned > room) {
            buf.putLong(data + (int) (pos & mask), header(room, KIND_PADDING, 0, pos >>> shift));
            pos += room;
        }
        return pos;
    }

    /** Advances the head over whole records to at least {@code minHead}, and as far as {@code wantHead} allows. */
    private void makeRoom(long minHead, long wantHead) {
        long h = head;
        long s = headSeq;
        long target = Math.max(minHead, wantHead);
        while (h < target) {
            long w = buf.getLong(data + (int) (h & mask));
            if (kind(w) != KIND_PADDING) {
                s++;
            }
            h += align8(length(w));
        }
        long v = headVersion;
        LONG.setOpaque(buf, base + S_HEAD_VERSION, v + 1);
        VarHandle.storeStoreFence();
        LONG.setOpaque(buf, base + S_HEAD, h);
        LONG.setOpaque(buf, base + S_HEAD_SEQ, s);
        LONG.setRelease(buf, base + S_HEAD_VERSION, v + 2);
        VarHandle.storeStoreFence(); // the new head is visible before the old bytes are overwritten
        headVersion = v + 2;
        head = h;
        headSeq = s;
    }

    private void publish(long newTail) {
        tail = newTail;
        LONG.setRelease(buf, base + S_TAIL, newTail);
    }
}
