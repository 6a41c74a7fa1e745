package io.memscope.agent.boot;

/**
 * The JVMTI sampler library's entry points, called directly: the native methods that {@code java.lang.MemscopeHooks}
 * declares (see {@link MemscopeHooksTemplate}, whose JNI names they bind to).
 *
 * <p>Written against the template, whose methods have the same names and descriptors; the build
 * ({@link HookRenamer#main}, process-classes) rewrites this class's calls to {@code java.lang.MemscopeHooks}. The
 * system class loader finds that class once {@link BootHooks#install} has defined it in the bootstrap loader, so
 * these are plain {@code invokestatic} instructions: no method handle per entry point (each new method type costs
 * the JVM a generated class and its linking, tens of milliseconds for all of them at start-up and exit), and the JIT
 * inlines them like any call. Only called after {@link BootHooks#install} (a call before it would fail to resolve,
 * and the JVM remembers such a failure).
 */
public final class SamplerNatives {
    /** The library's JVMTI environment is one per process, and so are its object tags: one user at a time. */
    private static final Object TAGS = new Object();

    private SamplerNatives() {
    }

    /** Loads the sampler library (System.load with the hook class as the caller). */
    public static void load(String path) {
        MemscopeHooksTemplate.jvmtiLoad(path);
    }

    public static int start(int intervalBytes, int jvmIntervalBytes, boolean ownDistances, int frames, long ringBytes,
                            int liveLimit, boolean sampleHeap, int stackWalk) {
        return MemscopeHooksTemplate.jvmtiStart0(intervalBytes, jvmIntervalBytes, ownDistances, frames, ringBytes,
                liveLimit, sampleHeap, stackWalk);
    }

    public static void ownThread(long tid) {
        MemscopeHooksTemplate.jvmtiOwnThread0(tid);
    }

    public static int pause() {
        return MemscopeHooksTemplate.jvmtiPause0();
    }

    public static int close() {
        return MemscopeHooksTemplate.jvmtiClose0();
    }

    public static void await(long timeoutNanos) {
        MemscopeHooksTemplate.jvmtiAwait0(timeoutNanos);
    }

    public static void wake() {
        MemscopeHooksTemplate.jvmtiWake0();
    }

    public static int drain(long[] records, long[] frames, boolean wait) {
        return MemscopeHooksTemplate.jvmtiDrain0(records, frames, wait);
    }

    /** glibc's malloc figures: out[0] bytes in use, out[1] free bytes kept; -1 each when unknown. */
    public static void mallocInfo(long[] out) {
        MemscopeHooksTemplate.processMallocInfo0(out);
    }

    public static String className(int id) {
        return MemscopeHooksTemplate.jvmtiClassName0(id);
    }

    public static Object thread(long ref) {
        return MemscopeHooksTemplate.jvmtiThread0(ref);
    }

    public static void commit(long[] entries, int n) {
        MemscopeHooksTemplate.jvmtiCommit0(entries, n);
    }

    public static int scan(long[] out, boolean begin, long confirmBefore) {
        return MemscopeHooksTemplate.jvmtiScan0(out, begin, confirmBefore);
    }

    public static long[] held(long fromNanos, long toNanos, long[] sortedThreads, long threadsFrom) {
        return MemscopeHooksTemplate.jvmtiHeld0(fromNanos, toNanos, sortedThreads, threadsFrom);
    }

    public static int collections(long[] out, int from) {
        return MemscopeHooksTemplate.jvmtiCollections0(out, from);
    }

    public static void counters(long[] out) {
        MemscopeHooksTemplate.jvmtiCounters0(out);
    }

    /** The next sample of each stack carries its frames again (a chunk of the recording begins). */
    public static void forgetSentStacks() {
        MemscopeHooksTemplate.jvmtiForgetSentStacks0();
    }

    /** @return the counters' names in {@link #counters}' order, or null when JNI failed */
    public static String[] counterNames() {
        return MemscopeHooksTemplate.jvmtiCounterNames0();
    }

    /** Tags the heap's SoftReferences for a moment: never during a heap walk, which tags objects too. */
    public static int ageSoftReferences(Class<?> softReference) {
        synchronized (TAGS) {
            return MemscopeHooksTemplate.jvmtiAgeSoftReferences0(softReference);
        }
    }

    public static void reserve(Object reserve) {
        MemscopeHooksTemplate.jvmtiReserve0(reserve);
    }

    public static String describe(long method) {
        return MemscopeHooksTemplate.jvmtiDescribe0(method);
    }

    public static int[] lines(long method) {
        return MemscopeHooksTemplate.jvmtiLines0(method);
    }

    /** Walks the heap from the GC roots; tags objects meanwhile, so never at once with {@link #ageSoftReferences}. */
    public static Object[] walk(long timeBudgetNanos, long memoryBudgetBytes, long answerBytes, long[] stats) {
        synchronized (TAGS) {
            return MemscopeHooksTemplate.jvmtiWalk0(timeBudgetNanos, memoryBudgetBytes, answerBytes, stats);
        }
    }

    // The malloc sampler's library (libmemscope-malloc.so), loaded with load(path) too.

    public static int mallocStart(long intervalBytes, int nativeFrames, int javaFrames, long ringBytes, boolean jvm) {
        return MemscopeHooksTemplate.mallocStart0(intervalBytes, nativeFrames, javaFrames, ringBytes, jvm);
    }

    public static void mallocStop() {
        MemscopeHooksTemplate.mallocStop0();
    }

    public static long mallocOwnThread() {
        return MemscopeHooksTemplate.mallocOwnThread0();
    }

    public static long mallocForceSample() {
        return MemscopeHooksTemplate.mallocForceSample0();
    }

    public static int mallocDrain(long[] out) {
        return MemscopeHooksTemplate.mallocDrain0(out);
    }

    public static int mallocDrainLast(long[] out) {
        return MemscopeHooksTemplate.mallocDrainLast0(out);
    }

    public static void mallocCounters(long[] out) {
        MemscopeHooksTemplate.mallocCounters0(out);
    }

    public static String mallocSymbol(long pc) {
        return MemscopeHooksTemplate.mallocSymbol0(pc);
    }
}
