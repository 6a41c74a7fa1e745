package io.memscope.internal.recording;

import static io.memscope.internal.recording.RecordingFormat.TAG_PREVIOUS_SIZE;
import static io.memscope.internal.recording.RecordingFormat.TAG_SIZE;
import static io.memscope.internal.recording.RecordingFormat.TAG_STACK;
import static io.memscope.internal.recording.RecordingFormat.TAG_THREAD;
import static io.memscope.internal.recording.RecordingFormat.TAG_TYPE_MASK;
import static io.memscope.internal.recording.RecordingFormat.TAG_TYPE_NAME;
import static io.memscope.internal.recording.RecordingFormat.TAG_VARIABLE;

import io.memscope.MemoryEventType;
import io.memscope.recording.RecordingReader.EventFold;

/**
 * A light decoder of EVENTS payloads ({@link EventBlockCodec} draws the layout): it checks a payload exactly as
 * {@link EventBlockCodec.Decoder} does, throwing the same {@link ByteSource.Malformed} at the same position, but
 * keeps of each event only its type, timestamp and site, which it hands to a fold's part. It reads the fields an
 * event does not repeat from nowhere: without the per-site memo and the columns, what is left is the varints' walk.
 *
 * <p>The events of a payload that turns out malformed have been added to the part up to the bad one: the caller
 * discards the part ({@link EventBlockFolder}). Reused across blocks; not thread-safe.
 */
final class EventBlockScanner {
    private static final MemoryEventType[] TYPES = MemoryEventType.values();
    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private final BlockThreads threads = new BlockThreads();
    private byte[] bytes;
    private int position;
    private int limit;
    /** Over the same payload, for what is read through {@link ByteSource} (a thread reference, an error). */
    private ByteSource source;

    /**
     * Scans a whole top-level EVENTS payload {@code bytes[0, length)}, including the check that nothing follows its
     * last event.
     *
     * @throws ByteSource.Malformed on any inconsistency, at the position where it was found
     */
    void scanBlock(byte[] bytes, int length, int stringCount, EventFold.Part part) {
        int end = scan(bytes, 0, length, stringCount, part);
        if (end < length) {
            throw new ByteSource.Malformed(end, (length - end) + " unused bytes at the end of the " + BlockType.EVENTS
                    + " block");
        }
    }

    /**
     * Scans one payload at {@code bytes[from, limit)}, as {@link EventBlockCodec.Decoder#decode} decodes one from a
     * {@link ByteSource} over the same bytes.
     *
     * @param stringCount number of string ids defined so far (ids 0 .. stringCount-1 are valid)
     * @return where the payload's last event ends
     * @throws ByteSource.Malformed on any inconsistency, at the position where it was found
     */
    int scan(byte[] bytes, int from, int limit, int stringCount, EventFold.Part part) {
        this.bytes = bytes;
        this.position = from;
        this.limit = limit;
        this.source = new ByteSource(bytes, 0, limit);
        threads.reset();
        int countAt = position;
        long count = uleb();
        EventBlockCodec.checkCount(count, limit - position, countAt);
        long timestamp = zigzag();
        int stackCount = 0;
        for (int i = 0; i < count; i++) {
            int eventAt = position;
            int tag = EventBlockCodec.checkTag(uleb(), i, eventAt);
            int typeCode = tag & TAG_TYPE_MASK;
            timestamp += zigzag();
            if ((tag & TAG_THREAD) != 0) {
                source.reset(position);
                threads.read(source, stringCount, "event", i);
                position = source.position();
            }
            skip(); // the address delta
            int siteAt = position;
            long site = uleb();
            if (site < 0 || site > 0xFFFF_FFFFL) {
                throw new ByteSource.Malformed(siteAt, "site id " + Long.toUnsignedString(site)
                        + " exceeds the limit " + 0xFFFF_FFFFL);
            }
            if ((tag & TAG_SIZE) != 0) {
                skip();
            }
            if ((tag & TAG_TYPE_NAME) != 0) {
                stringId(stringCount, "type name");
            }
            if ((tag & TAG_STACK) != 0) {
                int refAt = position;
                long ref = uleb();
                if (ref == stackCount) {
                    skip(); // a new entry of the block's stack table: the stack id
                    stackCount++;
                } else if (ref < 0 || ref > stackCount) {
                    throw EventBlockCodec.badStackReference(ref, stackCount, i, refAt);
                }
            }
            if ((tag & TAG_PREVIOUS_SIZE) != 0) {
                skip();
            }
            if ((tag & TAG_VARIABLE) != 0) {
                stringId(stringCount, "variable name");
            }
            part.add(TYPES[typeCode], timestamp, (int) site);
        }
        return position;
    }

    /** {@link EventBlockCodec.Decoder#stringId}, here. */
    private void stringId(int stringCount, String what) {
        int at = position;
        EventBlockCodec.checkStringId(uleb(), stringCount, what, at);
    }

    private long zigzag() {
        long v = uleb();
        return (v >>> 1) ^ -(v & 1);
    }

    /**
     * Steps over a varint whose value is not needed: its end found in one 8-byte word when it is that short (it then
     * fits in 56 bits: nothing to check), else read by {@link #uleb}.
     */
    private void skip() {
        int p = position;
        if (limit - p >= 8) {
            long stops = ~(long) LONGS.get(bytes, p) & 0x8080_8080_8080_8080L;
            if (stops != 0) {
                position = p + (Long.numberOfTrailingZeros(stops) >>> 3) + 1;
                return;
            }
        }
        uleb();
    }

    /**
     * {@link ByteSource#uleb}: without a bounds check per byte while ten bytes remain; anything else (the end of the
     * payload near, a varint too long) read by {@link ByteSource} itself, which throws what the full decoder throws.
     */
    private long uleb() {
        int p = position;
        if (limit - p >= 10) {
            byte[] b = bytes;
            long result = 0;
            for (int shift = 0; shift < 63; shift += 7) {
                int x = b[p++];
                result |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    position = p;
                    return result;
                }
            }
            int x = b[p++] & 0xFF;
            if ((x & 0xFE) == 0) {
                position = p;
                return result | (long) x << 63;
            }
        }
        source.reset(position);
        long v = source.uleb();
        position = source.position();
        return v;
    }
}
