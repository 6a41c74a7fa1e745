package io.memscope.internal.link;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.util.ArrayList;
import java.util.List;

/**
 * How the application's copy of memscope-core reaches the memscope agent, when one runs in this JVM.
 *
 * <p>The agent keeps its own, relocated copy of core (so that the two never clash), and defines one class inside
 * {@code java.base}, {@code java.lang.MemscopeHooks}, which every class loader sees. Its static {@code api*}
 * methods forward to the agent's capture. This class looks them up by name and type and binds them to
 * {@link MutableCallSite}s: a call costs nothing more than the agent's own work once the JIT has compiled it (the
 * call site's target is a constant to the JIT; rebinding it deoptimizes the callers). A method the agent does not
 * have (an older agent) stays bound to a no-op, so core and agent of different versions work together.
 *
 * <p>When it connects: when this class is initialized (the agent started with {@code -javaagent} defined the hook
 * class before the application's {@code main}); and when an agent attaches later or starts a new capture, it calls
 * {@link #connect()} on every loaded copy of this class itself (through {@code Instrumentation.getAllLoadedClasses}),
 * and {@link #disconnect()} when the capture ends. Without an agent every method here is a no-op and
 * {@link #active()} is false.
 *
 * <p>Contract with the agent (the {@code java.lang.MemscopeHooks} methods; all static, none may throw):
 * <table>
 * <caption>Hook methods</caption>
 * <tr><th>method</th><th>meaning</th></tr>
 * <tr><td>{@code boolean apiActive()}</td><td>the agent is capturing</td></tr>
 * <tr><td>{@code void apiLinked(Class<?> link)}</td><td>this class of one copy of memscope-core connected: the
 *     agent calls its {@link #captureEnding()} and {@link #disconnect()} when its capture ends</td></tr>
 * <tr><td>{@code int apiScopePath(int parentId, String name)}</td><td>the agent's id of the scope path
 *     {@code parent/name} ({@code parentId} 0 = a root scope); 0 when not capturing. Ids are the agent's, so that
 *     two copies of core in one JVM (two web applications) never mix theirs.</td></tr>
 * <tr><td>{@code void apiScopeEnter(int pathId, long nanos, long taskId)}</td><td>a scope was entered on this
 *     thread at {@code System.nanoTime()} {@code nanos}; {@code taskId} is not 0 when this is a task wrapped in a
 *     scope and handed to this thread. (What the agent allocates on the thread meanwhile, the scopes measure and
 *     leave out of their own figures.)</td></tr>
 * <tr><td>{@code void apiScopeExit(int pathId, long nanos, long allocatedBytes)}</td><td>the innermost open
 *     scope of this thread was exited; {@code allocatedBytes} as the scope measured it (-1 unknown)</td></tr>
 * <tr><td>{@code long apiScopeEntered(int pathId, long nanos, long taskId)}, {@code long apiScopeExited(int pathId,
 *     long nanos, long allocatedBytes)}</td><td>as {@code apiScopeEnter} and {@code apiScopeExit}, returning the heap
 *     bytes the agent allocated on the thread while recording the edge (usually 0), so that the scopes need not
 *     measure the call; not part of {@code apiOwnBytes}. With an agent that lacks them the old methods are called
 *     and the scopes measure around them.</td></tr>
 * <tr><td>{@code void apiTrack(Object o, String name)}</td><td>a named object to follow until it is collected</td></tr>
 * <tr><td>{@code void apiBorrow(Object resource, String pool, long leaseId, long size)}</td><td>a pooled resource
 *     was borrowed (the agent takes the stack)</td></tr>
 * <tr><td>{@code void apiReturn(String pool, long leaseId, long size)}</td><td>it was returned</td></tr>
 * <tr><td>{@code void apiAnomaly(String kind, long id, long size, String detail)}</td>
 *     <td>misuse found by the API: a lease leaked ({@code pool-leak}: unreachable while borrowed; {@code id} the
 *     lease), returned twice ({@code pool-double-return}), an unknown resource returned
 *     ({@code pool-unknown-return}); a scope closed out of order, twice or on another thread
 *     ({@code scope-out-of-order}, {@code scope-stale-close}, {@code scope-foreign-close}); {@code detail} names
 *     the pool or scope</td></tr>
 * <tr><td>{@code void apiMove(String what, long id, long size, long fromThreadId)}</td><td>ownership moved to
 *     this thread: a scope's task ({@code what} = the scope path) or accounted memory ({@code what} = the
 *     instrument)</td></tr>
 * <tr><td>{@code void apiAccounting(long nanos, String[] text, long[] values)}</td><td>a snapshot of the
 *     application's accounting summary tables, read at {@code System.nanoTime()} {@code nanos}: row {@code i} is
 *     {@code text[4i..4i+3]} (thread name, user, host, instrument; null when none) and {@code values[13i..13i+12]}
 *     (table ordinal, thread id, then the 11 columns in {@code io.memscope.accounting.Column} order); the agent keeps
 *     the latest and writes it into the recording</td></tr>
 * <tr><td>{@code long apiOwnBytes()}</td><td>heap bytes the agent allocated on this thread in its own work so far
 *     (samples, native hooks): scopes leave them out of their allocated bytes</td></tr>
 * </table>
 *
 * <p>The agent ignores calls with a null name or a path id 0 ({@code apiScopePath(0, null)},
 * {@code apiScopeEnter(0, 0, 0)}, {@code apiTrack(null, null)}...): {@link #connect()} makes {@value #WARM_UP_CALLS}
 * such calls through every call site once it is bound. The JDK customizes a method handle invoked through an
 * invoker at its 128th call ({@code MethodHandle.CUSTOMIZE_THRESHOLD}): it spins a class, tens of kilobytes of
 * heap on the calling thread. Left to happen on the application's thread, inside an open scope, those bytes (and
 * the agent's samples among them) would land in the scope's exact figures; warmed up here, they are spent at
 * connect time, in no scope.
 */
