package io.memscope.recording;

import java.util.List;

/**
 * Samples of the recorded process's memory (a PROCESS_MEMORY block of a recording, format 1.5): at each sample's
 * time, the value of each named part. The parts are named in the block, so a later writer may add parts without a
 * format change; a reader takes the parts it knows by name and ignores the others.
 *
 * <p>Part names the memscope agent writes (values in bytes unless said otherwise; {@link #UNKNOWN} = not known at
 * that sample, e.g. no {@code /proc} on this platform):
 * <ul>
 * <li>{@code rss}, {@code rssAnon}, {@code rssFile}, {@code rssShmem}, {@code swap}: the process's resident set and
 *     its anonymous, file-backed and shared-memory parts, and its swapped-out memory ({@code /proc/self/status}
 *     VmRSS, RssAnon, RssFile, RssShmem, VmSwap; Linux only);</li>
 * <li>{@code threads}: the process's thread count (a count, not bytes: {@code /proc/self/status} Threads, else the
 *     JVM's live thread count);</li>
 * <li>{@code heapUsed}, {@code heapCommitted}: the Java heap ({@code MemoryMXBean});</li>
 * <li>{@code metaspace}, {@code classSpace}: committed bytes of the {@code Metaspace} pool (which includes the
 *     compressed class space) and of the {@code Compressed Class Space} pool;</li>
 * <li>{@code codeCache}: committed bytes of the code cache pools;</li>
 * <li>{@code threadStacks}: the threads' stacks: NMT's committed stack bytes when the JVM runs with
 *     {@code -XX:NativeMemoryTracking}, else an estimate (threads times the configured stack size; metadata
 *     {@code processMemory.threadStacks} says which);</li>
 * <li>{@code directBuffers}: memory used by the {@code direct} buffer pool (what {@code BufferPoolMXBean}
 *     "direct" reports);</li>
 * <li>{@code trackedNative}: native memory memscope tracked and that is still allocated (direct buffers, Unsafe,
 *     FFM arenas);</li>
 * <li>{@code nmt.<category>.committed}: NMT's committed bytes per category (in blocks of their own, taken less
 *     often), e.g. {@code nmt.Java Heap.committed}, {@code nmt.Thread.stack.committed}.</li>
 * </ul>
 *
 * @param parts      the part names, in the order of each sample's values
 * @param timestamps {@link System#nanoTime()} of the recorded JVM at each sample
 * @param values     row-major: sample {@code i}'s value of part {@code j} is {@code values[i * parts.size() + j]}
 */
public record ProcessMemorySamples(List<String> parts, long[] timestamps, long[] values) {
    /** A value that was not known at that sample. */
    public static final long UNKNOWN = -1;

    public ProcessMemorySamples {
        parts = List.copyOf(parts);
        if (values.length != timestamps.length * parts.size()) {
            throw new IllegalArgumentException(values.length + " values for " + timestamps.length + " samples of "
                    + parts.size() + " parts");
        }
    }

    /** @return the number of samples */
    public int size() {
        return timestamps.length;
    }

    /** @return sample {@code i}'s time ({@link System#nanoTime()} of the recorded JVM) */
    public long timestampNanos(int i) {
        return timestamps[i];
    }

    /** @return sample {@code i}'s value of part {@code part} (an index into {@link #parts()}) */
    public long value(int i, int part) {
        return values[i * parts.size() + part];
    }

    /** @return the index of the named part, or -1 when the block does not have it */
    public int part(String name) {
        return parts.indexOf(name);
    }
}
