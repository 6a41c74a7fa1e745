package io.memscope.agent.boot;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Template of {@code java.lang.MemscopeHooks}, the one class that instrumented code calls. Never loaded under this
 * name: {@link BootHooks} renames it and defines it inside {@code java.base} (package {@code java.lang}, which
 * every module reads and which is exported to all), so that application classes of any class loader and
 * instrumented JDK classes reach it without the agent jar on the bootstrap class path.
 *
 * <p>Each method forwards to the same-named static method of the agent's {@code io.memscope.agent.capture.Hooks}
 * (loaded by the system class loader, as every agent is) through a {@code static final} method handle: the JIT
 * treats it as a constant and inlines the target, so the indirection costs nothing once compiled. The handles are
 * looked up once, in the static initializer, which {@link BootHooks} runs before any class is instrumented. If
 * the agent's class cannot be found, every method does nothing.
 *
 * <p>Rules for this source: no references to classes outside the JDK, no lambdas, no nested classes, no class
 * literal of itself (the renamer only rewrites the class's own name).
 */
public final class MemscopeHooksTemplate {
    /** System property (an object, not a string) through which the installer hands over the agent's class. */
    static final String HANDOFF = "io.memscope.agent.hooks.class";
    private static final String TARGET = "io.memscope.agent.capture.Hooks";
    /** The agent's receiver of JVM-sampled allocations (JVMTI sampler). */
    private static final String SAMPLER = "io.memscope.agent.capture.JvmtiSampler";
    /** The agent's receiver of the function profile's entries, exits and call sites. */
    private static final String FUNCTIONS = "io.memscope.agent.capture.FunctionHooks";
    /** The agent's receiver of what the application reports through memscope-core's API (scopes, pools...). */
    private static final String API = "io.memscope.agent.capture.ApiHooks";

    private static final MethodHandle NEW_OBJECT;
    private static final MethodHandle NEW_OBJECT_UNTRACKED;
    private static final MethodHandle NEW_BOOLEAN_ARRAY;
    private static final MethodHandle NEW_BYTE_ARRAY;
    private static final MethodHandle NEW_CHAR_ARRAY;
    private static final MethodHandle NEW_SHORT_ARRAY;
    private static final MethodHandle NEW_INT_ARRAY;
    private static final MethodHandle NEW_LONG_ARRAY;
    private static final MethodHandle NEW_FLOAT_ARRAY;
    private static final MethodHandle NEW_DOUBLE_ARRAY;
    private static final MethodHandle NEW_OBJECT_ARRAY;
    private static final MethodHandle NEW_MULTI_ARRAY;
    private static final MethodHandle NEW_ARRAY_DYNAMIC;
    private static final MethodHandle NEW_STRING;
    private static final MethodHandle NATIVE_ALLOCATE;
    private static final MethodHandle NATIVE_REALLOCATE;
    private static final MethodHandle NATIVE_FREE;
    private static final MethodHandle JVMTI_SAMPLED;
    private static final MethodHandle JVMTI_SAMPLED_FRAMES;
    private static final MethodHandle NATIVE_ARENA_ENTER;
    private static final MethodHandle NATIVE_ARENA_EXIT;
    private static final MethodHandle API_ACTIVE;
    private static final MethodHandle API_LINKED;
    private static final MethodHandle API_SCOPE_PATH;
    private static final MethodHandle API_SCOPE_ENTER;
    private static final MethodHandle API_SCOPE_EXIT;
    private static final MethodHandle API_TRACK;
    private static final MethodHandle API_BORROW;
    private static final MethodHandle API_RETURN;
    private static final MethodHandle API_ANOMALY;
    private static final MethodHandle API_MOVE;
    private static final MethodHandle API_OWN_BYTES;
    private static final MethodHandle FN_ENTER;
    private static final MethodHandle FN_EXIT;
    private static final MethodHandle FN_CALL_SITE;

    static {
        MethodHandle[] h = handles();
        NEW_OBJECT = h[0];
        NEW_OBJECT_UNTRACKED = h[1];
        NEW_BOOLEAN_ARRAY = h[2];
        NEW_BYTE_ARRAY = h[3];
        NEW_CHAR_ARRAY = h[4];
        NEW_SHORT_ARRAY = h[5];
        NEW_INT_ARRAY = h[6];
        NEW_LONG_ARRAY = h[7];
        NEW_FLOAT_ARRAY = h[8];
        NEW_DOUBLE_ARRAY = h[9];
        NEW_OBJECT_ARRAY = h[10];
        NEW_MULTI_ARRAY = h[11];
        NEW_ARRAY_DYNAMIC = h[12];
        NEW_STRING = h[13];
        NATIVE_ALLOCATE = h[14];
        NATIVE_REALLOCATE = h[15];
        NATIVE_FREE = h[16];
        JVMTI_SAMPLED = h[17];
        JVMTI_SAMPLED_FRAMES = h[18];
        NATIVE_ARENA_ENTER = h[19];
        NATIVE_ARENA_EXIT = h[20];
        API_ACTIVE = h[21];
        API_LINKED = h[22];
        API_SCOPE_PATH = h[23];
        API_SCOPE_ENTER = h[24];
        API_SCOPE_EXIT = h[25];
        API_TRACK = h[26];
        API_BORROW = h[27];
        API_RETURN = h[28];
        API_ANOMALY = h[29];
        API_MOVE = h[30];
        API_OWN_BYTES = h[31];
        FN_ENTER = h[32];
        FN_EXIT = h[33];
        FN_CALL_SITE = h[34];
    }

    private MemscopeHooksTemplate() {
    }

    private static MethodHandle[] handles() {
        Class<?> c = null;
        try {
            Object handedOver = System.getProperties().get(HANDOFF);
            c = handedOver instanceof Class ? (Class<?>) handedOver
                    : Class.forName(TARGET, true, ClassLoader.getSystemClassLoader());
        } catch (Throwable t) {
            System.err.println("memscope agent: hooks not connected, nothing is tracked: " + t);
        }
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        return new MethodHandle[] {
            find(l, c, "newObject", MethodType.methodType(void.class, Object.class, int.class)),
            find(l, c, "newObjectUntracked", MethodType.methodType(void.class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, boolean[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, byte[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, char[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, short[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, int[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, long[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, float[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, double[].class, int.class)),
            find(l, c, "newArray", MethodType.methodType(void.class, Object[].class, int.class)),
            find(l, c, "newMultiArray", MethodType.methodType(void.class, Object.class, int.class)),
            find(l, c, "newArrayDynamic", MethodType.methodType(void.class, Object.class, int.class)),
            find(l, c, "newString", MethodType.methodType(void.class, String.class, int.class)),
            find(l, c, "nativeAllocate", MethodType.methodType(void.class, long.class, long.class)),
            find(l, c, "nativeReallocate", MethodType.methodType(void.class, long.class, long.class, long.class)),
            find(l, c, "nativeFree", MethodType.methodType(boolean.class, long.class)),
            find(l, sibling(c, SAMPLER), "sampled",
                    MethodType.methodType(int.class, Object.class, Class.class, long.class, long.class, int.class)),
            find(l, sibling(c, SAMPLER), "sampledFrames",
                    MethodType.methodType(void.class, Object.class, Class.class, long.class, long.class, long[].class)),
            find(l, c, "nativeArenaEnter", MethodType.methodType(void.class)),
            find(l, c, "nativeArenaExit", MethodType.methodType(void.class)),
            find(l, sibling(c, API), "active", MethodType.methodType(boolean.class)),
            find(l, sibling(c, API), "linked", MethodType.methodType(void.class, Class.class)),
            find(l, sibling(c, API), "scopePath", MethodType.methodType(int.class, int.class, String.class)),
            find(l, sibling(c, API), "scopeEnter", MethodType.methodType(void.class, int.class, long.class,
                    long.class)),
            find(l, sibling(c, API), "scopeExit", MethodType.methodType(void.class, int.class, long.class, long.class)),
            find(l, sibling(c, API), "track", MethodType.methodType(void.class, Object.class, String.class)),
            find(l, sibling(c, API), "borrow", MethodType.methodType(void.class, Object.class, String.class,
                    long.class, long.class)),
            find(l, sibling(c, API), "returned", MethodType.methodType(void.class, String.class, long.class,
                    long.class)),
            find(l, sibling(c, API), "anomaly", MethodType.methodType(void.class, String.class, long.class,
                    long.class, String.class)),
            find(l, sibling(c, API), "move", MethodType.methodType(void.class, String.class, long.class, long.class,
                    long.class)),
            find(l, sibling(c, API), "ownBytes", MethodType.methodType(long.class)),
            find(l, sibling(c, FUNCTIONS), "enter", MethodType.methodType(void.class, int.class)),
            find(l, sibling(c, FUNCTIONS), "exit", MethodType.methodType(void.class, int.class)),
            find(l, sibling(c, FUNCTIONS), "callSite", MethodType.methodType(void.class, int.class)),
        };
    }

    /** @return the agent's class of that name, from the loader of {@code c}, or null */
    private static Class<?> sibling(Class<?> c, String name) {
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

    private static MethodHandle find(MethodHandles.Lookup l, Class<?> c, String name, MethodType type) {
        if (c != null) {
            try {
                return l.findStatic(c, name, type);
            } catch (Throwable t) {
                System.err.println("memscope agent: hook " + name + " not connected: " + t);
            }
        }
        return MethodHandles.empty(type);
    }

    public static void newObject(Object o, int site) {
        try {
            NEW_OBJECT.invokeExact(o, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newObjectUntracked(int site) {
        try {
            NEW_OBJECT_UNTRACKED.invokeExact(site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(boolean[] a, int site) {
        try {
            NEW_BOOLEAN_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(byte[] a, int site) {
        try {
            NEW_BYTE_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(char[] a, int site) {
        try {
            NEW_CHAR_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(short[] a, int site) {
        try {
            NEW_SHORT_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(int[] a, int site) {
        try {
            NEW_INT_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(long[] a, int site) {
        try {
            NEW_LONG_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(float[] a, int site) {
        try {
            NEW_FLOAT_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(double[] a, int site) {
        try {
            NEW_DOUBLE_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArray(Object[] a, int site) {
        try {
            NEW_OBJECT_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newMultiArray(Object a, int site) {
        try {
            NEW_MULTI_ARRAY.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newArrayDynamic(Object a, int site) {
        try {
            NEW_ARRAY_DYNAMIC.invokeExact(a, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void newString(String s, int site) {
        try {
            NEW_STRING.invokeExact(s, site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void nativeAllocate(long address, long bytes) {
        try {
            NATIVE_ALLOCATE.invokeExact(address, bytes);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void nativeReallocate(long newAddress, long oldAddress, long bytes) {
        try {
            NATIVE_REALLOCATE.invokeExact(newAddress, oldAddress, bytes);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static boolean nativeFree(long address) {
        try {
            return (boolean) NATIVE_FREE.invokeExact(address);
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Called by memscope-ffm's tracking arena before it asks the arena it wraps for memory: until
     * {@link #nativeArenaExit}, native memory allocated on this thread is that arena's, for the code that called
     * it (site and stack start there). Calls nest.
     */
    public static void nativeArenaEnter() {
        try {
            NATIVE_ARENA_ENTER.invokeExact();
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    /** Ends the innermost {@link #nativeArenaEnter} of this thread. */
    public static void nativeArenaExit() {
        try {
            NATIVE_ARENA_EXIT.invokeExact();
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    // The JVMTI sampler (io.memscope.agent.capture.JvmtiSampler). Its library is loaded by this class, so that it
    // belongs to the bootstrap loader and java.base, which has native access: no "restricted method" warning on
    // JDK 24 and later, and these native methods bind to it (JNI names Java_java_lang_MemscopeHooks_*).

    /** Loads the sampler library (System.load with this class as the caller). */
    public static void jvmtiLoad(String path) {
        System.load(path);
    }

    /** Enables the JVM's heap sampling; 0 = done, else an error code (see JvmtiSampler). */
    public static native int jvmtiStart0(int intervalBytes, int frames);

    /** Disables it again. */
    public static native int jvmtiStop0();

    /** "Lpkg/Cls;\tmethod\tFile.java" of a jmethodID, or null. */
    public static native String jvmtiDescribe0(long method);

    /** Line number table of a jmethodID as (first bytecode index, line) pairs, or null. */
    public static native int[] jvmtiLines0(long method);

    /**
     * Called by the library for each allocation the JVM sampled, on the allocating thread, with a hash of the
     * stack's raw frames; returns 1 when it needs the frames themselves (a stack not seen before), which the library
     * then passes to {@link #jvmtiSampledFrames}.
     */
    static int jvmtiSampled(Object o, Class<?> type, long size, long stackHash, int frameCount) {
        try {
            return (int) JVMTI_SAMPLED.invokeExact(o, type, size, stackHash, frameCount);
        } catch (Throwable t) {
            return 0; // the agent's hooks never throw; nothing may reach the application
        }
    }

    /** The same sample again with its raw frames, (jmethodID, bytecode index) pairs, top frame first. */
    static void jvmtiSampledFrames(Object o, Class<?> type, long size, long stackHash, long[] frames) {
        try {
            JVMTI_SAMPLED_FRAMES.invokeExact(o, type, size, stackHash, frames);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    /**
     * Calls {@link #jvmtiSampled} and {@link #jvmtiSampledFrames} {@code calls} times with a null type and null
     * frames, which the agent ignores: the JDK customizes a method handle at its 128th call through an invoker,
     * spinning a class (kilobytes of heap) on the calling thread; warmed up before sampling starts, that never
     * happens inside an application's sampled allocation (where it would land in the exact bytes of its scopes
     * and profiled functions).
     */
    public static void jvmtiWarmUp(int calls) {
        for (int i = 0; i < calls; i++) {
            jvmtiSampled(null, null, 0, 0, 0);
            jvmtiSampledFrames(null, null, 0, 0, null);
        }
    }

    // What the application reports through memscope-core's API (io.memscope.link.AgentLink in the application's copy
    // of memscope-core binds these by name; see that class for their contract). Forwarded to the agent's ApiHooks.

    public static boolean apiActive() {
        try {
            return (boolean) API_ACTIVE.invokeExact();
        } catch (Throwable t) {
            return false;
        }
    }

    public static void apiLinked(Class<?> link) {
        try {
            API_LINKED.invokeExact(link);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static int apiScopePath(int parentId, String name) {
        try {
            return (int) API_SCOPE_PATH.invokeExact(parentId, name);
        } catch (Throwable t) {
            return 0;
        }
    }

    public static void apiScopeEnter(int pathId, long nanos, long taskId) {
        try {
            API_SCOPE_ENTER.invokeExact(pathId, nanos, taskId);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void apiScopeExit(int pathId, long nanos, long allocatedBytes) {
        try {
            API_SCOPE_EXIT.invokeExact(pathId, nanos, allocatedBytes);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void apiTrack(Object o, String name) {
        try {
            API_TRACK.invokeExact(o, name);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void apiBorrow(Object resource, String pool, long leaseId, long size) {
        try {
            API_BORROW.invokeExact(resource, pool, leaseId, size);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void apiReturn(String pool, long leaseId, long size) {
        try {
            API_RETURN.invokeExact(pool, leaseId, size);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void apiAnomaly(String kind, long id, long size, String detail) {
        try {
            API_ANOMALY.invokeExact(kind, id, size, detail);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void apiMove(String what, long id, long size, long fromThreadId) {
        try {
            API_MOVE.invokeExact(what, id, size, fromThreadId);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static long apiOwnBytes() {
        try {
            return (long) API_OWN_BYTES.invokeExact();
        } catch (Throwable t) {
            return 0;
        }
    }

    // The function profile (io.memscope.agent.capture.FunctionHooks): entry and exit of profiled methods, and the
    // call site of a call to one.

    public static void fnEnter(int function) {
        try {
            FN_ENTER.invokeExact(function);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void fnExit(int function) {
        try {
            FN_EXIT.invokeExact(function);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    public static void fnCallSite(int site) {
        try {
            FN_CALL_SITE.invokeExact(site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }
}
