package io.memscope.internal.recording;

import static io.memscope.internal.recording.RecordingFormat.TAG_ALL;
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

    private final BlockThreads threads = new BlockThreads();

    /**
     * Scans a whole top-level EVENTS payload {@code bytes[0, length)}, including the check that nothing follows its
     * last event.
     *
     * @throws ByteSource.Malformed on any inconsistency, at the position where it was found
     */
    void scanBlock(byte[] bytes, int length, int stringCount, EventFold.Part part) {
        ByteSource in = new ByteSource(bytes, 0, length);
        scan(in, stringCount, part);
        if (in.hasRemaining()) {
            throw new ByteSource.Malformed(in.position(), in.remaining() + " unused bytes at the end of the "
                    + BlockType.EVENTS + " block");
        }
    }

    /**
     * Scans one payload from {@code in}'s position, as {@link EventBlockCodec.Decoder#decode} decodes it.
     *
     * @param stringCount number of string ids defined so far (ids 0 .. stringCount-1 are valid)
     * @throws ByteSource.Malformed on any inconsistency, at the position where it was found
     */
    void scan(ByteSource in, int stringCount, EventFold.Part part) {
        threads.reset();
        int countAt = in.position();
        long count = in.uleb();
        if (count < 1 || count > RecordingFormat.MAX_EVENTS_PER_BLOCK || count > in.remaining() / 4) {
            throw new ByteSource.Malformed(countAt, "event count " + Long.toUnsignedString(count)
                    + " impossible for a payload of " + in.remaining() + " remaining bytes");
        }
        long timestamp = in.zigzag();
        int stackCount = 0;
        for (int i = 0; i < count; i++) {
            int eventAt = in.position();
            long tagValue = in.uleb();
            if ((tagValue & ~(long) TAG_ALL) != 0) {
                throw new ByteSource.Malformed(eventAt, "event " + i + ": unknown tag bits 0x"
                        + Long.toHexString(tagValue));
            }
            int tag = (int) tagValue;
            int typeCode = tag & TAG_TYPE_MASK;
            if (typeCode > 5) {
                throw new ByteSource.Malformed(eventAt, "event " + i + ": unknown event type code " + typeCode);
            }
            timestamp += in.zigzag();
            if ((tag & TAG_THREAD) != 0) {
                threads.read(in, stringCount, "event", i);
            }
            in.uleb(); // the address delta
            int site = (int) in.ulebAtMost(0xFFFF_FFFFL, "site id");
            if ((tag & TAG_SIZE) != 0) {
                in.uleb();
            }
            if ((tag & TAG_TYPE_NAME) != 0) {
                EventBlockCodec.Decoder.stringId(in, stringCount, "type name");
            }
            if ((tag & TAG_STACK) != 0) {
                int refAt = in.position();
                long ref = in.uleb();
                if (ref == stackCount) {
                    in.uleb(); // a new entry of the block's stack table: the stack id
                    stackCount++;
                } else if (ref < 0 || ref > stackCount) {
                    throw new ByteSource.Malformed(refAt, "event " + i + ": stack reference "
                            + Long.toUnsignedString(ref) + " beyond the block's " + stackCount + " stacks");
                }
            }
            if ((tag & TAG_PREVIOUS_SIZE) != 0) {
                in.uleb();
            }
            if ((tag & TAG_VARIABLE) != 0) {
                EventBlockCodec.Decoder.stringId(in, stringCount, "variable name");
            }
            part.add(TYPES[typeCode], timestamp, site);
        }
    }
}
