package io.memscope.agent.boot;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Template of {@code java.lang.MemscopeApiHooks}: the forwarding of {@code java.lang.MemscopeHooks}' {@code api*}
 * methods (what the application reports through memscope-core's API) to the agent's
 * {@code io.memscope.agent.capture.ApiHooks}, through {@code static final} method handles looked up when this class
 * is initialized, at the first call: a JVM whose application does not use memscope-core never pays for them.
 * {@link BootHooks} renames it and defines it beside the hook class (same rules as {@link MemscopeHooksTemplate}).
 */
public final class MemscopeApiHooksTemplate {
    private static final String API = "io.memscope.agent.capture.ApiHooks";

    private static final MethodHandle ACTIVE;
    private static final MethodHandle LINKED;
    private static final MethodHandle SCOPE_PATH;
    private static final MethodHandle SCOPE_ENTER;
    private static final MethodHandle SCOPE_EXIT;
    private static final MethodHandle TRACK;
    private static final MethodHandle BORROW;
    private static final MethodHandle RETURN;
    private static final MethodHandle ANOMALY;
    private static final MethodHandle MOVE;
    private static final MethodHandle OWN_BYTES;
    private static final MethodHandle ACCOUNTING;
    private static final MethodHandle SCOPE_ENTERED;
    private static final MethodHandle SCOPE_EXITED;

    static {
        Class<?> c = MemscopeHooksTemplate.sibling(MemscopeHooksTemplate.hooks(), API);
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        ACTIVE = MemscopeHooksTemplate.find(l, c, "active", MethodType.methodType(boolean.class));
        LINKED = MemscopeHooksTemplate.find(l, c, "linked", MethodType.methodType(void.class, Class.class));
        SCOPE_PATH = MemscopeHooksTemplate.find(l, c, "scopePath", MethodType.methodType(int.class, int.class,
                String.class));
        SCOPE_ENTER = MemscopeHooksTemplate.find(l, c, "scopeEnter", MethodType.methodType(void.class, int.class,
                long.class, long.class));
        SCOPE_EXIT = MemscopeHooksTemplate.find(l, c, "scopeExit", MethodType.methodType(void.class, int.class,
                long.class, long.class));
        TRACK = MemscopeHooksTemplate.find(l, c, "track", MethodType.methodType(void.class, Object.class,
                String.class));
        BORROW = MemscopeHooksTemplate.find(l, c, "borrow", MethodType.methodType(void.class, Object.class,
                String.class, long.class, long.class));
        RETURN = MemscopeHooksTemplate.find(l, c, "returned", MethodType.methodType(void.class, String.class,
                long.class, long.class));
        ANOMALY = MemscopeHooksTemplate.find(l, c, "anomaly", MethodType.methodType(void.class, String.class,
                long.class, long.class, String.class));
        MOVE = MemscopeHooksTemplate.find(l, c, "move", MethodType.methodType(void.class, String.class, long.class,
                long.class, long.class));
        OWN_BYTES = MemscopeHooksTemplate.find(l, c, "ownBytes", MethodType.methodType(long.class));
        ACCOUNTING = MemscopeHooksTemplate.find(l, c, "accounting", MethodType.methodType(void.class, long.class,
                String[].class, long[].class));
        SCOPE_ENTERED = MemscopeHooksTemplate.find(l, c, "scopeEntered", MethodType.methodType(long.class,
                int.class, long.class, long.class));
        SCOPE_EXITED = MemscopeHooksTemplate.find(l, c, "scopeExited", MethodType.methodType(long.class, int.class,
                long.class, long.class));
    }

    private MemscopeApiHooksTemplate() {
    }

    static boolean active() {
        try {
            return (boolean) ACTIVE.invokeExact();
        } catch (Throwable t) {
            return false;
        }
    }

    static void linked(Class<?> link) {
        try {
            LINKED.invokeExact(link);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static int scopePath(int parentId, String name) {
        try {
            return (int) SCOPE_PATH.invokeExact(parentId, name);
        } catch (Throwable t) {
            return 0;
        }
    }

    static void scopeEnter(int pathId, long nanos, long taskId) {
        try {
            SCOPE_ENTER.invokeExact(pathId, nanos, taskId);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void scopeExit(int pathId, long nanos, long allocatedBytes) {
        try {
            SCOPE_EXIT.invokeExact(pathId, nanos, allocatedBytes);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void track(Object o, String name) {
        try {
            TRACK.invokeExact(o, name);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void borrow(Object resource, String pool, long leaseId, long size) {
        try {
            BORROW.invokeExact(resource, pool, leaseId, size);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void returned(String pool, long leaseId, long size) {
        try {
            RETURN.invokeExact(pool, leaseId, size);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void anomaly(String kind, long id, long size, String detail) {
        try {
            ANOMALY.invokeExact(kind, id, size, detail);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void move(String what, long id, long size, long fromThreadId) {
        try {
            MOVE.invokeExact(what, id, size, fromThreadId);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void accounting(long nanos, String[] text, long[] values) {
        try {
            ACCOUNTING.invokeExact(nanos, text, values);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static long scopeEntered(int pathId, long nanos, long taskId) {
        try {
            return (long) SCOPE_ENTERED.invokeExact(pathId, nanos, taskId);
        } catch (Throwable t) {
            return 0;
        }
    }

    static long scopeExited(int pathId, long nanos, long allocatedBytes) {
        try {
            return (long) SCOPE_EXITED.invokeExact(pathId, nanos, allocatedBytes);
        } catch (Throwable t) {
            return 0;
        }
    }

    static long ownBytes() {
        try {
            return (long) OWN_BYTES.invokeExact();
        } catch (Throwable t) {
            return 0;
        }
    }
}
