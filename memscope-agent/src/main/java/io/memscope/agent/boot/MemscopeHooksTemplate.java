package io.memscope.agent.boot;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Template of {@code java.lang.MemscopeHooks}, the class that the instrumented JDK classes call ({@code Unsafe}'s
 * memory methods, {@code ManagementFactory.getPlatformMBeanServer}) and that declares the JVMTI sampler library's
 * native methods (the bytecode heap hooks are {@link MemscopeHeapHooksTemplate}). Never loaded under this
 * name: {@link BootHooks} renames it and defines it inside {@code java.base} (package {@code java.lang}, which
 * every module reads and which is exported to all), so that application classes of any class loader and
 * instrumented JDK classes reach it without the agent jar on the bootstrap class path.
 *
 * <p>The native memory and MBean server hooks, which every capture uses, call the agent's
 * {@code io.memscope.agent.capture.NativeHookTarget} (loaded by the system class loader, as every agent is) through
 * the interface {@link MemscopeHookTargetTemplate}, defined in {@code java.base} beside this class: an interface call
 * on a {@code static final} receiver, which the JIT inlines once compiled, and which costs the JVM nothing at
 * start-up, where a method handle costs a spun class per handle and per call type. The hooks of memscope-core's API
 * and of the function profile forward to {@link MemscopeApiHooksTemplate} and {@link MemscopeFunctionHooksTemplate},
 * defined beside this class and initialized (their method handles looked up) at their first call: a plain run
 * calls neither. If the agent's classes cannot be found, every method does nothing.
 *
 * <p>Rules for this source (and its siblings): no references to classes outside the JDK and the templates,
 * no lambdas, no nested classes, no class literals of the templates (the renamer rewrites their names in method and
 * field instructions only).
 */
public final class MemscopeHooksTemplate {
    /** System property (an object, not a string) through which the installer hands over the agent's class. */
    static final String HANDOFF = "io.memscope.agent.hooks.class";
    private static final String TARGET = "io.memscope.agent.capture.Hooks";

    /** System property through which the installer hands over the receiver of the native hooks (an object). */
    static final String TARGET_HANDOFF = "io.memscope.agent.hooks.target";

    /** The agent's {@code Hooks} class (the system class loader's), or null when it could not be found. */
    private static final Class<?> HOOKS;
    /** The receiver of the native memory and MBean server hooks, or null. */
    private static final MemscopeHookTargetTemplate TARGET_OBJECT;

    static {
        Class<?> c = null;
        try {
            Object handedOver = System.getProperties().get(HANDOFF);
            c = handedOver instanceof Class ? (Class<?>) handedOver
                    : Class.forName(TARGET, true, ClassLoader.getSystemClassLoader());
        } catch (Throwable t) {
            System.err.println("memscope agent: hooks not connected, nothing is tracked: " + t);
        }
        HOOKS = c;
        Object target = System.getProperties().get(TARGET_HANDOFF);
        TARGET_OBJECT = target instanceof MemscopeHookTargetTemplate ? (MemscopeHookTargetTemplate) target : null;
    }

    private MemscopeHooksTemplate() {
    }

    /** @return the agent's {@code Hooks} class, or null (for the sibling templates' handles) */
    static Class<?> hooks() {
        return HOOKS;
    }

    /** @return the agent's class {@code name} from the loader of {@code c}, not initialized; null if missing */
    static Class<?> sibling(Class<?> c, String name) {
        if (c == null) {
            return null;
        }
        try {
            return Class.forName(name, false, c.getClassLoader());
        } catch (Throwable t) {
            System.err.println("memscope agent: " + name + " not found: " + t);
            return null;
        }
    }

    static MethodHandle find(MethodHandles.Lookup l, Class<?> c, String name, MethodType type) {
        if (c != null) {
            try {
                return l.findStatic(c, name, type);
            } catch (Throwable t) {
                System.err.println("memscope agent: hook " + name + " not connected: " + t);
            }
        }
        return MethodHandles.empty(type);
    }