public final class AgentLink {
    /** Binary name of the hook class the agent defines in {@code java.base}. */
    public static final String HOOK_CLASS = "java.lang.MemscopeHooks";

    private static final MethodType ACTIVE = MethodType.methodType(boolean.class);
    private static final MethodType LINKED = MethodType.methodType(void.class, Class.class);
    private static final MethodType SCOPE_PATH = MethodType.methodType(int.class, int.class, String.class);
    private static final MethodType SCOPE_ENTER = MethodType.methodType(void.class, int.class, long.class, long.class);
    private static final MethodType SCOPE_EXIT = MethodType.methodType(void.class, int.class, long.class, long.class);
    private static final MethodType TRACK = MethodType.methodType(void.class, Object.class, String.class);
    private static final MethodType BORROW = MethodType.methodType(void.class, Object.class, String.class,
            long.class, long.class);
    private static final MethodType RETURN = MethodType.methodType(void.class, String.class, long.class, long.class);
    private static final MethodType ANOMALY = MethodType.methodType(void.class, String.class, long.class,
            long.class, String.class);
    private static final MethodType MOVE = MethodType.methodType(void.class, String.class, long.class, long.class,
            long.class);
    private static final MethodType OWN_BYTES = MethodType.methodType(long.class);
    private static final MethodType SCOPE_EDGE = MethodType.methodType(long.class, int.class, long.class, long.class);
    private static final MethodType ACCOUNTING = MethodType.methodType(void.class, long.class, String[].class,
            long[].class);

