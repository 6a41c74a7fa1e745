package io.memscope.agent.boot;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Template of {@code java.lang.MemscopeHeapHooks}, the class that code instrumented by the bytecode heap hooks calls
 * after each allocation (the bytecode sampler and exact mode). Defined by {@link BootHooks#installHeapHooks} inside
 * {@code java.base} like {@link MemscopeHooksTemplate}, only when those hooks are used: the JVM's own sampler needs
 * none of it, so its 14 method handles are not looked up at every start.
 *
 * <p>Each method forwards to the same-named static method of the agent's {@code io.memscope.agent.capture.Hooks}
 * through a {@code static final} method handle (a constant to the JIT, inlined). Rules for this source: no references
 * to classes outside the JDK, no lambdas, no nested classes, no class literal of itself.
 */
public final class MemscopeHeapHooksTemplate {
    private static final String TARGET = "io.memscope.agent.capture.Hooks";

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
    }

    private MemscopeHeapHooksTemplate() {
    }

    private static MethodHandle[] handles() {
        Class<?> c = null;
        try {
            Object handedOver = System.getProperties().get(MemscopeHooksTemplate.HANDOFF);
            c = handedOver instanceof Class ? (Class<?>) handedOver
                    : Class.forName(TARGET, true, ClassLoader.getSystemClassLoader());
        } catch (Throwable t) {
            System.err.println("memscope agent: heap hooks not connected, nothing is tracked: " + t);
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
        };
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
}
