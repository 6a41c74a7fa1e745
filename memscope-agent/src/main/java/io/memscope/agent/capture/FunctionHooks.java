package io.memscope.agent.capture;

import io.memscope.error.Failures;

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

    /** A capture with a function profile starts or ends (null). */
    static void profile(FunctionProfile p) {
        profile = p;
        if (p != null) {
            OwnBytes.measure = true;
        }
    }

    /** Before a call to a profiled function from instrumented code: the call site of the call that follows. */
    public static void callSite(int site) {
        if (profile == null) {
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
        if (p == null) {
            return;
        }
        long before = OwnBytes.before();
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        ts.busy = true;
        FunctionFrames f;
        int d;
        try {
            f = ts.functions;
            if (f == null || f.profile != p) {
                f = new FunctionFrames(Thread.currentThread(), p);
                ts.functions = f;
                p.add(f);
            }
            int site = callSiteOf(ts, fid);
            if (!f.ensureRoom()) {
                return;
            }
            d = f.depth;
            f.function[d] = fid;
            f.site[d] = site;
            f.recursive[d] = f.onStack(fid);
            f.row(fid, site); // the row exists before the call: its exit allocates nothing
            f.depth = d + 1;
        } catch (Throwable t) {
            Failures.report("agent.function.enter", t);
            return;
        } finally {
            OwnBytes.after(ts, before);
            ts.busy = false;
        }
        f.ownAt[d] = ts.ownBytes;
        f.startBytes[d] = OwnBytes.now();
        f.start[d] = System.nanoTime();
    }

    public static void exit(int fid) {
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

    /**
     * @return the call site of the call now entering {@code fid}: the one its caller's instrumentation set, when it
     *         called this very method (name and descriptor); else found by walking the stack (0 when not found)
     */
    private static int callSiteOf(ThreadState ts, int fid) {
        int pending = ts.pendingCallSite;
        ts.pendingCallSite = 0;
        FunctionTable.Function fn = FunctionTable.function(fid);
        FunctionTable.CallSite s = FunctionTable.site(pending);
        if (s != null && fn != null && fn.key.equals(s.target)) {
            return pending;
        }
        String caller = StackTable.callerOf(fn == null ? null : fn.name);
        return caller == null ? 0 : FunctionTable.callSite(caller, null);
    }
}