    private static final MutableCallSite SCOPE_PATH_SITE = new MutableCallSite(SCOPE_PATH);
    private static final MutableCallSite SCOPE_ENTER_SITE = new MutableCallSite(SCOPE_ENTER);
    private static final MutableCallSite SCOPE_EXIT_SITE = new MutableCallSite(SCOPE_EXIT);
    private static final MutableCallSite TRACK_SITE = new MutableCallSite(TRACK);
    private static final MutableCallSite BORROW_SITE = new MutableCallSite(BORROW);
    private static final MutableCallSite RETURN_SITE = new MutableCallSite(RETURN);
    private static final MutableCallSite ANOMALY_SITE = new MutableCallSite(ANOMALY);
    private static final MutableCallSite MOVE_SITE = new MutableCallSite(MOVE);
    private static final MutableCallSite OWN_BYTES_SITE = new MutableCallSite(OWN_BYTES);
    private static final MutableCallSite ACCOUNTING_SITE = new MutableCallSite(ACCOUNTING);
    private static final MutableCallSite SCOPE_ENTERED_SITE = new MutableCallSite(SCOPE_EDGE);
    private static final MutableCallSite SCOPE_EXITED_SITE = new MutableCallSite(SCOPE_EDGE);
    private static final MutableCallSite[] SITES = {SCOPE_PATH_SITE, SCOPE_ENTER_SITE, SCOPE_EXIT_SITE, TRACK_SITE,
        BORROW_SITE, RETURN_SITE, ANOMALY_SITE, MOVE_SITE, OWN_BYTES_SITE, ACCOUNTING_SITE, SCOPE_ENTERED_SITE,
        SCOPE_EXITED_SITE};
    private static final String[] NAMES = {"apiScopePath", "apiScopeEnter", "apiScopeExit", "apiTrack", "apiBorrow",
        "apiReturn", "apiAnomaly", "apiMove", "apiOwnBytes", "apiAccounting", "apiScopeEntered", "apiScopeExited"};
    /** Index in {@link #SITES} of the old edge hook that stands in for each new one with an older agent. */
    private static final int[] FALLBACK = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 2};

    private static final MethodHandle SCOPE_PATH_H = SCOPE_PATH_SITE.dynamicInvoker();
    private static final MethodHandle SCOPE_ENTER_H = SCOPE_ENTER_SITE.dynamicInvoker();
    private static final MethodHandle SCOPE_EXIT_H = SCOPE_EXIT_SITE.dynamicInvoker();
    private static final MethodHandle TRACK_H = TRACK_SITE.dynamicInvoker();
    private static final MethodHandle BORROW_H = BORROW_SITE.dynamicInvoker();
    private static final MethodHandle RETURN_H = RETURN_SITE.dynamicInvoker();
    private static final MethodHandle ANOMALY_H = ANOMALY_SITE.dynamicInvoker();
    private static final MethodHandle MOVE_H = MOVE_SITE.dynamicInvoker();
    private static final MethodHandle OWN_BYTES_H = OWN_BYTES_SITE.dynamicInvoker();
    private static final MethodHandle ACCOUNTING_H = ACCOUNTING_SITE.dynamicInvoker();
    private static final MethodHandle SCOPE_ENTERED_H = SCOPE_ENTERED_SITE.dynamicInvoker();
    private static final MethodHandle SCOPE_EXITED_H = SCOPE_EXITED_SITE.dynamicInvoker();

    /** Calls made through each call site at {@link #connect()}: past the JDK's customization threshold (127). */
    public static final int WARM_UP_CALLS = 130;

    private static volatile boolean active;
    /**
     * Whether the agent measures what it allocates on the thread while recording a scope edge and returns it
     * ({@link #scopeEntered}); an older agent does not, and the scopes then measure around the call themselves.
     */
    private static volatile boolean edgesMeasured;
    /** Run by {@link #captureEnding()}: the API's trackers report what only they know (pool leaks). */
    private static final List<Runnable> AT_CAPTURE_END = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Run by {@link #snapshot()}: the API's state that the agent keeps only as its latest copy (accounting). */
    private static final List<Runnable> AT_SNAPSHOT = new java.util.concurrent.CopyOnWriteArrayList<>();
    /**
     * Grows by one at every {@link #connect()} and {@link #disconnect()}: ids the agent handed out
     * ({@link #scopePath}) are valid for one generation only (a new capture may number paths afresh).
     */
    private static volatile int generation;

    static {
        unbind();
        connect();
    }

    private AgentLink() {
    }

    /** @return true while an agent captures and receives this copy's events */
    public static boolean active() {
        return active;
    }

    /** @return the current link generation (see {@link #scopePath}) */
    public static int generation() {
        return generation;
    }

    /**
     * Binds the hook methods of the agent's {@code java.lang.MemscopeHooks}, if the class exists and the agent
     * captures. Called by this class's initializer and by an agent that starts a capture. Never throws.
     *
     * @return whether the link is active now
     */
    public static synchronized boolean connect() {
        try {
            Class<?> hooks;
            try {
                hooks = Class.forName(HOOK_CLASS, false, null);
            } catch (ClassNotFoundException | LinkageError noAgent) {
                return false;
            }
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            MethodHandle isActive = find(l, hooks, "apiActive", ACTIVE);
            if (isActive == null || !(boolean) isActive.invokeExact()) {
                return false;
            }
            List<MethodHandle> targets = new ArrayList<>();
            boolean measured = true;
            for (int i = 0; i < SITES.length; i++) {
                MethodHandle h = find(l, hooks, NAMES[i], SITES[i].type());
                if (h == null && FALLBACK[i] >= 0) {
                    measured = false;
                    h = reportingNothing(targets.get(FALLBACK[i]));
                }
                targets.add(h != null ? h : noop(SITES[i].type()));
            }
            edgesMeasured = measured;
            for (int i = 0; i < SITES.length; i++) {
                SITES[i].setTarget(targets.get(i));
            }
            MutableCallSite.syncAll(SITES);
            warmUp();
            generation++;
            active = true;
            MethodHandle linked = find(l, hooks, "apiLinked", LINKED);
            if (linked != null) {
                linked.invokeExact((Class<?>) AgentLink.class); // so that the agent can end and disconnect this copy
            }
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Unbinds the agent (its capture ended): every method becomes a no-op again. Never throws. */
    public static synchronized void disconnect() {
        try {
            active = false;
            generation++;
            unbind();
        } catch (Throwable t) {
            // the call sites keep their targets; the agent ignores calls while it does not capture
        }
    }

    /**
     * Called by the agent when its capture ends, after its final full GC and while the link is still active: the
     * API's trackers take what the collector found (leases lost while borrowed) and report it. Never throws.
     */
    public static void captureEnding() {
        for (Runnable r : AT_CAPTURE_END) {
            try {
                r.run();
            } catch (Throwable t) {
                // a tracker's failure must not stop the others or the agent
            }
        }
    }

    /** Registers an action for {@link #captureEnding()} (memscope's own trackers). */
    public static void atCaptureEnd(Runnable action) {
        AT_CAPTURE_END.add(action);
    }

    /**
     * Called by the agent now and then while it captures (from its own thread, every few seconds), so that a JVM
     * killed before its capture ends keeps a recent state of what the agent only receives as snapshots. Never throws.
     */
    public static void snapshot() {
        if (!active) {
            return;
        }
        for (Runnable r : AT_SNAPSHOT) {
            try {
                r.run();
            } catch (Throwable t) {
                // as in captureEnding
            }
        }
    }

    /** Registers an action for {@link #snapshot()} and, as its last state, for {@link #captureEnding()}. */
    public static void atSnapshot(Runnable action) {
        AT_SNAPSHOT.add(action);
        AT_CAPTURE_END.add(action);
    }

    /** @return the old void edge hook {@code h} returning 0 (nothing measured) */
    private static MethodHandle reportingNothing(MethodHandle h) {
        MethodHandle zero = MethodHandles.dropArguments(MethodHandles.constant(long.class, 0L), 0,
                int.class, long.class, long.class);
        return MethodHandles.foldArguments(zero, h);
    }

    /** Calls every bound hook {@value #WARM_UP_CALLS} times with arguments the agent ignores (see the class). */
    private static void warmUp() throws Throwable {
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            int id = (int) SCOPE_PATH_H.invokeExact(0, (String) null);
            SCOPE_ENTER_H.invokeExact(id, 0L, 0L);
            SCOPE_EXIT_H.invokeExact(id, 0L, 0L);
            if ((long) SCOPE_ENTERED_H.invokeExact(id, 0L, 0L) + (long) SCOPE_EXITED_H.invokeExact(id, 0L, 0L) < 0) {
                break; // never: bytes are a count
            }
            TRACK_H.invokeExact((Object) null, (String) null);
            BORROW_H.invokeExact((Object) null, (String) null, 0L, 0L);
            RETURN_H.invokeExact((String) null, 0L, 0L);
            ANOMALY_H.invokeExact((String) null, 0L, 0L, (String) null);
            MOVE_H.invokeExact((String) null, 0L, 0L, 0L);
            ACCOUNTING_H.invokeExact(0L, (String[]) null, (long[]) null);
            if ((long) OWN_BYTES_H.invokeExact() < 0) {
                break; // never: the agent's own bytes are a count
            }
        }
    }

    private static void unbind() {
        for (MutableCallSite s : SITES) {
            s.setTarget(noop(s.type()));
        }
        MutableCallSite.syncAll(SITES);
    }

    private static MethodHandle noop(MethodType type) {
        return MethodHandles.empty(type);
    }

    private static MethodHandle find(MethodHandles.Lookup l, Class<?> c, String name, MethodType type) {
        try {
            return l.findStatic(c, name, type);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** @return the agent's id of the path {@code parent/name} (parent 0 = a root scope), or 0 */
    public static int scopePath(int parentId, String name) {
        try {
            return (int) SCOPE_PATH_H.invokeExact(parentId, name);
        } catch (Throwable t) {
            return 0;
        }
    }

    /** @return whether {@link #scopeEntered} and {@link #scopeExited} return what the agent allocated (see there) */
    public static boolean edgesMeasured() {
        return edgesMeasured;
    }

    /**
     * A scope was entered on this thread at {@code nanos} ({@code taskId} not 0: a task handed to this thread).
     *
     * @return heap bytes the agent allocated on this thread while recording it (usually 0; 0 as well from an agent
     *         that does not measure them, see {@link #edgesMeasured()}), not part of {@link #ownBytes()}
     */
    public static long scopeEntered(int pathId, long nanos, long taskId) {
        try {
            return (long) SCOPE_ENTERED_H.invokeExact(pathId, nanos, taskId);
        } catch (Throwable t) {
            return 0;
        }
    }

    /** The innermost scope of this thread was exited at {@code nanos}; @return as {@link #scopeEntered} */
    public static long scopeExited(int pathId, long nanos, long allocatedBytes) {
        try {
            return (long) SCOPE_EXITED_H.invokeExact(pathId, nanos, allocatedBytes);
        } catch (Throwable t) {
            return 0;
        }
    }

    public static void scopeEnter(int pathId, long nanos, long taskId) {
        try {
            SCOPE_ENTER_H.invokeExact(pathId, nanos, taskId);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void scopeExit(int pathId, long nanos, long allocatedBytes) {
        try {
            SCOPE_EXIT_H.invokeExact(pathId, nanos, allocatedBytes);
        } catch (Throwable t) {
            // as above
        }
    }

    public static void track(Object o, String name) {
        try {
            TRACK_H.invokeExact(o, name);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void borrow(Object resource, String pool, long leaseId, long size) {
        try {
            BORROW_H.invokeExact(resource, pool, leaseId, size);
        } catch (Throwable t) {
            // as above
        }
    }

    public static void returned(String pool, long leaseId, long size) {
        try {
            RETURN_H.invokeExact(pool, leaseId, size);
        } catch (Throwable t) {
            // as above
        }
    }

    public static void anomaly(String kind, long id, long size, String detail) {
        try {
            ANOMALY_H.invokeExact(kind, id, size, detail);
        } catch (Throwable t) {
            // as above
        }
    }

    public static void move(String what, long id, long size, long fromThreadId) {
        try {
            MOVE_H.invokeExact(what, id, size, fromThreadId);
        } catch (Throwable t) {
            // as above
        }
    }

    /** Hands a snapshot of the accounting summary tables to the agent (see the class for the layout). */
    public static void accounting(long nanos, String[] text, long[] values) {
        try {
            ACCOUNTING_H.invokeExact(nanos, text, values);
        } catch (Throwable t) {
            // as above
        }
    }

    /** @return heap bytes the agent allocated on this thread in its own work so far (0 without an agent) */
    public static long ownBytes() {
        try {
            return (long) OWN_BYTES_H.invokeExact();
        } catch (Throwable t) {
            return 0;
        }
    }
}
