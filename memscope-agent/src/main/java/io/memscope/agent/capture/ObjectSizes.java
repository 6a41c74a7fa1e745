package io.memscope.agent.capture;

import java.lang.instrument.Instrumentation;

/**
 * Object and array sizes in bytes, as the running JVM lays them out (compressed oops or not, compact headers or
 * not): measured once at start-up with {@link Instrumentation#getObjectSize(Object)}, then computed from an array's
 * length without a JVM call. Instance sizes are cached per allocation site by {@link SiteTable}.
 */
final class ObjectSizes {
    /** Indexes of {@link #base} and {@link #scale}. */
    static final int BOOLEAN = 0;
    static final int BYTE = 1;
    static final int CHAR = 2;
    static final int SHORT = 3;
    static final int INT = 4;
    static final int LONG = 5;
    static final int FLOAT = 6;
    static final int DOUBLE = 7;
    static final int REFERENCE = 8;

    private static final long[] base = {16, 16, 16, 16, 16, 16, 16, 16, 16};
    private static final long[] scale = {1, 1, 2, 2, 4, 8, 4, 8, 4};
    private static long stringShallow = 24;
    private static Instrumentation inst;

    private ObjectSizes() {
    }

    /**
     * Sets only what {@link #measured} needs (tracked objects of the application's API with the JVM's sampler, which
     * sizes its samples itself): no measurement of array layouts, no lambdas on the start-up path.
     */
    static void instrumentation(Instrumentation instrumentation) {
        inst = instrumentation;
    }

    static void init(Instrumentation instrumentation) {
        inst = instrumentation;
        measure(BOOLEAN, new boolean[0], new boolean[1024], n -> new boolean[n]);
        measure(BYTE, new byte[0], new byte[1024], n -> new byte[n]);
        measure(CHAR, new char[0], new char[1024], n -> new char[n]);
        measure(SHORT, new short[0], new short[1024], n -> new short[n]);
        measure(INT, new int[0], new int[1024], n -> new int[n]);
        measure(LONG, new long[0], new long[1024], n -> new long[n]);
        measure(FLOAT, new float[0], new float[1024], n -> new float[n]);
        measure(DOUBLE, new double[0], new double[1024], n -> new double[n]);
        measure(REFERENCE, new Object[0], new Object[1024], n -> new Object[n]);
        stringShallow = inst.getObjectSize("");
    }

    private interface Maker {
        Object make(int n);
    }

    private static void measure(int kind, Object empty, Object big, Maker maker) {
        long size0 = inst.getObjectSize(empty);
        long s = (inst.getObjectSize(big) - size0) / 1024;
        if (s <= 0) {
            return;
        }
        int first = 1;
        while (first < 64 && inst.getObjectSize(maker.make(first)) <= size0) {
            first++;
        }
        scale[kind] = s;
        base[kind] = size0 - (first - 1) * s;
    }

    /** @return bytes of an array of {@code length} elements of this kind, aligned to 8 */
    static long array(int kind, int length) {
        return align(base[kind] + scale[kind] * (long) length);
    }

    /** @return bytes of this object via the JVM (instances; slow-ish, callers cache it) */
    static long measured(Object o) {
        Instrumentation i = inst;
        return i == null ? 16 : i.getObjectSize(o);
    }

    /** @return bytes of a string and its value array, assuming Latin-1 content (compact strings) */
    static long string(String s) {
        return stringShallow + array(BYTE, s.length());
    }

    /** @return bytes of any array, from its runtime class (reflective arrays, clones) */
    static long anyArray(Object array) {
        Class<?> c = array.getClass().getComponentType();
        if (c == null) {
            return measured(array);
        }
        int n = java.lang.reflect.Array.getLength(array);
        return array(kindOf(c), n);
    }

    /** @return bytes of a multi-dimensional array and all its sub-arrays */
    static long deepArray(Object array) {
        if (array == null) {
            return 0;
        }
        long total = anyArray(array);
        if (array instanceof Object[]) {
            Class<?> c = array.getClass().getComponentType();
            if (c.isArray()) {
                for (Object sub : (Object[]) array) {
                    total += deepArray(sub);
                }
            }
        }
        return total;
    }

    static int kindOf(Class<?> component) {
        if (!component.isPrimitive()) {
            return REFERENCE;
        }
        if (component == int.class) {
            return INT;
        } else if (component == byte.class) {
            return BYTE;
        } else if (component == long.class) {
            return LONG;
        } else if (component == char.class) {
            return CHAR;
        } else if (component == double.class) {
            return DOUBLE;
        } else if (component == float.class) {
            return FLOAT;
        } else if (component == short.class) {
            return SHORT;
        }
        return BOOLEAN;
    }

    private static long align(long n) {
        return (n + 7) & ~7L;
    }
}
