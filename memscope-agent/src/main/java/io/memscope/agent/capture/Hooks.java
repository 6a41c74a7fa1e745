package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;

/**
 * The static methods instrumented bytecode reaches, through {@code java.lang.MemscopeHooks} (defined in
 * {@code java.base} by {@code io.memscope.agent.boot.BootHooks}; each of its methods forwards here through a
 * constant method handle, which the JIT inlines). Public because that class looks them up with a public lookup.
 *
 * <p>Hot path for heap allocations: one plain read ({@link #heapEnabled}), the thread's state found by its id
 * ({@link ThreadState#current()}), the site's cached size from a plain array (or an array's size computed from its
 * length), one subtraction; exact mode adds two per-thread array increments. The slow path (a sample, one per
 * {@code interval} bytes on average) takes a stack, a weak reference and an event. Nothing here ever throws into
 * the application: failures go to {@link Failures}.
 */
public final class Hooks {
    /**
     * Fast-path switch, deliberately not volatile: a volatile read in every hook keeps the JIT from keeping values
     * in registers across the application's allocations. A compiled loop may therefore see a change late; the slow
     * path checks the volatile {@link #heapSampling} before it records anything.
     */
    static boolean heapEnabled;
    /** The authoritative switch, read on the slow path only. */
    static volatile boolean heapSampling;
    static volatile boolean nativeEnabled;
    /** Set before {@link #heapEnabled} is published. */
    static boolean exact;
    static double mean = 512 * 1024;
    /**
     * The running capture's object sizes ({@link CaptureSession#objectSizes()}), set before {@link #heapEnabled} is
     * published. A static because instrumented code calls static methods; the sizes themselves are the capture's
     * immutable object, read here through a plain field like {@link #exact}.
     */
    static ObjectSizes sizes = ObjectSizes.UNMEASURED;
    /** The running capture: the one static the hooks need, as instrumented code calls static methods. */
    private static volatile CaptureSession session;

    private Hooks() {
    }

    /** @return the running capture, or null */
    public static CaptureSession session() {
        return session;
    }

    /** Connects the hooks to a capture that starts (its settings set {@link #exact} and {@link #mean} before). */
    static void activate(CaptureSession s, boolean nativeMemory) {
        sizes = s.objectSizes();
        session = s;
        nativeEnabled = nativeMemory;
        heapSampling = true;
        heapEnabled = true;
    }

    /** Disconnects the hooks from a capture that ends (if it is still the one connected). */
    static void deactivate(CaptureSession s) {
        if (session == s) {
            heapEnabled = false;
            heapSampling = false;
            nativeEnabled = false;
            session = null;
        }
    }

    /** @return the running capture's native memory tracker, or null */
    private static NativeTracker nativeTracker() {
        CaptureSession s = session;
        return s == null ? null : s.nativeTracker();
    }

    /** After {@code new T(...)} completed: the initialized object. */
    public static void newObject(Object o, int site) {
        if (!heapEnabled) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        allocated(ts, o, site, SiteTable.instanceSize(site, o, sizes));
    }

    /** At a {@code new T} whose object never reaches memscope (no {@code dup} after it): counted, not tracked. */
    public static void newObjectUntracked(int site) {
        if (!heapEnabled) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        allocated(ts, null, site, SiteTable.knownSize(site));
    }

    public static void newArray(boolean[] a, int site) {
        array(a, site, ObjectSizes.BOOLEAN, a.length);
    }

    public static void newArray(byte[] a, int site) {
        array(a, site, ObjectSizes.BYTE, a.length);
    }

    public static void newArray(char[] a, int site) {
        array(a, site, ObjectSizes.CHAR, a.length);
    }

    public static void newArray(short[] a, int site) {
        array(a, site, ObjectSizes.SHORT, a.length);
    }

    public static void newArray(int[] a, int site) {
        array(a, site, ObjectSizes.INT, a.length);
    }

    public static void newArray(long[] a, int site) {
        array(a, site, ObjectSizes.LONG, a.length);
    }

    public static void newArray(float[] a, int site) {
        array(a, site, ObjectSizes.FLOAT, a.length);
    }

    public static void newArray(double[] a, int site) {
        array(a, site, ObjectSizes.DOUBLE, a.length);
    }

    public static void newArray(Object[] a, int site) {
        array(a, site, ObjectSizes.REFERENCE, a.length);
    }

    private static void array(Object a, int site, int kind, int length) {
        if (!heapEnabled) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        allocated(ts, a, site, sizes.array(kind, length));
    }

    /** After {@code multianewarray}: the array and all its sub-arrays. */
    public static void newMultiArray(Object a, int site) {
        dynamic(a, site, true);
    }

    /** After an array {@code clone()} or {@code java.lang.reflect.Array.newInstance}: type known from the object. */
    public static void newArrayDynamic(Object a, int site) {
        dynamic(a, site, false);
    }

    private static void dynamic(Object a, int site, boolean deep) {
        if (!heapEnabled || a == null) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        ts.busy = true;
        long size;
        try {
            size = deep ? sizes.deepArray(a) : sizes.anyArray(a);
        } catch (Throwable t) {
            Failures.report("agent.arraySize", t);
            return;
        } finally {
            ts.busy = false;
        }
        allocated(ts, a, site, size);
    }

