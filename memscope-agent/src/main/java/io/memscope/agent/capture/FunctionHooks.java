package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;

/**
 * What the function profile's instrumentation calls (through {@code java.lang.MemscopeHooks}): {@link #callSite}
 * before a call to a profiled function, {@link #enter} at the function's entry and {@link #exit} on each of its
 * exits, exceptions included. Public for the hook class's lookup; not an API. Never throws.
 *
 * <h2>What a call costs</h2>
 * Entry and exit each read the clock and the thread's allocated-bytes counter ({@code ThreadMXBean}) and update the
 * thread's own frames and statistics: no lock, no shared write. A call site set by the caller's instrumentation is
 * taken as it is; a call that arrives without one (through an interface or superclass declared outside the
 * patterns, by reflection, a lambda or a method reference, or from code that was not instrumented) has its caller
 * found by walking the stack, which costs a few microseconds.
 *
 * <h2>What is counted</h2>
 * Calls are exact. A call made while the same function is already on the thread's stack (recursion, direct or
 * through other methods) is counted as recursive and is part of the outermost call's time and bytes: calls, total
 * time, longest call and allocated bytes are those of outermost calls only. Allocated bytes are the thread's own
 * (exact, the agent's own allocations left out); virtual threads have none ({@code NO_ALLOC}).
 */
public final class FunctionHooks {
    /** The profile of the capture that runs, or null. */
    static volatile FunctionProfile profile;

    private FunctionHooks() {
    }

    /** Calls of each hook at the start of a profile: past the JDK's method handle customization threshold (127). */
    static final int WARM_UP_CALLS = 130;

    /** A capture with a function profile starts or ends (null). */
    static void profile(FunctionProfile p) {
        if (p != null) {
            warmUp();
        }
        profile = p;
        if (p != null) {
            OwnBytes.prepare();
            OwnBytes.measure = true;
        }
    }