    public static void nativeAllocate(long address, long bytes) {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            if (t0 != null) {
                t0.nativeAllocate(address, bytes);
            }
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void nativeReallocate(long newAddress, long oldAddress, long bytes) {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            if (t0 != null) {
                t0.nativeReallocate(newAddress, oldAddress, bytes);
            }
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static boolean nativeFree(long address) {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            return t0 != null && t0.nativeFree(address);
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * At the return of {@code java.lang.management.ManagementFactory.getPlatformMBeanServer()}: the agent registers
     * its MXBean in the platform MBean server when that exists, instead of creating the server at start-up.
     */
    public static void platformServer(Object server) {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            if (t0 != null) {
                t0.platformServer(server);
            }
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    /**
     * Before OpenTelemetry's default context storage makes {@code context} the current one of this thread (its
     * {@code ThreadLocal.set}, at an attach and at a scope's close): the push labels samples with the span.
     */
    public static void otelContext(Object context) {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            if (t0 != null) {
                t0.otelContext(context);
            }
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    /**
     * Called by memscope-ffm's tracking arena before it asks the arena it wraps for memory: until
     * {@link #nativeArenaExit}, native memory allocated on this thread is that arena's, for the code that called
     * it (site and stack start there). Calls nest.
     */
    public static void nativeArenaEnter() {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            if (t0 != null) {
                t0.nativeArenaEnter();
            }
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    /** Ends the innermost {@link #nativeArenaEnter} of this thread. */
    public static void nativeArenaExit() {
        MemscopeHookTargetTemplate t0 = TARGET_OBJECT;
        try {
            if (t0 != null) {
                t0.nativeArenaExit();
            }
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    // The JVMTI sampler (io.memscope.agent.capture.SamplerLibrary). Its library is loaded by this class, so that it
    // belongs to the bootstrap loader and java.base, which has native access: no "restricted method" warning on
    // JDK 24 and later, and these native methods bind to it (JNI names Java_java_lang_MemscopeHooks_*). The library
    // never calls Java: its callback queues each sample, and memscope's drain thread takes them out (jvmtiDrain0).

    /** Loads the sampler library (System.load with this class as the caller). */
    public static void jvmtiLoad(String path) {
        System.load(path);
    }

    /**
     * Starts a capture's sampling and collection events; 0 = done, else an error code (see SamplerLibrary).
     * intervalBytes: the mean of the samples kept; jvmIntervalBytes: the JVM's (at most intervalBytes: the library
     * keeps each sample with the probability that makes it one of intervalBytes); ownDistances: the library draws the
     * threads' distances to their next sample. stackWalk: 0 off, 1 on, 2 check (io.memscope.launch.StackWalk).
     */
    public static native int jvmtiStart0(int intervalBytes, int jvmIntervalBytes, boolean ownDistances, int frames,
                                         long ringBytes, int liveLimit, boolean sampleHeap, int stackWalk);

    /** The drain thread's Java id, whose allocations are not sampled. */
    public static native void jvmtiOwnThread0(long tid);

    /** Stops sampling and waits for callbacks in flight. */
    public static native int jvmtiPause0();

    /** Ends the capture: events off, references deleted, buffers freed. */
    public static native int jvmtiClose0();

    /** Waits for a collection's end, a half-full queue, a wake-up or the timeout. */
    public static native void jvmtiAwait0(long timeoutNanos);

    /** Ends a wait of jvmtiAwait0. */
    public static native void jvmtiWake0();

    /** Moves queued samples into the arrays (and their references into the live table); returns how many. */
    public static native int jvmtiDrain0(long[] records, long[] frames, boolean wait);

    /** JVM signature of a sampled class id, or null. */
    public static native String jvmtiClassName0(int id);

    /** glibc's malloc figures (mallinfo2): out[0] bytes in use, out[1] free bytes kept; -1 each when unknown. */
    public static native void processMallocInfo0(long[] out);

    /** The Thread a sample announced (its global reference is deleted). */
    public static native Object jvmtiThread0(long ref);

    /** Says which drained samples are kept (sample id and site) and which are not. */
    public static native void jvmtiCommit0(long[] entries, int n);

    /**
     * Checks tracked samples for collection, and confirms those sampled before {@code confirmBefore} still alive;
     * returns 2 * entries written + (done ? 1 : 0).
     */
    public static native int jvmtiScan0(long[] out, boolean begin, long confirmBefore);

    /**
     * Tracked samples of a window and threads whose object is reachable now, (site, stack, size, held bits) each, or
     * null.
     */
    public static native long[] jvmtiHeld0(long fromNanos, long toNanos, long[] sortedThreads, long threadsFrom);

    /** Finished collections from an ordinal on, as (ordinal, start, end) triples; returns how many. */
    public static native int jvmtiCollections0(long[] out, int from);

    /** The library's counters, in the order of {@link #jvmtiCounterNames0}. */
    public static native void jvmtiCounters0(long[] out);

    /** Forgets which stacks were sent: the next sample of each stack carries its frames again (a new chunk). */
    public static native void jvmtiForgetSentStacks0();

    /** The names of the library's counters (native/sampler_counters.h), in the order jvmtiCounters0 fills them. */
    public static native String[] jvmtiCounterNames0();

    /** Moves every SoftReference's timestamp far into the past; returns how many, or a negative error. */
    public static native int jvmtiAgeSoftReferences0(Class<?> softReference);
    /** Holds {@code reserve} (or nothing, null) until the JVM first runs out of memory, which lets it go. */
    public static native void jvmtiReserve0(Object reserve);

    /** "Lpkg/Cls;\tmethod\tFile.java" of a jmethodID, or null. */
    public static native String jvmtiDescribe0(long method);

    /** Line number table of a jmethodID as (first bytecode index, line) pairs, or null. */
    public static native int[] jvmtiLines0(long method);

    /**
     * Walks the heap from the GC roots and answers, for each tracked sample alive, the chain of references that reached
     * it (heap_walk.h): {long[] nodes, String[] strings, long[] samples}, or null (stats say why). The answer takes at
     * most {@code answerBytes} of the Java heap: paths past it are left out.
     */
    public static native Object[] jvmtiWalk0(long timeBudgetNanos, long memoryBudgetBytes, long answerBytes,
                                             long[] stats);

    // What the application reports through memscope-core's API (io.memscope.internal.link.AgentLink in the application's copy
    // of memscope-core binds these by name; see that class for their contract). Forwarded to the agent's ApiHooks.

    // The malloc sampler (io.memscope.agent.capture.MallocSampler): libmemscope-malloc.so, loaded by jvmtiLoad too.

    /** Patches the loaded libraries' allocator imports and starts sampling; 0 = done, else a negative code. */
    public static native int mallocStart0(long intervalBytes, int nativeFrames, int javaFrames, long ringBytes,
                                          boolean jvm);

    /** The hooks pass straight through from now on. */
    public static native void mallocStop0();

    /** The calling thread's mallocs are never sampled; returns its OS thread id. */
    public static native long mallocOwnThread0();

    /** The calling thread's next allocation is sampled; returns its OS thread id. */
    public static native long mallocForceSample0();

    /** Moves whole records into out; returns the longs written. */
    public static native int mallocDrain0(long[] out);

    /** As mallocDrain0, last (the capture stopped): deferred frees are sent even behind a record never published. */
    public static native int mallocDrainLast0(long[] out);

    /** The hooks' counters (see malloc_hooks.c). */
    public static native void mallocCounters0(long[] out);

    /** "library!function" or "library+0xOFF" for a native pc, or null. */
    public static native String mallocSymbol0(long pc);

    public static boolean apiActive() {
        return MemscopeApiHooksTemplate.active();
    }

    public static void apiLinked(Class<?> link) {
        MemscopeApiHooksTemplate.linked(link);
    }

    public static int apiScopePath(int parentId, String name) {
        return MemscopeApiHooksTemplate.scopePath(parentId, name);
    }

    public static void apiScopeEnter(int pathId, long nanos, long taskId) {
        MemscopeApiHooksTemplate.scopeEnter(pathId, nanos, taskId);
    }

    public static void apiScopeExit(int pathId, long nanos, long allocatedBytes) {
        MemscopeApiHooksTemplate.scopeExit(pathId, nanos, allocatedBytes);
    }

    public static void apiTrack(Object o, String name) {
        MemscopeApiHooksTemplate.track(o, name);
    }

    public static void apiBorrow(Object resource, String pool, long leaseId, long size) {
        MemscopeApiHooksTemplate.borrow(resource, pool, leaseId, size);
    }

    public static void apiReturn(String pool, long leaseId, long size) {
        MemscopeApiHooksTemplate.returned(pool, leaseId, size);
    }

    public static void apiAnomaly(String kind, long id, long size, String detail) {
        MemscopeApiHooksTemplate.anomaly(kind, id, size, detail);
    }

    public static void apiMove(String what, long id, long size, long fromThreadId) {
        MemscopeApiHooksTemplate.move(what, id, size, fromThreadId);
    }

    public static void apiAccounting(long nanos, String[] text, long[] values) {
        MemscopeApiHooksTemplate.accounting(nanos, text, values);
    }

    public static long apiScopeEntered(int pathId, long nanos, long taskId) {
        return MemscopeApiHooksTemplate.scopeEntered(pathId, nanos, taskId);
    }

    public static long apiScopeExited(int pathId, long nanos, long allocatedBytes) {
        return MemscopeApiHooksTemplate.scopeExited(pathId, nanos, allocatedBytes);
    }

    public static long apiOwnBytes() {
        return MemscopeApiHooksTemplate.ownBytes();
    }

    // The function profile (io.memscope.agent.capture.FunctionHooks): entry and exit of profiled methods, and the
    // call site of a call to one.

    public static void fnEnter(int function) {
        MemscopeFunctionHooksTemplate.enter(function);
    }

    public static void fnExit(int function) {
        MemscopeFunctionHooksTemplate.exit(function);
    }

    public static void fnCallSite(int site) {
        MemscopeFunctionHooksTemplate.callSite(site);
    }
}
