package io.memscope.agent.capture;

import io.memscope.recording.Recording.ProcessMemorySamples;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The JDK's buffer pools for the process sampler ({@link ProcessMemorySampler}): the memory used by the {@code direct}
 * pool and by the {@code mapped} pools, what the {@code BufferPoolMXBean}s of those names report, read from the JDK's
 * own pools without making the beans (which would load the file channel classes into every JVM). -1 where unknown;
 * each failure handed to the sampler's count, never thrown.
 *
 * <p>Not thread-safe: the sampling thread reads it.
 */
final class JdkBufferPools {
    /** Looks for the file channel class at most this often (a scan lists every loaded class). */
    static final long CLASS_SCAN_NANOS = 5_000_000_000L;

    private final Consumer<Throwable> failed;
    /** The JDK's {@code direct} buffer pool's memory used, as {@code BufferPoolMXBean} reports it; null unknown. */
    private java.lang.invoke.MethodHandle direct;
    /** Why the direct buffer pool could not be read, or null. */
    private String directWhyNot;
    /**
     * {@code sun.nio.ch.FileChannelImpl} once the JVM loaded it (found among the loaded classes, never loaded by the
     * agent: {@code FileChannel} and its 30 classes are not loaded into JVMs that do not use them), to see whether
     * mapped buffers can exist yet; null before.
     */
    private Class<?> fileChannels;
    private java.lang.instrument.Instrumentation inst;
    /** When to look for {@link #fileChannels} among the loaded classes next. */
    private long nextClassScan;
    /** The JDK's mapped buffer pools' memory used, once {@link #fileChannels} is initialised; null before. */
    private java.lang.invoke.MethodHandle[] mapped;
    /** {@code Unsafe.shouldBeInitialized(Class)} (jdk.internal.misc, exported to the agent at start). */
    private java.lang.invoke.MethodHandle initialised;

    /** @param failed counts a failure (the pool read then stays unknown) */
    JdkBufferPools(Consumer<Throwable> failed) {
        this.failed = failed;
    }

    /**
     * Finds the direct pool. Never throws.
     *
     * @param inst opens the JDK's packages to the agent (else both pools are unknown)
     */
    void start(java.lang.instrument.Instrumentation inst, long nowNanos) {
        direct = directPool(inst);
        this.inst = inst;
        nextClassScan = nowNanos;
    }

    /** @return {@code unknown: <why>} when the direct pool cannot be read, else null */
    String directUnknown() {
        return direct == null ? "unknown: " + directWhyNot : null;
    }

    private void failed(Throwable t) {
        failed.accept(t);
    }

    /**
     * The {@code direct} buffer pool the {@code BufferPoolMXBean} named "direct" reads, taken from the JDK directly:
     * asking {@code ManagementFactory} for the buffer pool beans also makes the {@code mapped} ones, whose home is
     * {@code sun.nio.ch.FileChannelImpl}, and would load the file channel machinery (about 30 classes) into every
     * JVM, which the agent otherwise never needs. So the mapped pools are read only once the JVM loaded and
     * initialised that class ({@link #mappedUsed}).
     */
    private java.lang.invoke.MethodHandle directPool(java.lang.instrument.Instrumentation inst) {
        try {
            if (inst != null) {
                Module base = Object.class.getModule();
                Module self = JdkBufferPools.class.getModule();
                inst.redefineModule(base, java.util.Set.of(), Map.of("jdk.internal.access", java.util.Set.of(self),
                        "jdk.internal.misc", java.util.Set.of(self), "sun.nio.ch", java.util.Set.of(self)), Map.of(),
                        java.util.Set.of(), Map.of());
            }
            Object access = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaNioAccess")
                    .invoke(null);
            java.lang.reflect.Method getPool = Class.forName("jdk.internal.access.JavaNioAccess")
                    .getMethod("getDirectBufferPool");
            Object pool = getPool.invoke(access);
            java.lang.reflect.Method used = getPool.getReturnType().getMethod("getMemoryUsed");
            // this module's lookup: the packages are exported to it only (a public lookup would not see them)
            return java.lang.invoke.MethodHandles.lookup().unreflect(used).bindTo(pool)
                    .asType(java.lang.invoke.MethodType.methodType(long.class));
        } catch (Throwable t) {
            directWhyNot = String.valueOf(t); // a JDK without it: the direct part is unknown
            return null;
        }
    }