    /**
     * Calls {@code java.lang.MemscopeHooks}' function hooks {@value #WARM_UP_CALLS} times with a negative id, which
     * they ignore: each forwards through a method handle that the JDK customizes at its 128th call, spinning a class
     * (tens of kilobytes of heap) on the calling thread. Done here, on the thread that starts the capture, it never
     * lands in a profiled call's or a scope's exact bytes.
     */
    private static void warmUp() {
        try {
            Class<?> hooks = Class.forName(io.memscope.agent.boot.BootHooks.NAME, false, null);
            java.lang.reflect.Method site = hooks.getMethod("fnCallSite", int.class);
            java.lang.reflect.Method enter = hooks.getMethod("fnEnter", int.class);
            java.lang.reflect.Method exit = hooks.getMethod("fnExit", int.class);
            Object none = -1;
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                site.invoke(null, none);
                enter.invoke(null, none);
                exit.invoke(null, none);
            }
        } catch (Throwable t) {
            // not warmed up: the 128th call customizes on an application thread (a one-time error in its bytes)
        }
    }

    /** Before a call to a profiled function from instrumented code: the call site of the call that follows. */
    public static void callSite(int site) {
        if (profile == null || site < 0) {
            return;
        }
        ThreadState ts = ThreadState.existing();
        if (ts != null) {
            ts.pendingCallSite = site;
        } else {
            ThreadState created = ThreadState.current(); // first contact of this thread (allocates, outside calls)
            if (created != null) {
                created.pendingCallSite = site;
            }
        }
    }

    public static void enter(int fid) {
        FunctionProfile p = profile;
        if (p == null || fid < 0) {
            return;
        }
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        FunctionFrames f = ts.functions;
        int pending = ts.pendingCallSite;
        ts.pendingCallSite = 0;
        int d;
        if (f != null && f.profile == p && f.depth < f.function.length && knownSite(pending, fid)
                && f.table.find((long) fid << 32 | (pending & 0xFFFFFFFFL)) >= 0) {
            d = f.depth; // the usual call: nothing to allocate, nothing to measure
            f.function[d] = fid;
            f.site[d] = pending;
            f.recursive[d] = f.onStack(fid);
            f.depth = d + 1;
        } else {
            f = slowEnter(ts, p, fid, pending);
            if (f == null) {
                return;
            }
            d = f.depth - 1;
        }
        f.ownAt[d] = ts.ownBytes;
        f.startBytes[d] = OwnBytes.now();
        f.start[d] = System.nanoTime();
    }

    /** @return whether the call site set by the caller is one that calls {@code fid}'s method */
    private static boolean knownSite(int site, int fid) {
        FunctionTable.CallSite s = FunctionTable.site(site);
        FunctionTable.Function fn = FunctionTable.function(fid);
        return s != null && fn != null && s.calls(fn);
    }

    /**
     * A call that may allocate: a thread's first, a deeper stack than before, a new (function, call site), a call
     * site found by walking the stack. What it allocates is measured and left out of the calls in progress.
     *
     * @return the frames with the call pushed, or null when it is not timed
     */
    private static FunctionFrames slowEnter(ThreadState ts, FunctionProfile p, int fid, int pending) {
        long before = OwnBytes.before();
        ts.busy = true;
        try {
            FunctionFrames f = ts.functions;
            if (f == null || f.profile != p) {
                f = new FunctionFrames(Thread.currentThread(), p);
                ts.functions = f;
                p.add(f);
            }
            int site = knownSite(pending, fid) ? pending : walkedSite(fid);
            if (!f.ensureRoom()) {
                return null;
            }
            int d = f.depth;
            f.function[d] = fid;
            f.site[d] = site;
            f.recursive[d] = f.onStack(fid);
            f.row(fid, site); // the row exists before the call: its exit allocates nothing
            f.depth = d + 1;
            return f;
        } catch (Throwable t) {
            Failures.report("agent.function.enter", t);
            return null;
        } finally {
            OwnBytes.after(ts, before);
            ts.busy = false;
        }
    }

    public static void exit(int fid) {
        if (fid < 0) {
            return; // a warm-up call
        }
        long now = System.nanoTime();
        long end = OwnBytes.now();
        ThreadState ts = ThreadState.existing();
        if (ts == null || ts.busy) {
            return;
        }
        FunctionFrames f = ts.functions;
        if (f == null || f.depth == 0) {
            return; // the call began before the capture did
        }
        try {
            int d = f.depth - 1;
            while (d > 0 && f.function[d] != fid) {
                d--; // a frame left open (its exit hook never ran): dropped
            }
            if (f.function[d] != fid) {
                return; // not ours: a call that began before the capture did
            }
            f.depth = d;
            if (profile != f.profile) {
                return; // the capture ended meanwhile
            }
            FunctionFrames.Table t = f.table;
            int slot = t.find((long) fid << 32 | (f.site[d] & 0xFFFFFFFFL));
            if (slot < 0) {
                return;
            }
            long[] v = t.values;
            int o = slot * FunctionFrames.STRIDE;
            if (f.recursive[d]) {
                v[o + FunctionFrames.RECURSIVE]++;
                return;
            }
            long nanos = now - f.start[d];
            v[o + FunctionFrames.CALLS]++;
            v[o + FunctionFrames.TOTAL_NS] += nanos;
            if (nanos > v[o + FunctionFrames.MAX_NS]) {
                v[o + FunctionFrames.MAX_NS] = nanos;
            }
            long sb = f.startBytes[d];
            if (sb < 0 || end < 0) {
                v[o + FunctionFrames.NO_ALLOCATION]++;
            } else {
                v[o + FunctionFrames.ALLOCATED] += Math.max(0, end - sb - (ts.ownBytes - f.ownAt[d]));
            }
        } catch (Throwable t) {
            Failures.report("agent.function.exit", t);
        }
    }

    /** @return the call site of a call to {@code fid} that came without one: its caller, by walking the stack */
    private static int walkedSite(int fid) {
        FunctionTable.Function fn = FunctionTable.function(fid);
        String caller = StackTable.callerOf(fn == null ? null : fn.name);
        return caller == null ? 0 : FunctionTable.callSite(caller, null);
    }
}
