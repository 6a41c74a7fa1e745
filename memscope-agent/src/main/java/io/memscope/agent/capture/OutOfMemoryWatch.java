package io.memscope.agent.capture;

import io.memscope.launch.MetadataKeys;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What memscope knows about the JVM running out of memory, and the memory it keeps so that the JVM can still exit and
 * memscope can still close its recording.
 *
 * <p>The JVM posts JVMTI ResourceExhausted after its last collection failed and before it throws the
 * {@code OutOfMemoryError} (the JVM sampler's library counts it without allocating: {@link #jvmti}); memscope's own
 * threads may also meet the error ({@link #caught}). Two reserves, arrays allocated when the capture starts (by its
 * background thread, off the application's start):
 *
 * <ul>
 * <li><b>for the JVM</b> ({@link #jvmReserveBytes()}): let go the moment the JVM runs out of memory (by the library's
 *     callback, which holds it through a JNI global reference, or here when memscope's threads meet the error). The
 *     collection that follows has room for the application's own handling of the error and for the JVM's exit: its
 *     shutdown runs Java code that allocates before any shutdown hook runs (on a heap full to the last byte, no hook
 *     would run at all). The background thread then allocates nothing until it could take this reserve again
 *     ({@link #reacquire}): the JVM had memory again.</li>
 * <li><b>for memscope's end</b> ({@link #endReserveBytes()}): let go only when the capture ends ({@link #release}, the
 *     first thing of the shutdown hook): nothing else can have taken it by then, and the recording's last flush and
 *     close use it.</li>
 * </ul>
 *
 * The recording notes when the JVM ran out of memory ({@link MetadataKeys#OUT_OF_MEMORY_COUNT} ...) at its next flush
 * that has room, and at its close. Nothing here allocates but {@link #changes()}, {@link #everything()} and
 * {@link #reacquire}.
 */
final class OutOfMemoryWatch {
    /** JVMTI_RESOURCE_EXHAUSTED_JAVA_HEAP */
    static final long JAVA_HEAP = 2;
    /** JVMTI_RESOURCE_EXHAUSTED_THREADS */
    static final long THREADS = 4;

    private final int jvmReserveBytes;
    /** The JVM's reserve, when held here (without the JVM sampler's library). */
    private volatile byte[] jvmReserve;
    /** Whether the JVM's reserve is held (here, or by the library). */
    private volatile boolean held;
    /** The library holds the JVM's reserve (a JNI global reference its ResourceExhausted callback deletes). */
    private final boolean library;
    /** Both reserves' sizes, as taken at the start (heap memory the capture holds while it runs). */
    final long reserveBytes;
    /** memscope's reserve for the end of the capture. */
    private volatile byte[] endReserve;
    /** Set by {@link #release}: the capture ends, nothing is taken again. */
    private volatile boolean ended;

    private long jvmtiCount;
    private long caughtCount;
    private long firstNanos;
    private long lastNanos;
    private long flags;
    /** The first error's message ("Java heap space", "Metaspace", ...), or null. */
    private String caughtMessage;
    private boolean changed;

    /**
     * @param library the JVM sampler's library is loaded: it holds the JVM's reserve and lets it go in its
     *                ResourceExhausted callback, before the JVM throws (no Java code runs in between)
     */
    OutOfMemoryWatch(long jvmReserveBytes, long endReserveBytes, boolean library) {
        this.jvmReserveBytes = (int) jvmReserveBytes;
        this.reserveBytes = Math.max(0, jvmReserveBytes) + Math.max(0, endReserveBytes);
        this.library = library;
        if (jvmReserveBytes > 0) {
            hold(new byte[(int) jvmReserveBytes]);
        }
        endReserve = endReserveBytes > 0 ? new byte[(int) endReserveBytes] : null;
    }

    /** @return the JVM's reserve: 1/32 of the heap's maximum, at least 256 KiB, at most 4 MiB */
    static long jvmReserveBytes() {
        return Math.max(256 * 1024, Math.min(4L << 20, Runtime.getRuntime().maxMemory() / 32));
    }

    /** @return memscope's reserve for the end: 1/64 of the heap's maximum, at least 128 KiB, at most 4 MiB */
    static long endReserveBytes() {
        return Math.max(128 * 1024, Math.min(4L << 20, Runtime.getRuntime().maxMemory() / 64));
    }

    /**
     * Runs the paths an {@code OutOfMemoryError} takes once, when there is memory: the first execution of a class
     * reference in agent code asks the agent's class loader (Java code, which allocates) and would fail then.
     */
    static void prepare() {
        OutOfMemoryWatch scratch = new OutOfMemoryWatch(0, 0, false);
        OutOfMemoryError e = new OutOfMemoryError();
        if (isOutOfMemory(e)) {
            scratch.caught(e);
        }
        scratch.jvmti(1, 1, 1, 0);
        scratch.reacquire();
        scratch.outOfMemory();
        scratch.release();
    }

    /** @return whether {@code t} is an {@code OutOfMemoryError} */
    static boolean isOutOfMemory(Throwable t) {
        return t instanceof OutOfMemoryError;
    }

    private void hold(byte[] r) {
        if (library) {
            io.memscope.agent.boot.SamplerNatives.reserve(r);
        } else {
            jvmReserve = r;
        }
        held = true;
    }

    private void letGo() {
        held = false;
        jvmReserve = null;
        if (library) {
            try {
                io.memscope.agent.boot.SamplerNatives.reserve(null);
            } catch (Throwable t) {
                // the library is gone: it let the reference go with it
            }
        }
    }

    /**
     * @return whether the JVM is out of memory as far as memscope knows: its reserve was let go and could not be
     *         taken again yet
     */
    boolean outOfMemory() {
        return !held && !ended && jvmReserveBytes > 0;
    }

    /**
     * Takes the JVM's reserve again after it was let go, when there is room (background thread).
     *
     * @return whether it is held now
     */
    boolean reacquire() {
        if (held || ended || jvmReserveBytes == 0) {
            return held;
        }
        Runtime rt = Runtime.getRuntime();
        if (rt.freeMemory() + rt.maxMemory() - rt.totalMemory() < 4L * jvmReserveBytes) {
            return false; // still short: taking it back would take the very room it left (and the JVM's exit's)
        }
        try {
            hold(new byte[jvmReserveBytes]);
            return true;
        } catch (OutOfMemoryError stillShort) {
            return false; // the next round tries again
        }
    }

    /** How often the background thread checks whether memory came back, while the JVM is out of it. */
    static final long POLL_MILLIS = 200;

    /**
     * While the JVM is out of memory (the reserve was let go and could not be taken again), the background thread
     * allocates nothing: the room the reserve left is for the application's own handling of the error, the JVM's
     * exit and the recording's last flush. It only waits, and checks whether the memory came back. Samples the JVM
     * takes meanwhile wait in the library's queue, or are dropped and counted when it is full.
     *
     * @param sampler the JVM sampler, or null (the bytecode sampler)
     * @return whether it is out of memory still (this round of the background thread did nothing else)
     */
    boolean waitWhileOut(JvmtiHeapSampler sampler) throws InterruptedException {
        if (!outOfMemoryNow(sampler) || reacquire()) {
            return false;
        }
        Thread.sleep(POLL_MILLIS);
        return true;
    }

    /**
     * @param sampler the JVM sampler, or null
     * @return whether the JVM is out of memory now (the library's counters read into its own array: no allocation)
     */
    boolean outOfMemoryNow(JvmtiHeapSampler sampler) {
        if (sampler != null) {
            sampler.readCounters();
            jvmti(sampler.counter(SamplerCounter.EXHAUSTED_COUNT), sampler.counter(SamplerCounter.EXHAUSTED_FIRST_NANOS),
                    sampler.counter(SamplerCounter.EXHAUSTED_LAST_NANOS),
                    sampler.counter(SamplerCounter.EXHAUSTED_FLAGS));
        }
        return outOfMemory();
    }

    /**
     * Notes in the recording that the JVM ran out of memory (with its next flush), once it has memory again: while it
     * is out of memory the background thread allocates nothing, and the capture's end notes it anyway.
     */
    void noteIn(CaptureRecording recording) {
        if (outOfMemory()) {
            return;
        }
        Map<String, String> changes = changes();
        if (changes != null) {
            recording.metadata(changes);
        }
    }

    /** Lets both reserves go for good: the capture ends, and its last flush and close may need them. */
    void release() {
        ended = true;
        endReserve = null;
        letGo();
    }

    /** memscope's own code met an {@code OutOfMemoryError}: the JVM's reserve goes, the error is noted. */
    synchronized void caught(Throwable e) {
        letGo();
        long now = System.nanoTime();
        caughtCount++;
        if (firstNanos == 0) {
            firstNanos = now;
        }
        lastNanos = now;
        if (e != null && caughtMessage == null) {
            caughtMessage = e.getMessage(); // read later: a string literal here would be created now, in the heap
        }
        changed = true;
    }

    /**
     * The JVM sampler library's count of ResourceExhausted events (since the capture started), the first and last
     * time and the flags.
     *
     * @return whether there are new ones
     */
    synchronized boolean jvmti(long events, long first, long last, long eventFlags) {
        if (events <= jvmtiCount) {
            return false;
        }
        held = false; // the library let it go
        jvmtiCount = events;
        if (firstNanos == 0 || first != 0 && first < firstNanos) {
            firstNanos = first;
        }
        lastNanos = Math.max(lastNanos, last);
        flags |= eventFlags;
        changed = true;
        return true;
    }

    /** @return times the JVM ran out of memory as far as memscope saw */
    synchronized long count() {
        return Math.max(jvmtiCount, caughtCount);
    }

    /** @return the metadata to note when something changed since the last call, else null */
    synchronized Map<String, String> changes() {
        if (!changed) {
            return null;
        }
        changed = false;
        Map<String, String> m = new LinkedHashMap<>();
        m.put(MetadataKeys.OUT_OF_MEMORY_COUNT, Long.toString(count()));
        m.put(MetadataKeys.OUT_OF_MEMORY_FIRST_NANOS, Long.toString(firstNanos));
        m.put(MetadataKeys.OUT_OF_MEMORY_LAST_NANOS, Long.toString(lastNanos));
        m.put(MetadataKeys.OUT_OF_MEMORY_KIND, kind());
        return m;
    }

    /** @return the metadata of everything seen (the capture's end), or null when the JVM never ran out of memory */
    synchronized Map<String, String> everything() {
        if (count() == 0) {
            return null;
        }
        changed = true;
        return changes();
    }

    private String kind() {
        if ((flags & JAVA_HEAP) != 0 || "Java heap space".equals(caughtMessage)) {
            return (flags & THREADS) != 0 ? "Java heap, threads" : "Java heap";
        }
        return (flags & THREADS) != 0 ? "threads" : "memory";
    }
}
