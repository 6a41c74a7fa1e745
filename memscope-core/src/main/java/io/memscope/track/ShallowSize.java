package io.memscope.track;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * The shallow size of an object (its own header and fields, not what they refer to) as HotSpot lays it out,
 * computed without an agent: from the JVM's layout flags ({@code UseCompressedOops},
 * {@code UseCompressedClassPointers}, {@code UseCompactObjectHeaders}, {@code ObjectAlignmentInBytes}, read once
 * through {@code HotSpotDiagnosticMXBean}) and the class's declared instance fields. Arrays are exact (header,
 * length and elements, aligned). Instances are an estimate: HotSpot packs fields to avoid gaps, and this
 * computes header + fields with the one gap it cannot avoid (an 8-byte field after a 12-byte header when no
 * smaller field can fill it), aligned; hidden fields the JVM injects into some JDK classes are not seen. With the
 * memscope agent, tracked objects are measured exactly ({@code Instrumentation.getObjectSize}) instead.
 */
final class ShallowSize {
    private static final int HEADER;
    private static final int REFERENCE;
    private static final int ALIGN;
    private static final boolean COMPACT;

    static {
        boolean oops = true;
        boolean classPointers = true;
        boolean compact = false;
        int align = 8;
        try {
            com.sun.management.HotSpotDiagnosticMXBean hs =
                    ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            oops = flag(hs, "UseCompressedOops", true);
            classPointers = flag(hs, "UseCompressedClassPointers", true);
            compact = flag(hs, "UseCompactObjectHeaders", false);
            try {
                align = Integer.parseInt(hs.getVMOption("ObjectAlignmentInBytes").getValue());
            } catch (RuntimeException e) {
                align = 8;
            }
        } catch (Throwable t) {
            // not HotSpot: the usual 64-bit layout
        }
        COMPACT = compact;
        HEADER = compact ? 8 : classPointers ? 12 : 16;
        REFERENCE = oops ? 4 : 8;
        ALIGN = align;
    }

    private static final ClassValue<Long> INSTANCE = new ClassValue<>() {
        @Override
        protected Long computeValue(Class<?> type) {
            return instance(type);
        }
    };

    private ShallowSize() {
    }

    private static boolean flag(com.sun.management.HotSpotDiagnosticMXBean hs, String name, boolean otherwise) {
        try {
            return Boolean.parseBoolean(hs.getVMOption(name).getValue());
        } catch (RuntimeException e) {
            return otherwise; // the flag does not exist in this JVM
        }
    }

    /** @return the object's shallow size in bytes (see the class comment for how exact) */
    static long of(Object o) {
        Class<?> c = o.getClass();
        if (c.isArray()) {
            int length = java.lang.reflect.Array.getLength(o);
            Class<?> e = c.getComponentType();
            int element = e.isPrimitive() ? primitive(e) : REFERENCE;
            long base = HEADER + 4;
            if (element == 8 || !COMPACT) {
                base = align(base, 8);
            }
            return align(base + (long) length * element, ALIGN);
        }
        return INSTANCE.get(c);
    }

    /** @return whether {@link #of} is exact for this object (arrays) rather than an estimate */
    static boolean exact(Object o) {
        return o.getClass().isArray();
    }

    private static long instance(Class<?> type) {
        long fields = 0;
        boolean wide = false;
        boolean small = false;
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                Class<?> t = f.getType();
                int size = t.isPrimitive() ? primitive(t) : REFERENCE;
                fields += size;
                wide |= size == 8;
                small |= size < 8;
            }
        }
        long size = HEADER + fields;
        if (wide && HEADER % 8 != 0 && !small) {
            size += 8 - HEADER % 8;
        }
        return Math.max(align(size, ALIGN), align(HEADER, ALIGN));
    }

    private static int primitive(Class<?> t) {
        if (t == long.class || t == double.class) {
            return 8;
        }
        if (t == int.class || t == float.class) {
            return 4;
        }
        if (t == short.class || t == char.class) {
            return 2;
        }
        return 1;
    }

    private static long align(long n, int to) {
        return (n + to - 1) / to * to;
    }
}
