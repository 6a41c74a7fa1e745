package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;

import java.lang.instrument.Instrumentation;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Receives what the application reports through memscope-core's API (scopes, named objects, pools, moves) while a
 * capture runs: the {@code api*} methods of {@code java.lang.MemscopeHooks} forward here, and the application's
 * copy of {@code io.memscope.internal.link.AgentLink} binds those (see that class for the contract). Public because the hook
 * class looks these methods up with a public lookup; not an API.
 *
 * <p>Every method returns at once when no capture runs, never throws, and runs with the thread's recursion guard
 * held (so that the bytecode hooks do not count memscope's own work). Scopes measure what these methods allocate
 * on the application's thread and leave it out of their figures.
 *
 * <p>The copies of memscope-core in the JVM (usually one; two web applications may bring one each) are connected at
 * the start of a capture ({@link #connectAll}: the copies loaded already; later ones connect themselves when they
 * load and report here through {@link #linked}), told when the capture ends (after its final full GC, so that
 * pool leases lost while borrowed are reported) and disconnected then.
 */
public final class ApiHooks {
    private static volatile ApiCapture capture;
    private static final List<WeakReference<Class<?>>> LINKS = new ArrayList<>();

    private ApiHooks() {
    }

    /** Binary name of the application's link class, built so that relocation in the agent jar leaves it alone. */
    static final String LINK_CLASS = String.join(".", "io", "memscope", "internal", "link", "AgentLink");

    // ------------------------------------------------------------------------------------------ capture life cycle

    /** A capture starts: API events go into {@code c} from now on. */
    static void start(ApiCapture c) {
        capture = c;
    }

    /**
     * Connects every copy of memscope-core's link loaded already (an agent attached to a running application, or a
     * new capture after {@code detach}).
     */
    public static void connectAll(Instrumentation inst) {
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            try {
                // the JDK's classes are not asked their names (the JVM makes each name string at its first
                // getName(): about a thousand classes at start)
                ClassLoader l = c.getClassLoader();
                if (l != null && l != platform && LINK_CLASS.equals(c.getName())) {
                    call(c, "connect");
                }
            } catch (Throwable t) {
                Failures.report("agent.api.connect", t);
            }
        }
    }

    /**
     * The capture is ending, after its final full GC: the linked copies report what only they know (pool leases lost
     * while borrowed), named objects collected by that GC are seen; then the copies are disconnected and later calls
     * ignored.
     *
     * @param metadata receives the API's counts for the recording
     */
    static void captureEnding(Map<String, String> metadata) {
        ApiCapture c = capture;
        for (Class<?> link : links()) {
            call(link, "captureEnding");
        }
        if (c != null) {
            c.poll();
            c.metadata(metadata);
        }
        for (Class<?> link : links()) {
            call(link, "disconnect");
        }
        capture = null;
    }

    /** Drains what was received into the recording (the recording stream's drain). */
    static void drainTo(RecordingStream stream, io.memscope.internal.recording.RecordingWriter writer, ApiCapture c) {
        if (c != null) {
            c.drainTo(stream, writer);
        }
    }

    /** @return the capture's API state, or null between captures */
    static ApiCapture current() {
        return capture;
    }

    private static List<Class<?>> links() {
        List<Class<?>> l = new ArrayList<>();
        synchronized (LINKS) {
            for (java.util.Iterator<WeakReference<Class<?>>> it = LINKS.iterator(); it.hasNext(); ) {
                Class<?> c = it.next().get();
                if (c != null) {
                    l.add(c);
                } else {
                    it.remove(); // no lambda (removeIf): this runs during the application's start-up
                }
            }
        }
        return l;
    }

    private static void call(Class<?> c, String method) {
        try {
            Method m = c.getMethod(method);
            m.invoke(null);
        } catch (Throwable t) {
            Failures.report("agent.api." + method, t);
        }
    }

    // ------------------------------------------------------------------------------------------ the hook methods

    public static boolean active() {
        return capture != null;
    }

    /** A copy of memscope-core's link connected (it calls this itself). */
    public static void linked(Class<?> link) {
        if (link == null) {
            return;
        }
        synchronized (LINKS) {
            for (WeakReference<Class<?>> r : LINKS) {
                if (r.get() == link) {
                    return;
                }
            }
            LINKS.add(new WeakReference<>(link));
        }
        OwnBytes.prepare();
        OwnBytes.measure = true;
    }

    /**
     * @return heap bytes the agent allocated on the calling thread so far in its own work (samples, native hooks),
     *         for the application's scopes to leave out; a thread the agent has not worked on yet has 0
     */
    public static long ownBytes() {
        ThreadState ts = ThreadState.existing();
        return ts == null ? 0 : ts.ownBytes;
    }

    public static int scopePath(int parentId, String name) {
        ApiCapture c = capture;
        if (c == null || name == null) {
            return 0;
        }
        ThreadState ts = guard();
        try {
            return c.scopePath(parentId, name);
        } catch (Throwable t) {
            Failures.report("agent.api.scopePath", t);
            return 0;
        } finally {
            release(ts);
        }
    }

    /** An older copy of memscope-core's entry hook: as {@link #scopeEntered}. */
    public static void scopeEnter(int pathId, long nanos, long taskId) {
        scopeEntered(pathId, nanos, taskId);
    }

    /** An older copy of memscope-core's exit hook: as {@link #scopeExited}. */
    public static void scopeExit(int pathId, long nanos, long allocatedBytes) {
        scopeExited(pathId, nanos, allocatedBytes);
    }

    /**
     * A scope was entered on this thread at {@code nanos}.
     *
     * @return heap bytes this call allocated on the thread (its first edge, a new block of its log; usually 0): the
     *         scope leaves them out without measuring the call itself. They are not part of {@link #ownBytes()}.
     */
    public static long scopeEntered(int pathId, long nanos, long taskId) {
        return scopeEdge(pathId, nanos, false, taskId);
    }

    /** The innermost scope of this thread was exited at {@code nanos}; @return as {@link #scopeEntered} */
    public static long scopeExited(int pathId, long nanos, long allocatedBytes) {
        return scopeEdge(pathId, nanos, true, allocatedBytes);
    }

    private static long scopeEdge(int pathId, long nanos, boolean exit, long value) {
        ApiCapture c = capture;
        if (c == null || pathId == 0) {
            return 0;
        }
        ThreadState ts = ThreadState.existing();
        long before = -1;
        if (ts == null) {
            // the thread's first call into the agent (creates its state), or a thread whose slot another holds
            before = OwnBytes.before();
            ts = ThreadState.current();
            if (ts == null) {
                return OwnBytes.since(before);
            }
        }
        long allocated = 0;
        boolean wasBusy = ts.busy; // the bytecode hooks leave memscope's own work alone
        ts.busy = true;
        try {
            allocated = c.scopeEdge(ts, pathId, nanos, exit, value);
        } catch (Throwable t) {
            Failures.report(exit ? "agent.api.scopeExit" : "agent.api.scopeEnter", t);
        } finally {
            ts.busy = wasBusy;
        }
        return before >= 0 ? OwnBytes.since(before) : allocated;
    }

    public static void track(Object o, String name) {
        ApiCapture c = capture;
        if (c == null || o == null || name == null) {
            return;
        }
        ThreadState ts = guard();
        try {
            c.track(o, name);
        } catch (Throwable t) {
            Failures.report("agent.api.track", t);
        } finally {
            release(ts);
        }
    }

    public static void borrow(Object resource, String pool, long leaseId, long size) {
        ApiCapture c = capture;
        if (c == null || pool == null) {
            return;
        }
        ThreadState ts = guard();
        try {
            c.borrow(resource, pool, leaseId, size);
        } catch (Throwable t) {
            Failures.report("agent.api.borrow", t);
        } finally {
            release(ts);
        }
    }

    public static void returned(String pool, long leaseId, long size) {
        ApiCapture c = capture;
        if (c == null || pool == null) {
            return;
        }
        ThreadState ts = guard();
        try {
            c.returned(pool, leaseId, size);
        } catch (Throwable t) {
            Failures.report("agent.api.return", t);
        } finally {
            release(ts);
        }
    }

    public static void anomaly(String kind, long id, long size, String detail) {
        ApiCapture c = capture;
        if (c == null || kind == null) {
            return;
        }
        ThreadState ts = guard();
        try {
            c.anomaly(kind, id, size, detail);
        } catch (Throwable t) {
            Failures.report("agent.api.anomaly", t);
        } finally {
            release(ts);
        }
    }

    /** A snapshot of the application's accounting summary tables (see AgentLink for the layout); the latest wins. */
    public static void accounting(long nanos, String[] text, long[] values) {
        ApiCapture c = capture;
        if (c == null || text == null || values == null) {
            return;
        }
        ThreadState ts = guard();
        try {
            c.accounting(nanos, text, values);
        } catch (Throwable t) {
            Failures.report("agent.api.accounting", t);
        } finally {
            release(ts);
        }
    }

    /** How often the linked copies are asked for a snapshot of their accounting tables while the capture runs. */
    static final long SNAPSHOT_NANOS = 10_000_000_000L;
    private static long lastSnapshot = System.nanoTime();

    /**
     * Asks the linked copies for their snapshots (accounting tables) every {@link #SNAPSHOT_NANOS}; memscope's
     * background thread. A copy of memscope-core without {@code snapshot()} (older) is left alone.
     */
    static void periodic(long now) {
        if (capture == null || now - lastSnapshot < SNAPSHOT_NANOS) {
            return;
        }
        lastSnapshot = now;
        for (Class<?> link : links()) {
            try {
                link.getMethod("snapshot").invoke(null);
            } catch (NoSuchMethodException older) {
                // a copy of memscope-core from before snapshots: it reports at the end only
            } catch (Throwable t) {
                Failures.report("agent.api.snapshot", t);
            }
        }
    }

    public static void move(String what, long id, long size, long fromThreadId) {
        ApiCapture c = capture;
        if (c == null || what == null) {
            return;
        }
        ThreadState ts = guard();
        try {
            c.move(what, id, size, fromThreadId);
        } catch (Throwable t) {
            Failures.report("agent.api.move", t);
        } finally {
            release(ts);
        }
    }

    /** @return the thread's state with its recursion guard set by this call, or null (already set, or none) */
    private static ThreadState guard() {
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return null;
        }
        ts.busy = true;
        return ts;
    }

    private static void release(ThreadState ts) {
        if (ts != null) {
            ts.busy = false;
        }
    }
}
