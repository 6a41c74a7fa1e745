package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.agent.boot.SamplerNatives;
import io.memscope.internal.error.Failures;
import io.memscope.internal.recording.EventColumns;
import io.memscope.internal.store.StringTable;
import io.memscope.launch.MetadataKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The process's malloc calls, sampled by bytes ({@code libmemscope-malloc.so}, src/main/native/malloc_hooks.c; docs/agent.md
 * "Native malloc"): one capture's drain thread, which turns the hooks' records into events of type
 * {@code native:malloc}.
 *
 * <p>An {@code ALLOCATE} is one sample of its size (the block's real address); its weight is
 * {@code size / (1 - exp(-size / interval))}, the heap's formula, with {@code malloc.intervalBytes}. A sampled block's
 * free is a {@code DEALLOCATE} of its address with the allocation's size and site. Its stack: native frames first
 * ({@code lib!function} or {@code lib+0xOFF}, {@link NativeSymbols}), then the Java frames AsyncGetCallTrace found.
 * Its site: the first Java frame outside the JDK (as for heap samples, {@link StackTable#resolveRaw}); without Java
 * frames, the innermost native function outside libc ({@code <native>} file, the library as class), else why there
 * are none ({@link NoJavaStack}: a Java stack AsyncGetCallTrace could not walk is counted and named). Thread ids are
 * OS thread ids with bit 63 set. The hooks send a stack's frames once and then its id ({@link MallocStackIds}): per
 * sample and per free the drain runs {@code allocationById} and {@code freeById}, two small methods; a stack's
 * frames are resolved once, by {@code allocation}.
 *
 * <p>At start a self-test forces one sample in {@code new Inflater()} and frees it with {@code end()}: unless that
 * sample arrives with a zlib frame and a Java frame of {@code Inflater} and its free is matched within
 * {@value #SELF_TEST_MILLIS} ms, the hooks pass through from then on, one line goes to stderr and {@code malloc.off}
 * says why.
 */
final class MallocSampler {
    static final String RESOURCE = "native/linux-x86_64/libmemscope-malloc.so";
    static final String TYPE = "native:malloc";
    static final long OS_THREAD = 1L << 63;
    static final int SELF_TEST_MILLIS = 2000;
    /** Native frames the hooks walk at most. */
    static final int NATIVE_FRAMES = 16;
    private static final int ALLOC = 2;
    private static final int FREE = 3;
    private static final int ALLOC_BY_ID = 4;
    private static final int TYPE_ALLOCATE = MemoryEventType.ALLOCATE.code();
    private static final int TYPE_DEALLOCATE = MemoryEventType.DEALLOCATE.code();

    private static String loadResult;

    private final CaptureRecording recording;
    private final StackTable stacks;
    private final StringTable strings;
    private final long interval;
    private final int depth;
    private final Map<String, String> endMetadata;
    private final NativeSymbols symbols = new NativeSymbols();
    /** The Java frames' methods by jmethodID, bounded as the stacks are (the evicted described again when met). */
    private final LongCache<SampledMethod> methods;
    /**
     * Sampled blocks without a stack id (their frames came whole) not freed yet: address to {size, site, estimated
     * bytes, key}. Drain thread only. Blocks with an id need none: their free brings size and id back.
     */
    private final Map<Long, long[]> live = new HashMap<>();
    private final SampleWeights weights;
    /**
     * Estimated malloc'd bytes not freed, of the sampled blocks (each {@code size / p}); written by the drain thread,
     * read by the agent's MXBean ({@code MallocOutstandingBytes}, {@code memscope top}).
     */
    private volatile long outstandingBytes;
    /**
     * The same estimate per (stack, site): key {@link #stackKey}, value {bytes, site, stack}. At most
     * {@value #MAX_PUSH_STACKS} keys, the rest under one key. Written by the drain thread, read by the push.
     */
    private final Map<Long, long[]> byStack = new HashMap<>();
    static final int MAX_PUSH_STACKS = 4096;
    /**
     * Raw stacks resolved already, by {@link #rawHash}: a repeated stack costs a hash and a lookup, not a
     * symbolization and a resolution (and the JIT compiles less). Bounded: emptied when full.
     */
    private final LongMap<long[]> resolved = new LongMap<>(1024);
    private static final int RESOLVED_LIMIT = 1 << 16;
    private final LongMap<Integer> threadNames = new LongMap<>(256);
    /** What the hooks' stack ids stand for, and the outstanding estimate per id. */
    private final MallocStackIds ids = new MallocStackIds();
    /** Records naming an id not defined (cannot happen unless a record is lost: then counted, not recorded). */
    private long unknownIds;
    private final EventColumns events = new EventColumns(256);
    private final long[] buffer = new long[1 << 16];
    /** The drain's buffer, in heap bytes. */
    static final long BUFFER_BYTES = 8L << 16;
    private final int typeId;
    private final Thread thread;
    private volatile boolean running = true;
    private long ownSamples;
    private long unmatchedFrees;

    // the self-test: decided by the drain thread
    /** The self-test thread's OS id while its records may still come (-1 then: OS ids are reused, 32768 by default). */
    private volatile long selfTestTid = -1;
    /** The self-test thread has ended: none of its records is claimed after this is set. */
    private volatile boolean selfTestEnded;
    /** When the self-test forced its sample: the thread's earlier samples (class loading, say) do not count. */
    private volatile long selfTestForcedNanos = Long.MAX_VALUE;
    /** Why the last sample of the self-test thread did not pass, for the failure message. */
    private String selfTestLastMiss;
    private long selfTestAddress;
    private long selfTestStart;
    private volatile String selfTest;
    private volatile String off;

    private MallocSampler(CaptureRecording recording, StackTable stacks, StringTable strings, long interval, int depth,
                          Map<String, String> endMetadata) {
        this.recording = recording;
        this.stacks = stacks;
        this.methods = new LongCache<>(stacks.bounded().limit());
        this.strings = strings;
        this.interval = interval;
        this.weights = new SampleWeights(interval);
        this.depth = Math.max(depth, 1);
        this.endMetadata = endMetadata;
        this.typeId = strings.intern(TYPE);
        this.thread = new Thread(this::run, "memscope-malloc");
        this.thread.setDaemon(true);
    }

    /** Loads the malloc library (once per JVM). @return "" when loaded, else why not */
    static synchronized String load() {
        if (loadResult == null) {
            String jvmti = SamplerLibrary.load(); // jmethodIDs are described through it
            loadResult = !jvmti.isEmpty() ? jvmti : SamplerLibrary.loadResource(RESOURCE, "memscope-malloc-");
        }
        return loadResult;
    }

    /**
     * Starts sampling and the drain thread, or explains in {@code endMetadata} ({@code malloc.off}) and on stderr
     * why not.
     *
     * @return the sampler, or null when malloc sampling cannot run here
     */
    static MallocSampler start(CaptureRecording recording, StackTable stacks, StringTable strings, long interval,
                               int depth, Map<String, String> endMetadata) {
        endMetadata.put(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(interval));
        String why = load();
        int rc = 0;
        if (why.isEmpty()) {
            try {
                rc = SamplerNatives.mallocStart(interval, NATIVE_FRAMES, Math.min(128, Math.max(depth, 16) + 8),
                        4L << 20, false);
            } catch (Throwable t) {
                why = "cannot start: " + t;
            }
            if (rc != 0) {
                why = rc == -1 ? "the C library's allocator functions or AsyncGetCallTrace are not found"
                        : rc == -2 ? "no JVMTI environment" : "out of memory for the sampler's tables";
            }
        }
        if (!why.isEmpty()) {
            turnedOff(endMetadata, why);
            return null;
        }
        MallocSampler s = new MallocSampler(recording, stacks, strings, interval, depth, endMetadata);
        s.selfTestStart = System.nanoTime();
        s.thread.start();
        Thread test = new Thread(MallocSampler::selfTestAllocations, "memscope-malloc-self-test");
        test.setDaemon(true);
        s.startSelfTest(test);
        return s;
    }

    private static void turnedOff(Map<String, String> endMetadata, String why) {
        endMetadata.put(MetadataKeys.MALLOC_OFF, why);
        System.err.println("memscope agent: malloc tracking is off: " + why);
    }

    private void startSelfTest(Thread test) {
        SelfTest.owner = this;
        test.start();
    }

    /** Holds the sampler for the self-test thread (one capture at a time). */
    private static final class SelfTest {
        static volatile MallocSampler owner;
    }

    /** The self-test thread: a forced sample in Inflater's native init, freed by end(). */
    private static void selfTestAllocations() {
        MallocSampler s = SelfTest.owner;
        SelfTest.owner = null;
        if (s == null) {
            return;
        }
        try {
            new java.util.zip.Inflater().end(); // classes loaded and initialized before the forced sample
            s.selfTestForcedNanos = System.nanoTime();
            for (int i = 0; i < 3; i++) { // a forced sample may go to another allocation of this thread first
                s.selfTestTid = SamplerNatives.mallocForceSample();
                java.util.zip.Inflater inflater = new java.util.zip.Inflater();
                inflater.end();
            }
        } catch (Throwable t) {
            s.selfTest = "failed: " + t;
        } finally {
            s.selfTestEnded = true;
        }
    }

    private void run() {
        try {
            SamplerNatives.mallocOwnThread();
        } catch (Throwable t) {
            // not fatal: its own mallocs are then sampled as memscope's (OWN stacks are dropped)
        }
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        while (true) {
            boolean more = running;
            boolean testEnded = selfTestEnded;
            int n;
            try {
                n = SamplerNatives.mallocDrain(buffer);
                process(n);
            } catch (Throwable t) {
                n = 0;
                Failures.report("agent.malloc", t);
            }
            checkSelfTest();
            if (testEnded && selfTest != null && n < buffer.length / 2) {
                // every record of the ended self-test thread was in this batch (it was not full): a later thread
                // that the OS gives the same id is the application's
                selfTestTid = -1;
            }
            if (!more && n == 0) {
                drainLast();
                return;
            }
            if (n < buffer.length / 2) {
                LockSupport.parkNanos(10_000_000L);
            }
        }
    }

    /**
     * The last records: what the hooks deferred (the ring was full) and still wait for a record claimed and never
     * published (its thread held for good) is sent all the same; the rest of the ring behind it cannot be read
     * ({@code malloc.ringUnreadBytes}).
     */
    private void drainLast() {
        try {
            int n;
            do {
                n = SamplerNatives.mallocDrainLast(buffer);
                process(n);
            } while (n > 0);
        } catch (Throwable t) {
            Failures.report("agent.malloc", t);
        }
    }

    private void checkSelfTest() {
        if (selfTest != null || off != null) {
            if (selfTest != null && selfTest.startsWith("failed") && off == null) {
                stop("self-test " + selfTest);
            }
            return;
        }
        if (System.nanoTime() - selfTestStart > SELF_TEST_MILLIS * 1_000_000L) {
            selfTest = "failed: " + (selfTestAddress == 0 ? "no sample from new Inflater() with a zlib frame within "
                    + SELF_TEST_MILLIS + " ms" + (selfTestLastMiss == null ? "" : ": " + selfTestLastMiss) : "the free of the sample from Inflater.end() was not seen within "
                    + SELF_TEST_MILLIS + " ms");
            stop("self-test " + selfTest);
        }
    }

    private void stop(String why) {
        off = why;
        try {
            SamplerNatives.mallocStop();
        } catch (Throwable t) {
            // the library is loaded: cannot fail
        }
        System.err.println("memscope agent: malloc tracking is off: " + why);
    }

    private void process(int n) {
        int i = 0;
        while (i < n) {
            int kind = (int) buffer[i];
            if (kind == ALLOC_BY_ID) {
                allocationById(buffer[i + 1], buffer[i + 2], buffer[i + 3], buffer[i + 4], (int) buffer[i + 5]);
                i += 6;
            } else if (kind == FREE) {
                int id = (int) buffer[i + 5];
                if (id != 0) {
                    freeById(buffer[i + 1], buffer[i + 2], buffer[i + 3], buffer[i + 4], id);
                } else {
                    free(buffer[i + 1], buffer[i + 2], buffer[i + 3]);
                }
                i += 6;
            } else if (kind == ALLOC) {
                i = allocation(i + 1);
            } else {
                break; // not a record this version writes
            }
        }
        if (events.size > 0) {
            try {
                recording.events(events);
            } finally {
                events.clear();
            }
        }
    }

    private int allocation(int r) {
        long address = buffer[r];
        long size = buffer[r + 1];
        long nanos = buffer[r + 2];
        long tid = buffer[r + 3];
        int id = (int) buffer[r + 4];
        int nn = (int) buffer[r + 5];
        int cause = NoJavaStack.cause(buffer[r + 6]); // no Java frames: why (the word is then 0 or negative)
        int nj = Math.max(0, (int) buffer[r + 6]);
        int pcs = r + 7;
        int java = pcs + nn;
        int next = java + 2 * nj;
        for (int k = 0; k < nj; k++) {
            if (buffer[java + 2 * k + 1] < 0) {
                buffer[java + 2 * k + 1] = -1; // a native method
            }
        }
        long[] known = null;
        long raw = 0;
        if (tid != selfTestTid) {
            raw = rawHash(pcs, next, nn - ((long) cause << 32));
            known = resolved.get(raw);
        }
        if (known != null) {
            if (known[1] < 0) {
                ids.defineOwn(id);
                ownSamples++;
            } else if (id != 0) {
                ids.define(id, known[0], (int) known[1]);
                allocationById(address, size, nanos, tid, id);
            } else {
                record(address, size, nanos, tid, known[0], (int) known[1]);
            }
            return next;
        }
        List<String> nativeFrames = new ArrayList<>(nn);
        for (int k = 0; k < nn; k++) {
            String f = symbols.frame(buffer[pcs + k]);
            if (f == null) {
                break; // not in a library: JIT-compiled or interpreter code, or a bad frame pointer
            }
            nativeFrames.add(f);
        }
        if (tid == selfTestTid) {
            ids.defineOwn(id); // the self-test thread's stacks are memscope's own
            if (nanos >= selfTestForcedNanos) {
                selfTestSample(address, nativeFrames, nj > 0 ? buffer[java] : 0);
            }
            return next;
        }
        StackTable.JvmStack js = nj > 0 ? stacks.resolveRaw(buffer, java, nj, depth, false, methods) : null;
        if (js == StackTable.OWN) {
            ids.defineOwn(id);
            ownSamples++;
            remember(raw, 0, -1);
            return next;
        }
        int site;
        if (js != null && js.id != 0) {
            site = js.site(TYPE);
        } else {
            site = nativeSite(nativeFrames, cause);
        }
        List<String> shown = nativeFrames;
        if (js == null && NoJavaStack.frame(cause) != null) { // where the Java frames would be: why there are none
            shown = new ArrayList<>(nativeFrames);
            shown.add(NoJavaStack.frame(cause));
        }
        long stack = stacks.mixed(shown, js == null ? 0 : js.id, depth + shown.size());
        remember(raw, stack, site);
        if (id != 0) {
            ids.define(id, stack, site);
            allocationById(address, size, nanos, tid, id);
        } else {
            record(address, size, nanos, tid, stack, site);
        }
        return next;
    }

    /**
     * A sample whose stack the hooks sent before (its id defined): no map of live blocks, its free brings size and
     * id back. Kept small: it runs per sample.
     */
    private void allocationById(long address, long size, long nanos, long tid, int id) {
        if (!ids.recorded(id)) {
            if (ids.own(id)) {
                ownSamples++;
            } else {
                unknownIds++;
            }
            return;
        }
        long estimate = Math.round(size * weights.weight(size));
        outstandingBytes += estimate; // one writer: the drain thread
        ids.outstanding(id, estimate);
        events.add(nanos, TYPE_ALLOCATE, address, size, 0, tid | OS_THREAD, threadName(tid), 0, typeId,
                ids.stack(id), ids.site(id));
    }

    /** The free of a sample with a stack id. */
    private void freeById(long address, long nanos, long tid, long size, int id) {
        if (!ids.recorded(id)) {
            unmatchedFrees++; // its sample was memscope's own
            return;
        }
        long estimate = Math.round(size * weights.weight(size));
        outstandingBytes -= estimate;
        ids.outstanding(id, -estimate);
        events.add(nanos, TYPE_DEALLOCATE, address, size, 0, tid | OS_THREAD, threadName(tid), 0, 0, 0,
                ids.site(id));
    }

    private void record(long address, long size, long nanos, long tid, long stack, int site) {
        long estimate = Math.round(size * weights.weight(size));
        long key = stackKey(stack, site);
        live.put(address, new long[] {size, site, estimate, key});
        outstandingBytes += estimate; // one writer: the drain thread
        synchronized (byStack) {
            long[] t = byStack.get(key);
            if (t == null) {
                t = key == Long.MIN_VALUE ? new long[] {0, 0, 0} : new long[] {0, site, stack};
                byStack.put(key, t);
            }
            t[0] += estimate;
        }
        events.add(nanos, TYPE_ALLOCATE, address, size, 0, tid | OS_THREAD, threadName(tid), 0, typeId, stack, site);
    }

    /** Remembers what a raw stack resolved to: {stack id, site} (site -1: memscope's own). */
    private void remember(long raw, long stack, int site) {
        if (resolved.size() >= RESOLVED_LIMIT) {
            resolved.clear();
        }
        resolved.put(raw, new long[] {stack, site});
    }

    /** A 64-bit hash of a record's raw stack: its native pcs, then its (jmethodID, bci) pairs. */
    private long rawHash(int from, int to, long nativeCount) {
        long h = 0x9E3779B97F4A7C15L ^ nativeCount;
        for (int i = from; i < to; i++) {
            h = (h ^ buffer[i]) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
        }
        return h == 0 ? 1 : h;
    }

    /**
     * A sample of the self-test thread (memscope's own: not recorded): the first must come from zlib called by
     * {@code Inflater}'s native init.
     */
    private void selfTestSample(long address, List<String> nativeFrames, long topMethod) {
        if (selfTestAddress != 0 || selfTest != null) {
            return;
        }
        boolean zlib = false;
        for (String f : nativeFrames) {
            String lib = NativeSymbols.library(f);
            zlib |= lib.startsWith("libz") || lib.startsWith("libzip");
        }
        SampledMethod top = topMethod == 0 ? null : SampledMethod.resolve(topMethod);
        boolean inflater = top != null && top.className.equals("java.util.zip.Inflater");
        if (zlib && inflater) {
            selfTestAddress = address;
        } else {
            selfTestLastMiss = "its last sample had " + (zlib ? "" : "no zlib frame " + nativeFrames + " ")
                    + (inflater ? "" : "no Java frame of Inflater (top: "
                    + (top == null ? "none" : top.className + "." + top.name) + ")");
        }
    }

    private int nativeSite(List<String> nativeFrames, int cause) {
        String chosen = null;
        for (String f : nativeFrames) {
            if (!NativeSymbols.isLibc(NativeSymbols.library(f))) {
                chosen = f;
                break;
            }
        }
        if (chosen == null) {
            return SiteTable.registerFrame(NoJavaStack.siteName(cause), "", null, 0, TYPE);
        }
        return SiteTable.registerFrame(NativeSymbols.library(chosen), NativeSymbols.function(chosen), "<native>", 0,
                TYPE);
    }

    private void free(long address, long nanos, long tid) {
        if (address == selfTestAddress && selfTest == null) {
            selfTest = "passed";
            return;
        }
        long[] b = live.remove(address);
        if (b == null) {
            unmatchedFrees++; // its sample was memscope's own, or dropped
            return;
        }
        outstandingBytes -= b[2];
        synchronized (byStack) {
            long[] t = byStack.get(b[3]);
            if (t != null && (t[0] -= b[2]) <= 0 && b[3] != Long.MIN_VALUE) {
                byStack.remove(b[3]);
            }
        }
        events.add(nanos, TYPE_DEALLOCATE, address, b[0], 0, tid | OS_THREAD, threadName(tid), 0, 0, 0, (int) b[1]);
    }

    /** The OS thread's name ({@code /proc/self/task/<tid>/comm}), read once per thread id. */
    private int threadName(long tid) {
        Integer id = threadNames.get(tid);
        if (id == null) {
            String name;
            try {
                name = new String(Files.readAllBytes(Paths.get("/proc/self/task/" + tid + "/comm")),
                        StandardCharsets.UTF_8).trim();
            } catch (Exception e) {
                name = "tid " + tid;
            }
            if (threadNames.size() > 4096) {
                threadNames.clear();
            }
            id = strings.intern(name);
            threadNames.put(tid, id);
        }
        return id;
    }

    /**
     * The push's key of a sample's stack ({@link #byStack}): its stack id (a hash: any long but 0), or the site's
     * number in the high half when it has no stack; {@code Long.MIN_VALUE} (the other stacks) once the bound is
     * reached.
     */
    private long stackKey(long stack, int site) {
        long key = stack != 0 ? stack : ((long) site << 32) | 0xFFFFFFFFL;
        synchronized (byStack) {
            return byStack.containsKey(key) || byStack.size() < MAX_PUSH_STACKS ? key : Long.MIN_VALUE;
        }
    }

    /** @return the outstanding estimate per stack, a copy: {stack id (0: none), site (0: the other stacks), bytes} */
    java.util.List<long[]> outstandingByStack() {
        Map<Long, long[]> all = new java.util.LinkedHashMap<>();
        synchronized (byStack) {
            for (Map.Entry<Long, long[]> e : byStack.entrySet()) {
                all.put(e.getKey(), e.getValue().clone());
            }
        }
        ids.outstandingInto(all, (stack, site) -> stack != 0 ? stack : ((long) site << 32) | 0xFFFFFFFFL);
        java.util.List<long[]> l = new java.util.ArrayList<>();
        long rest = 0;
        for (Map.Entry<Long, long[]> e : all.entrySet()) {
            long[] t = e.getValue();
            if (t[0] <= 0) {
                continue;
            }
            if (e.getKey() == Long.MIN_VALUE || l.size() >= MAX_PUSH_STACKS) {
                rest += t[0];
            } else {
                l.add(new long[] {t[2], t[1], t[0]});
            }
        }
        if (rest > 0) {
            l.add(new long[] {0, 0, rest});
        }
        return l;
    }

    /**
     * @return estimated bytes malloc'd and not freed, from the sampled blocks (each weighs {@code size / p}); what was
     *         allocated before the capture started is not in it
     */
    long outstandingBytes() {
        return outstandingBytes;
    }

    /** Stops the hooks (they pass through from now on), drains what they queued and ends the drain thread. */
    void close() {
        try {
            SamplerNatives.mallocStop();
        } catch (Throwable t) {
            // loaded: cannot fail
        }
        running = false;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The sampler's figures, into the recording's end metadata. */
    void metadata(Map<String, String> into) {
        long[] c = new long[17 + NoJavaStack.CAUSES];
        try {
            SamplerNatives.mallocCounters(c);
        } catch (Throwable t) {
            // loaded: cannot fail
        }
        into.put(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(interval));
        into.put(MetadataKeys.MALLOC_SAMPLES, Long.toString(c[0]));
        into.put(MetadataKeys.MALLOC_DROPPED, Long.toString(c[1]));
        into.put(MetadataKeys.MALLOC_UNTRACKED, Long.toString(c[2]));
        into.put(MetadataKeys.MALLOC_STALE_FREES, Long.toString(c[3]));
        into.put(MetadataKeys.MALLOC_PATCHED_LIBRARIES, Long.toString(c[4]));
        into.put(MetadataKeys.MALLOC_SKIPPED_LIBRARIES, Long.toString(c[5]));
        into.put(MetadataKeys.MALLOC_SELF_TEST, selfTest == null ? "not finished" : selfTest);
        into.put("malloc.ownSamples", Long.toString(ownSamples));
        into.put("malloc.unmatchedFrees", Long.toString(unmatchedFrees));
        into.put("malloc.patchedSlots", Long.toString(c[6]));
        into.put("malloc.stacksSent", Long.toString(c[9]));
        into.put("malloc.samplesById", Long.toString(c[10]));
        into.put("malloc.stackIds", Long.toString(ids.defined()));
        into.put("malloc.unknownIds", Long.toString(unknownIds));
        into.put("malloc.ringFull", Long.toString(c[11]));
        into.put(MetadataKeys.MALLOC_FREES_DEFERRED, Long.toString(c[13]));
        into.put(MetadataKeys.MALLOC_ALLOCS_DEFERRED, Long.toString(c[14]));
        into.put(MetadataKeys.MALLOC_DEFERRED_UNSENT, Long.toString(c[15]));
        into.put(MetadataKeys.MALLOC_RING_UNREAD_BYTES, Long.toString(c[16]));
        if (c[12] > 0) {
            into.put("malloc.testStalls", Long.toString(c[12]));
        }
        NoJavaStack.metadata(c, 17, into);
        if (off != null) {
            into.put(MetadataKeys.MALLOC_OFF, off);
        }
    }
}
