package io.memscope.ffm;

import io.memscope.error.MemscopeException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The link from a {@link TrackingArena} to the memscope agent, when one runs in this JVM.
 *
 * <p>The agent's own classes are relocated inside its jar and loaded next to the application, so they cannot be
 * named here. What every class can reach is {@code java.lang.MemscopeHooks}, which the agent defines inside
 * {@code java.base} at start-up: its public static methods forward to the agent's capture. This class looks it up at
 * run time, when a tracking arena is made (once a second at most while it is absent, so that an agent attached later is
 * found by the arenas made after it) and calls two of its methods around each allocation: {@code nativeArenaEnter()} and {@code nativeArenaExit()}. In between, the agent
 * records the native blocks the wrapped arena allocates on this thread (it sees them through its
 * {@code Unsafe.allocateMemory} hook) as {@code native:arena} memory of the code that called the tracking arena.
 * Nothing else is reported to the agent: it already sees the real block, its address and size, and its free when
 * the arena closes, so each byte is recorded once.
 *
 * <p>Without the agent (or with an agent too old to have these hooks) the bridge is absent and the tracking arena
 * only accounts. A call that fails is counted in {@link MemscopeException#report} ({@code ffm.bridge}), switches the bridge off
 * for good, and is never thrown into the application (except in memscope's strict mode, for tests).
 */
final class AgentBridge {
    /** Binary name of the class the agent defines in java.base. */
    static final String HOOKS = "java.lang.MemscopeHooks";
    private static final long RETRY_NANOS = 1_000_000_000L;

    private static volatile AgentBridge found;
    private static volatile long nextLookup = System.nanoTime();
    private static volatile boolean broken;

    private final MethodHandle enter;
    private final MethodHandle exit;

    private AgentBridge(MethodHandle enter, MethodHandle exit) {
        this.enter = enter;
        this.exit = exit;
    }

    /** @return the bridge to the running agent, or null when there is none (looked up again a second later) */
    static AgentBridge current() {
        AgentBridge b = found;
        if (b != null || broken) {
            return b;
        }
        long now = System.nanoTime();
        if (now - nextLookup < 0) {
            return null;
        }
        nextLookup = now + RETRY_NANOS;
        b = lookup();
        if (b != null) {
            found = b;
        }
        return b;
    }

    private static AgentBridge lookup() {
        Class<?> hooks;
        try {
            hooks = Class.forName(HOOKS, false, null);
        } catch (ClassNotFoundException | LinkageError noAgent) {
            return null;
        }
        try {
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            MethodType v = MethodType.methodType(void.class);
            return new AgentBridge(l.findStatic(hooks, "nativeArenaEnter", v), l.findStatic(hooks, "nativeArenaExit", v));
        } catch (NoSuchMethodException | IllegalAccessException olderAgent) {
            // An agent without the arena hooks: its Unsafe hook still records the blocks, typed by their stack.
            return null;
        } catch (Throwable t) {
            fail(t);
            return null;
        }
    }

    /** Marks this thread's native allocations as the arena's; @return false when it failed now or before (no mark) */
    boolean enter() {
        if (broken) {
            return false;
        }
        try {
            enter.invokeExact();
            return true;
        } catch (Throwable t) {
            fail(t);
            return false;
        }
    }

    /** Ends the mark of a successful {@link #enter}. */
    void exit() {
        try {
            exit.invokeExact();
        } catch (Throwable t) {
            fail(t);
        }
    }

    private static void fail(Throwable t) {
        broken = true;
        found = null;
        MemscopeException.report("ffm.bridge", t); // counted; thrown only in strict mode (tests)
    }

    /** Uses these handles as the bridge (tests: a bridge that fails). */
    static void install(MethodHandle enter, MethodHandle exit) {
        found = new AgentBridge(enter, exit);
        broken = false;
    }

    /** Forgets the bridge and its failures (tests). */
    static void reset() {
        found = null;
        broken = false;
        nextLookup = System.nanoTime();
    }
}
