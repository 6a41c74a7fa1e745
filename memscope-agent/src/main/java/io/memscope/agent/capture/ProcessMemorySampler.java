package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import io.memscope.recording.Recording.ProcessMemorySamples;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Samples the process's memory every {@code processMemory} milliseconds on the capture's background thread
 * ({@link CaptureSession}'s {@code memscope-reaper}, whose waits end at the next sample's time): the resident set and
 * its parts, the heap, metaspace, code cache, thread stacks, the direct buffer pool and the native memory memscope tracks (the
 * parts of {@link ProcessMemorySamples}), and, when the JVM runs with {@code -XX:NativeMemoryTracking}, NMT's
 * committed bytes per category (at most once a second: the JVM builds the whole report as text).
 *
 * <p>Cheap enough to leave on: {@code /proc/self/status} is read into one buffer from a file kept open (a
 * {@code pread} at offset 0 makes the kernel produce it afresh), the heap from {@link Runtime}; the only allocations
 * per sample are the JDK's {@code MemoryUsage} objects of the metaspace and code cache pools, on memscope's own
 * thread (its allocations are not sampled). Samples wait in fixed arrays until the next flush writes them as one
 * PROCESS_MEMORY block. The thread's own CPU time in this class is counted ({@code processMemory.cpuNanos}). Every
 * failure is counted and never thrown: a part that cannot be read is {@link ProcessMemorySamples#UNKNOWN}.
 *
 * <p>The resident parts (heap, code cache, thread stacks) come from the resident check, which runs on a thread of its
 * own ({@link ResidentCheckThread}): each sample carries its latest figures and their age ({@code residentAge}), and
 * its CPU time is counted in {@code processMemory.cpuNanos} too. When the resident set changed much since the latest
 * figures were measured ({@link ResidentStaleness}), the sampler asks the check for a pass before its interval (once
 * per pass), so that the figures at a peak are measured near it; at the capture's end it asks for one more and takes a
 * last sample with it ({@link #end}).
 *
 * <p>Not thread-safe: the background thread samples and flushes; the capture's end writes the rest after that thread
 * stopped.
 */
final class ProcessMemorySampler {
    /** The parts of each fast sample, in this order. */
    static final List<String> PARTS = List.of("rss", "rssAnon", "rssFile", "rssShmem", "swap", "threads",
            "heapUsed", "heapCommitted", "metaspace", "classSpace", "codeCache", "threadStacks", "directBuffers",
            "trackedNative", "mappedBuffers", "heapResident", "codeCacheResident", "threadStacksResident",
            "threadStacksMatched", "malloc", "mallocFree", "residentAge");
    private static final int RSS = 0, RSS_ANON = 1, RSS_FILE = 2, RSS_SHMEM = 3, SWAP = 4, THREADS = 5,
            HEAP_USED = 6, HEAP_COMMITTED = 7, METASPACE = 8, CLASS_SPACE = 9, CODE_CACHE = 10, THREAD_STACKS = 11,
            DIRECT = 12, TRACKED_NATIVE = 13, MAPPED = 14, HEAP_RESIDENT = 15, CODE_RESIDENT = 16,
            STACKS_RESIDENT = 17, STACKS_MATCHED = 18, MALLOC = 19, MALLOC_FREE = 20, RESIDENT_AGE = 21;
    private static final int P = 22;
    /** How long the capture's end waits for its resident pass, at most. */
    static final long END_PASS_TIMEOUT_NANOS = 250_000_000L;
    /** /proc/self/status keys, in the order of the parts they fill (VmRSS .. Threads). */
    private static final byte[][] STATUS_KEYS = {ascii("VmRSS:"), ascii("RssAnon:"), ascii("RssFile:"),
        ascii("RssShmem:"), ascii("VmSwap:"), ascii("Threads:")};

    private final long intervalNanos;
    /** How often the resident check runs ({@code rssDetail}); 0 = never. */
    private final long detailMillis;
    /** The resident check's thread, whose latest figures each sample carries; null when off. */
    private ResidentCheckThread resident;
    /** When the resident figures are stale enough to ask for a pass. */
    private final ResidentStaleness staleness = new ResidentStaleness();
    private long residentRequests;
    /** The JDK's direct and mapped buffer pools. */
    private final JdkBufferPools pools = new JdkBufferPools(this::failed);
    private final LongSupplier trackedNative;
    private final long[] times;
    private final long[] values;
    private int count;
    private long nextDue;
    private final byte[] status = new byte[16 * 1024];
    private RandomAccessFile statusFile;
    private final long[] statusValues = new long[STATUS_KEYS.length];
    private final List<MemoryPoolMXBean> metaspacePools = new ArrayList<>();
    private final List<MemoryPoolMXBean> classPools = new ArrayList<>();
    private final List<MemoryPoolMXBean> codePools = new ArrayList<>();
    private ThreadMXBean threadBean;
    private boolean cpuTime;
    /** Bytes of one thread's stack (ThreadStackSize), for the estimate without NMT. */
    private long stackSizeBytes = 1L << 20;
    /** NMT's summary when the JVM runs with it. */
    private final NmtSummary nmt = new NmtSummary(this::failed);
    private long samples;
    private long failures;
    private long cpuNanos;
    private String firstFailure;
    /** The latest sample's values (in {@link #PARTS} order), for the MXBean; all unknown before the first. */
    private final long[] latest = new long[P];

    /**
     * @param intervalMillis how often to sample
     * @param flushMillis    how often the background thread flushes: samples are kept for that long at least
     * @param trackedNative  memscope's outstanding native bytes
     */
    ProcessMemorySampler(long intervalMillis, long flushMillis, LongSupplier trackedNative) {
        this(intervalMillis, 0, flushMillis, trackedNative);
    }

    /**
     * @param intervalMillis how often to sample
     * @param detailMillis   how often to run the resident check over {@code /proc/self/smaps}; 0 = never
     * @param flushMillis    how often the background thread flushes: samples are kept for that long at least
     * @param trackedNative  memscope's outstanding native bytes
     */
    ProcessMemorySampler(long intervalMillis, long detailMillis, long flushMillis, LongSupplier trackedNative) {
        this.intervalNanos = intervalMillis * 1_000_000L;
        this.detailMillis = detailMillis;
        this.trackedNative = trackedNative;
        Arrays.fill(latest, ProcessMemorySamples.UNKNOWN);
        int capacity = (int) Math.min(4096, Math.max(16, 2 * flushMillis / intervalMillis + 4));
        times = new long[capacity];
        values = new long[capacity * P];
    }

    /**
     * Finds the beans and opens {@code /proc/self/status}; what is missing stays unknown. Never throws.
     *
     * @param inst exports the JDK's direct buffer pool to the agent (else the direct part is unknown)
     */
    ProcessMemorySampler start(long nowNanos, java.lang.instrument.Instrumentation inst) {
        try {
            statusFile = new RandomAccessFile("/proc/self/status", "r");
        } catch (Throwable t) {
            statusFile = null; // not Linux: RSS and its parts are unknown, the JVM's figures are still sampled
        }
        try {
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                String name = p.getName();
                if (p.getType() != MemoryType.NON_HEAP) {
                    continue;
                }
                if (name.equals("Metaspace")) {
                    metaspacePools.add(p);
                } else if (name.equals("Compressed Class Space")) {
                    classPools.add(p);
                } else if (name.startsWith("CodeHeap") || name.equals("Code Cache")) {
                    codePools.add(p);
                }
            }
            pools.start(inst, nowNanos);
            threadBean = ManagementFactory.getThreadMXBean();
            cpuTime = threadBean.isCurrentThreadCpuTimeSupported() && threadBean.isThreadCpuTimeEnabled();
            com.sun.management.HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class);
            long[] stackSizes = new long[3];
            if (hs != null) {
                nmt.mode(hs.getVMOption("NativeMemoryTracking").getValue(), nowNanos);
                long kb = Long.parseLong(hs.getVMOption("ThreadStackSize").getValue());
                if (kb > 0) {
                    stackSizeBytes = kb * 1024;
                }
                stackSizes[0] = stackSizeBytes;
                stackSizes[1] = 1024 * Long.parseLong(hs.getVMOption("CompilerThreadStackSize").getValue());
                stackSizes[2] = 1024 * Long.parseLong(hs.getVMOption("VMThreadStackSize").getValue());
            }
            if (detailMillis > 0 && statusFile != null) { // off the sampling thread: a pass can take a second
                resident = new ResidentCheckThread(detailMillis, stackSizes, inst, "/proc/self/smaps")
                        .start(Runtime.getRuntime().maxMemory());
            }
        } catch (Throwable t) {
            failed(t);
        }
        nextDue = nowNanos;
        return this;
    }

    /** @return a copy of the latest sample's values in {@link #PARTS} order (any thread) */
    long[] latest() {
        return latest.clone();
    }

    /** @return nanoseconds until the next sample is due (0: now) */
    long nanosToNext(long nowNanos) {
        return Math.max(0, nextDue - nowNanos);
    }

    /**
     * Takes a sample when one is due; writes the buffered samples into {@code recording} when the buffer is full.
     * Never throws.
     */
    void tick(long nowNanos, CaptureRecording recording) {
        if (nowNanos < nextDue) {
            return;
        }
        nextDue += intervalNanos;
        if (nextDue <= nowNanos) {
            nextDue = nowNanos + intervalNanos; // late (a long flush, a pause): no burst of catching up
        }
        long cpu0 = cpuTime ? threadBean.getCurrentThreadCpuTime() : 0;
        try {
            if (count == times.length) {
                writeTo(recording);
            }
            nmt.tick(nowNanos); // first: the fast sample takes its stack figure
            sample(nowNanos);
        } catch (Throwable t) {
            failed(t);
        }
        if (cpuTime) {
            cpuNanos += threadBean.getCurrentThreadCpuTime() - cpu0;
        }
    }

    private void sample(long nowNanos) {
        int base = count * P;
        Arrays.fill(values, base, base + P, ProcessMemorySamples.UNKNOWN);
        if (readStatus()) {
            for (int i = 0; i < statusValues.length; i++) {
                values[base + i] = statusValues[i];
            }
        }
        Runtime rt = Runtime.getRuntime();
        long committed = rt.totalMemory();
        values[base + HEAP_COMMITTED] = committed;
        values[base + HEAP_USED] = committed - rt.freeMemory();
        values[base + METASPACE] = committed(metaspacePools);
        values[base + CLASS_SPACE] = committed(classPools);
        values[base + CODE_CACHE] = committed(codePools);
        if (values[base + THREADS] < 0) {
            values[base + THREADS] = threadBean == null ? -1 : threadBean.getThreadCount();
        }
        long nmtStacks = nmt.stackBytes();
        values[base + THREAD_STACKS] = nmtStacks >= 0 ? nmtStacks
                : values[base + THREADS] >= 0 ? values[base + THREADS] * stackSizeBytes : -1;
        values[base + DIRECT] = pools.directUsed();
        long tracked = trackedNative == null ? -1 : trackedNative.getAsLong();
        values[base + TRACKED_NATIVE] = Math.max(-1, tracked);
        values[base + MAPPED] = pools.mappedUsed();
        ResidentCheckThread r = resident;
        if (r != null) { // HEAP_RESIDENT, CODE_RESIDENT, STACKS_RESIDENT, STACKS_MATCHED in this order
            long at = r.figures(values, base + HEAP_RESIDENT);
            if (at != Long.MIN_VALUE) {
                values[base + RESIDENT_AGE] = Math.max(0, nowNanos - at);
                if (staleness.sample(at, nowNanos, values[base + RSS])) {
                    residentRequests++;
                    r.request();
                }
            }
        }
        mallocInfo(values, base);
        System.arraycopy(values, base, latest, 0, P); // read by JMX threads: a torn read mixes two samples' parts
        times[count++] = nowNanos;
        samples++;
    }

    /**
     * The capture's end, after the background thread stopped: a last resident pass (bounded: {@link
     * ResidentCheckThread#passNow}) and a last sample carrying its figures, so that the run's end is measured fresh.
     * Never throws.
     */
    void end(CaptureRecording recording) {
        long cpu0 = cpuTime ? threadBean.getCurrentThreadCpuTime() : 0;
        try {
            ResidentCheckThread r = resident;
            if (r != null) {
                r.passNow(END_PASS_TIMEOUT_NANOS);
            }
            if (count == times.length) {
                writeTo(recording);
            }
            sample(System.nanoTime());
        } catch (Throwable t) {
            failed(t);
        }
        if (cpuTime) {
            cpuNanos += threadBean.getCurrentThreadCpuTime() - cpu0;
        }
    }

    private final long[] mallinfo = new long[2];
    /** Whether glibc's figures are read: the sampler library is loaded, and reading them has not failed. */
    private boolean mallinfoOn = true;

    /**
     * glibc's account of malloc (its {@code mallinfo2}, through the sampler library when it is loaded): bytes in use
     * (direct buffers and memscope-tracked native memory among them) and the free bytes it keeps; unknown without
     * the library, under another allocator, or before glibc 2.33.
     */
    private void mallocInfo(long[] into, int base) {
        if (!mallinfoOn || !SamplerLibrary.loaded()) {
            return;
        }
        try {
            io.memscope.agent.boot.SamplerNatives.mallocInfo(mallinfo);
            into[base + MALLOC] = mallinfo[0];
            into[base + MALLOC_FREE] = mallinfo[1];
        } catch (Throwable t) {
            mallinfoOn = false;
            failed(t);
        }
    }

    private static long committed(List<MemoryPoolMXBean> pools) {
        if (pools.isEmpty()) {
            return -1;
        }
        long sum = 0;
        for (MemoryPoolMXBean p : pools) {
            sum += p.getUsage().getCommitted();
        }
        return sum;
    }

    /** Reads /proc/self/status into {@link #statusValues} (bytes; the thread count as is). */
    private boolean readStatus() {
        RandomAccessFile f = statusFile;
        if (f == null) {
            return false;
        }
        Arrays.fill(statusValues, ProcessMemorySamples.UNKNOWN);
        int n = 0;
        try {
            f.seek(0);
            int r;
            while (n < status.length && (r = f.read(status, n, status.length - n)) > 0) {
                n += r;
            }
        } catch (Throwable t) {
            failed(t);
            return false;
        }
        parseStatus(status, n, statusValues);
        return statusValues[RSS] >= 0;
    }

    /**
     * Parses the lines of {@code /proc/self/status} that {@link #STATUS_KEYS} names: {@code VmRSS:\t  1234 kB} as
     * bytes, {@code Threads:\t12} as a count; a key not found stays -1.
     */
    static void parseStatus(byte[] buf, int length, long[] out) {
        int line = 0;
        while (line < length) {
            for (int k = 0; k < STATUS_KEYS.length; k++) {
                byte[] key = STATUS_KEYS[k];
                if (startsWith(buf, line, length, key)) {
                    int p = line + key.length;
                    while (p < length && (buf[p] == ' ' || buf[p] == '\t')) {
                        p++;
                    }
                    long v = 0;
                    int digits = 0;
                    while (p < length && buf[p] >= '0' && buf[p] <= '9' && digits < 18) {
                        v = v * 10 + (buf[p++] - '0');
                        digits++;
                    }
                    if (digits > 0) {
                        boolean kb = p + 3 <= length && buf[p] == ' ' && buf[p + 1] == 'k' && buf[p + 2] == 'B';
                        out[k] = kb ? v * 1024 : v;
                    }
                    break;
                }
            }
            while (line < length && buf[line] != '\n') {
                line++;
            }
            line++;
        }
    }

    private static boolean startsWith(byte[] buf, int at, int length, byte[] key) {
        if (at + key.length > length) {
            return false;
        }
        for (int i = 0; i < key.length; i++) {
            if (buf[at + i] != key[i]) {
                return false;
            }
        }
        return true;
    }

    /** Writes the samples taken since the last call as PROCESS_MEMORY blocks. Never throws. */
    void writeTo(CaptureRecording recording) {
        try {
            if (count > 0) {
                recording.processMemory(new ProcessMemorySamples(PARTS, Arrays.copyOf(times, count),
                        Arrays.copyOf(values, count * P)));
            }
            nmt.writeTo(recording);
        } catch (Throwable t) {
            failed(t);
        }
        count = 0;
    }

    /** The sampler's figures for the recording's metadata at the end. */
    void metadata(Map<String, String> into) {
        into.put("processMemory.samples", Long.toString(samples));
        into.put("processMemory.failures", Long.toString(failures));
        ResidentCheckThread r = resident;
        // the resident check's CPU time is part of the sampler's, as when it ran on the sampling thread
        into.put("processMemory.cpuNanos", cpuTime ? Long.toString(cpuNanos + (r == null ? 0 : r.cpuNanos()))
                : "unknown");
        into.put("processMemory.rss", statusFile != null ? "/proc/self/status"
                : "unknown: no /proc/self/status on this platform (the JVM's own figures only)");
        nmt.metadata(into);
        String direct = pools.directUnknown();
        if (direct != null) {
            into.put("processMemory.direct", direct);
        }
        into.put("processMemory.threadStacks", nmt.sampled() ? "nmt"
                : "estimate: threads x ThreadStackSize (" + stackSizeBytes / 1024 + " KiB): reserved stack, an upper "
                        + "bound of what is resident");
        into.put("processMemory.rssDetailMs", Long.toString(detailMillis));
        if (r != null) {
            into.put("processMemory.rssDetailRequests", Long.toString(residentRequests));
        }
        long[] figures = {-1, -1, -1, -1};
        if (r != null) {
            r.metadata(into);
            r.figures(figures, 0);
        } else if (detailMillis > 0) {
            into.put("processMemory.rssDetailOff", "no /proc/self/status: not Linux");
        }
        boolean passed = r != null && r.passed();
        into.put("processMemory.parts.heap", passed && figures[0] >= 0 ? "resident" : "committed");
        into.put("processMemory.parts.codeCache", passed && figures[1] >= 0 ? "resident" : "committed");
        into.put("processMemory.parts.threadStacks", passed ? "resident" : nmt.sampled() ? "committed"
                : "reserved");
        into.put("processMemory.parts.metaspace", "committed");
        into.put("processMemory.parts.direct", "committed");
        into.put("processMemory.parts.files", "resident");
        into.put("processMemory.parts.malloc", SamplerLibrary.loaded() && mallinfoOn ? "glibc" : "tracked");
        if (firstFailure != null) {
            into.put("processMemory.firstFailure", firstFailure);
        }
    }

    /** Closes {@code /proc/self/status} and ends the resident check's thread. */
    void close() {
        ResidentCheckThread r = resident;
        if (r != null) {
            r.stop();
        }
        RandomAccessFile f = statusFile;
        statusFile = null;
        if (f != null) {
            try {
                f.close();
            } catch (Throwable ignored) {
                // nothing to do
            }
        }
    }

    private void failed(Throwable t) {
        failures++;
        if (firstFailure == null) {
            firstFailure = String.valueOf(t);
        }
        Failures.report("agent.processMemory", t);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