    /** After a string concatenation ({@code invokedynamic} StringConcatFactory) or {@code StringBuilder.toString()}. */
    public static void newString(String s, int site) {
        if (!heapEnabled || s == null) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        allocated(ts, s, site, sizes.string(s));
    }

    private static void allocated(ThreadState ts, Object o, int site, long size) {
        if (exact) {
            ts.count(site, size);
        }
        if ((ts.untilSample -= size) <= 0) {
            CaptureSession s = session;
            if (s != null) {
                long before = OwnBytes.before();
                s.sample(ts, o, site, size);
                OwnBytes.after(ts, before);
            } else {
                ts.untilSample = ts.nextInterval(mean);
            }
        }
    }

    /** The push's OpenTelemetry span histories ({@link OtelSpans}), or null when nothing follows them. */
    static volatile OtelSpans otelSpans;

    /** Before OpenTelemetry's context storage makes {@code context} current on this thread. */
    public static void otelContext(Object context) {
        OtelSpans s = otelSpans;
        if (s == null) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        ts.busy = true;
        try {
            s.contextChanged(ts, context);
        } catch (Throwable t) {
            Failures.report("agent.otel", t);
        } finally {
            ts.busy = false;
        }
    }

    /** At the return of {@code ManagementFactory.getPlatformMBeanServer()} (see {@link PlatformServerGate}). */
    public static void platformServer(Object server) {
        ThreadState ts = ThreadState.current();
        boolean wasBusy = ts != null && ts.busy;
        if (ts != null) {
            ts.busy = true;
        }
        try {
            PlatformServerGate.ready(server);
        } catch (Throwable t) {
            Failures.report("agent.jmx.register", t);
        } finally {
            if (ts != null) {
                ts.busy = wasBusy;
            }
        }
    }

    /** At the return of {@code Unsafe.allocateMemory}. */
    public static void nativeAllocate(long address, long bytes) {
        if (!nativeEnabled) {
            return;
        }
        ThreadState ts = ThreadState.current();
        NativeTracker nt = nativeTracker();
        if (nt == null) {
            return;
        }
        if (ts == null || ts.busy) {
            nt.own(address);
            return;
        }
        ts.busy = true;
        long before = OwnBytes.before();
        try {
            nt.allocated(address, bytes, ts.arenaDepth > 0);
        } catch (Throwable t) {
            Failures.report("agent.native.allocate", t);
        } finally {
            OwnBytes.after(ts, before);
            ts.busy = false;
        }
    }

    /** At the return of {@code Unsafe.reallocateMemory}. */
    public static void nativeReallocate(long newAddress, long oldAddress, long bytes) {
        if (!nativeEnabled) {
            return;
        }
        ThreadState ts = ThreadState.current();
        NativeTracker nt = nativeTracker();
        if (nt == null) {
            return;
        }
        if (ts == null || ts.busy) {
            nt.own(newAddress);
            return;
        }
        ts.busy = true;
        long before = OwnBytes.before();
        try {
            nt.reallocated(newAddress, oldAddress, bytes, ts.arenaDepth > 0);
        } catch (Throwable t) {
            Failures.report("agent.native.reallocate", t);
        } finally {
            OwnBytes.after(ts, before);
            ts.busy = false;
        }
    }

    /**
     * At the entry of {@code Unsafe.freeMemory}.
     *
     * @return true when this is a double free that must not reach the allocator
     */
    public static boolean nativeFree(long address) {
        if (!nativeEnabled) {
            return false;
        }
        ThreadState ts = ThreadState.current();
        NativeTracker nt = nativeTracker();
        if (nt == null) {
            return false;
        }
        if (ts == null || ts.busy) {
            nt.freeingOwn(address);
            return false;
        }
        ts.busy = true;
        try {
            return nt.freeing(address);
        } catch (Throwable t) {
            Failures.report("agent.native.free", t);
            return false;
        } finally {
            ts.busy = false;
        }
    }

    /**
     * memscope-ffm's tracking arena is about to allocate through the arena it wraps (which allocates through
     * {@code Unsafe}, seen by {@link #nativeAllocate}): until {@link #nativeArenaExit}, native blocks allocated on
     * this thread are typed {@code native:arena} and named after the code that called the tracking arena, so that
     * each byte is recorded once, by the hook that sees the real block, with the caller's site and stack.
     */
    public static void nativeArenaEnter() {
        if (!nativeEnabled) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts != null) {
            ts.arenaDepth++;
        }
    }

    /** Ends the innermost {@link #nativeArenaEnter}; runs even when native tracking was switched off meanwhile. */
    public static void nativeArenaExit() {
        ThreadState ts = ThreadState.current();
        if (ts != null && ts.arenaDepth > 0) {
            ts.arenaDepth--;
        }
    }

    /**
     * memscope's own work on an application thread begins (the class-file transformer instrumenting a class the
     * thread loads): what it allocates is left out of the thread's scopes, as every allocation the agent makes on an
     * application thread is ({@link OwnBytes}).
     *
     * @return a token for {@link #ownWorkEnds}
     */
    public static long ownWorkBegins() {
        return OwnBytes.before();
    }

    /** memscope's own work that {@link #ownWorkBegins} began has ended on this thread. */
    public static void ownWorkEnds(long token) {
        if (token >= 0) {
            OwnBytes.after(ThreadState.existing(), token); // no state (no scope measures this thread): nothing
        }
    }
}