    /** @return the direct buffer pool's memory used, or -1 when unknown */
    long directUsed() {
        java.lang.invoke.MethodHandle h = direct;
        if (h == null) {
            return ProcessMemorySamples.UNKNOWN;
        }
        try {
            return Math.max(-1, (long) h.invokeExact());
        } catch (Throwable t) {
            direct = null;
            failed(t);
            return ProcessMemorySamples.UNKNOWN;
        }
    }

    /**
     * The mapped buffer pools ({@code mapped}, and {@code mapped - 'non-volatile memory'}) added up: what the
     * {@code BufferPoolMXBean}s of those names report. Only once {@code FileChannelImpl} is initialised, which every
     * {@code FileChannel.map} needs: before that no mapped buffer exists (0), and the agent neither loads nor
     * initialises the file channel machinery itself (it looks for the class among the loaded ones every
     * {@link #CLASS_SCAN_NANOS}). Mapped buffers are file-backed: they are part of {@code rssFile}.
     */
    long mappedUsed() {
        java.lang.invoke.MethodHandle[] h = mapped;
        if (h == null) {
            if (inst == null) {
                return ProcessMemorySamples.UNKNOWN;
            }
            Class<?> c = fileChannels;
            if (c == null) {
                long now = System.nanoTime();
                if (now - nextClassScan < 0) {
                    return 0;
                }
                nextClassScan = now + CLASS_SCAN_NANOS;
                c = fileChannels = loadedFileChannels(inst);
                if (c == null) {
                    return 0; // not loaded: no file was ever mapped
                }
            }
            try {
                if (initialised == null) {
                    Class<?> unsafe = Class.forName("jdk.internal.misc.Unsafe");
                    initialised = java.lang.invoke.MethodHandles.lookup().unreflect(
                            unsafe.getMethod("shouldBeInitialized", Class.class))
                            .bindTo(unsafe.getMethod("getUnsafe").invoke(null));
                }
                if ((boolean) initialised.invoke(c)) {
                    return 0;
                }
                h = mapped = mappedPools(c);
            } catch (Throwable t) {
                inst = null;
                failed(t);
                return ProcessMemorySamples.UNKNOWN;
            }
        }
        try {
            long sum = 0;
            for (java.lang.invoke.MethodHandle m : h) {
                sum += (long) m.invokeExact();
            }
            return Math.max(-1, sum);
        } catch (Throwable t) {
            inst = null;
            mapped = null;
            failed(t);
            return ProcessMemorySamples.UNKNOWN;
        }
    }

    private static Class<?> loadedFileChannels(java.lang.instrument.Instrumentation inst) {
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (c.getClassLoader() == null && c.getName().equals("sun.nio.ch.FileChannelImpl")) {
                return c;
            }
        }
        return null;
    }

    private static java.lang.invoke.MethodHandle[] mappedPools(Class<?> fileChannels) throws Exception {
        List<java.lang.invoke.MethodHandle> pools = new ArrayList<>();
        for (String getter : new String[] {"getMappedBufferPool", "getSyncMappedBufferPool"}) {
            java.lang.reflect.Method get;
            try {
                get = fileChannels.getMethod(getter);
            } catch (NoSuchMethodException e) {
                continue; // a JDK without non-volatile mappings
            }
            Object pool = get.invoke(null);
            java.lang.reflect.Method used = get.getReturnType().getMethod("getMemoryUsed");
            pools.add(java.lang.invoke.MethodHandles.lookup().unreflect(used).bindTo(pool)
                    .asType(java.lang.invoke.MethodType.methodType(long.class)));
        }
        if (pools.isEmpty()) {
            throw new NoSuchMethodException("FileChannelImpl.getMappedBufferPool");
        }
        return pools.toArray(new java.lang.invoke.MethodHandle[0]);
    }
}
