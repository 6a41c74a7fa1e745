package io.memscope.agent.capture;

import java.lang.instrument.Instrumentation;

/**
 * Object and array sizes in bytes, as the running JVM lays them out (compressed oops or not, compact headers or
 * not): measured once when a capture starts with {@link Instrumentation#getObjectSize(Object)}, then computed from
 * an array's length without a JVM call. Instance sizes are cached per allocation site by {@link SiteTable}.
 *
 * <p>An instance belongs to the capture that measured it ({@code CaptureSession}); the bytecode hooks reach the
 * running capture's through {@link Hooks} (instrumented code calls static methods only). Immutable once measured:
 * two captures, or two instances in one JVM, share nothing.
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

    /** Sizes of a 64-bit JVM with compressed oops, used before any capture measured them (no JVM to ask). */
    static final ObjectSizes UNMEASURED = new ObjectSizes(null, false);

    // Filled in the constructor: final fields make a measured instance safe to read from any thread, however
    // it was published (the hooks read it through a plain static).
    private final long[] base = {16, 16, 16, 16, 16, 16, 16, 16, 16};
    private final long[] scale = {1, 1, 2, 2, 4, 8, 4, 8, 4};
    private final long stringShallow;
    private final Instrumentation inst;

    private ObjectSizes(Instrumentation inst, boolean layouts) {
        this.inst = inst;
        this.stringShallow = inst == null || !layouts ? 24 : inst.getObjectSize("");
        if (layouts) {
            measure(BOOLEAN, new boolean[0], new boolean[1024], n -> new boolean[n]);
            measure(BYTE, new byte[0], new byte[1024], n -> new byte[n]);
            measure(CHAR, new char[0], new char[1024], n -> new char[n]);
            measure(SHORT, new short[0], new short[1024], n -> new short[n]);
            measure(INT, new int[0], new int[1024], n -> new int[n]);
            measure(LONG, new long[0], new long[1024], n -> new long[n]);
            measure(FLOAT, new float[0], new float[1024], n -> new float[n]);
            measure(DOUBLE, new double[0], new double[1024], n -> new double[n]);
            measure(REFERENCE, new Object[0], new Object[1024], n -> new Object[n]);
        }
    }

    /** @return sizes measured through {@code instrumentation}: array layouts, strings and, on demand, instances */
    static ObjectSizes measure(Instrumentation instrumentation) {
        return new ObjectSizes(instrumentation, true);
    }

    /**
     * @return sizes that only {@link #measured} instances through {@code instrumentation} (tracked objects of the
     * application's API with the JVM's sampler, which sizes its samples itself): no measurement of array layouts,
     * no lambdas on the start-up path
     */
    static ObjectSizes instancesOnly(Instrumentation instrumentation) {
        return new ObjectSizes(instrumentation, false);
    }

    private interface Maker {
        Object make(int n);
    }

    private void measure(int kind, Object empty, Object big, Maker maker) {
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
    long array(int kind, int length) {
        return align(base[kind] + scale[kind] * (long) length);
    }

    /** @return bytes of this object via the JVM (instances; slow-ish, callers cache it) */
    long measured(Object o) {
        return inst == null ? 16 : inst.getObjectSize(o);
    }

    /** @return bytes of a string and its value array, assuming Latin-1 content (compact strings) */
    long string(String s) {
        return stringShallow + array(BYTE, s.length());
    }

    /** @return bytes of any array, from its runtime class (reflective arrays, clones) */
    long anyArray(Object array) {
        Class<?> c = array.getClass().getComponentType();
        if (c == null) {
            return measured(array);
        }
        int n = java.lang.reflect.Array.getLength(array);
        return array(kindOf(c), n);
    }

    /** @return bytes of a multi-dimensional array and all its sub-arrays */
    long deepArray(Object array) {
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
