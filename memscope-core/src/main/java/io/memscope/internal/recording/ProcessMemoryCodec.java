package io.memscope.internal.recording;

import io.memscope.recording.Recording.ProcessMemorySamples;

import java.util.ArrayList;
import java.util.List;

/**
 * The PROCESS_MEMORY block (type 19, format 1.5, written SKIPPABLE): samples of the recorded process's memory, each
 * a time and one value per named part ({@link ProcessMemorySamples}). The block names its parts, so parts can be
 * added without a format change; samples with another list of parts (NMT's categories) go in blocks of their own.
 *
 * <pre>
 *  PROCESS_MEMORY payload
 *  +---------------------+------------------------------------------------------------------------+
 *  | zz   baseTimestamp  | System.nanoTime() the first sample's delta is taken from               |
 *  | uleb partCount      | 1 .. {@value #MAX_PARTS}                                                    |
 *  | partCount x         |                                                                        |
 *  |   uleb partName     | string id, not 0, e.g. "rss"; no name twice in a block                |
 *  | uleb sampleCount    | 1 .. (bytes left) / (1 + partCount)                                    |
 *  | sampleCount x (     |                                                                        |
 *  |   zz timeDelta      | timestamp - previous sample's timestamp (first: - baseTimestamp)       |
 *  |   partCount x       |                                                                        |
 *  |     zz value )      | the part's value at that time; -1 = unknown; below -1 is damage        |
 *  +---------------------+------------------------------------------------------------------------+
 * </pre>
 *
 * Every field is a varint, so each sample takes at least 1 + partCount bytes: what bounds the sample count before
 * anything is allocated. Values are bytes, except parts documented otherwise (a thread count).
 */
final class ProcessMemoryCodec {
    /** Most parts in one block. */
    static final int MAX_PARTS = 256;

    private ProcessMemoryCodec() {
    }

    /**
     * @return the payload of one PROCESS_MEMORY block holding these samples
     * @throws IllegalArgumentException without samples or parts, with too many parts, a part named twice, a value
     *                                  below -1, or a payload beyond the block limit
     */
    static ByteSink encode(ProcessMemorySamples samples, FileStrings strings) {
        List<String> parts = samples.parts();
        int n = samples.size();
        if (n == 0 || parts.isEmpty() || parts.size() > MAX_PARTS) {
            throw new IllegalArgumentException(n + " samples of " + parts.size() + " parts");
        }
        if (parts.stream().distinct().count() != parts.size()) {
            throw new IllegalArgumentException("a part is named twice: " + parts);
        }
        ByteSink s = new ByteSink(16 + parts.size() * 4 + n * (2 + parts.size() * 4));
        long previous = samples.timestampNanos(0);
        s.zigzag(previous);
        s.uleb(parts.size());
        for (String p : parts) {
            s.uleb(strings.intern(p));
        }
        s.uleb(n);
        for (int i = 0; i < n; i++) {
            long t = samples.timestampNanos(i);
            s.zigzag(t - previous);
            previous = t;
            for (int j = 0; j < parts.size(); j++) {
                long v = samples.value(i, j);
                if (v < ProcessMemorySamples.UNKNOWN) {
                    throw new IllegalArgumentException("part " + parts.get(j) + ": value " + v);
                }
                s.zigzag(v);
            }
        }
        if (s.length() > RecordingFormat.MAX_BLOCK_PAYLOAD) {
            throw new IllegalArgumentException(n + " samples do not fit in one block");
        }
        return s;
    }

    /** Reads what {@link #encode} wrote; names are resolved through {@code names}. */
    static ProcessMemorySamples decode(ByteSource in, Names names) {
        long previous = in.zigzag();
        int at = in.position();
        long partCount = in.uleb();
        if (partCount < 1 || partCount > MAX_PARTS || partCount > in.remaining()) {
            throw new ByteSource.Malformed(at, "process memory part count " + Long.toUnsignedString(partCount)
                    + " impossible (1 .. " + MAX_PARTS + ", " + in.remaining() + " bytes left)");
        }
        List<String> parts = new ArrayList<>((int) partCount);
        for (int j = 0; j < partCount; j++) {
            int nameAt = in.position();
            String name = names.nonNull(in, "process memory part name");
            if (parts.contains(name)) {
                throw new ByteSource.Malformed(nameAt, "process memory part '" + name + "' named twice");
            }
            parts.add(name);
        }
        at = in.position();
        long n = in.uleb();
        if (n < 1 || n > in.remaining() / (1 + partCount)) {
            throw new ByteSource.Malformed(at, "process memory sample count " + Long.toUnsignedString(n)
                    + " impossible for " + in.remaining() + " remaining bytes");
        }
        long[] times = new long[(int) n];
        long[] values = new long[(int) (n * partCount)];
        int k = 0;
        for (int i = 0; i < n; i++) {
            previous += in.zigzag();
            times[i] = previous;
            for (int j = 0; j < partCount; j++) {
                int valueAt = in.position();
                long v = in.zigzag();
                if (v < ProcessMemorySamples.UNKNOWN) {
                    throw new ByteSource.Malformed(valueAt, "process memory sample " + i + ", part '"
                            + parts.get(j) + "': value " + v);
                }
                values[k++] = v;
            }
        }
        return new ProcessMemorySamples(parts, times, values);
    }

    /** The reader's string table, as the decoder needs it. */
    interface Names {
        /** @return the string of the next string id, which must not be 0 */
        String nonNull(ByteSource in, String what);
    }
}
