package io.memscope.agent.capture;

import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Sample mode's heap sampler on the JVM's own allocation sampling (JVMTI {@code SampledObjectAlloc}, JEP 331):
 * the JVM samples each thread's allocations by bytes, as a Poisson process whose mean is the interval, from its
 * allocation slow path (TLAB refills), so the application's allocations pay nothing and allocations inside the JDK
 * are seen like any other. The native part is {@code libmemscope-sampler.so} (src/main/native), shipped in the
 * agent jar under {@value #RESOURCE}, copied to a private temporary file, loaded by {@code java.lang.MemscopeHooks}
 * (so that it belongs to {@code java.base}, see {@link Natives}) and deleted again.
 *
 * <p>Each sampled object arrives on the allocating thread in {@link #sampled}, which records it like a sample of the
 * bytecode hooks ({@link Capture#sampleJvmti}). Linux x86_64 only; elsewhere {@link #start} returns the reason and
 * the agent uses the bytecode sampler.
 *
 * <p>Return codes of the native methods: 0 = done; a positive number = a JVMTI error code ({@code jvmtiError});
 * -1 = no JVMTI 11 environment; -2 = a JNI failure (the callback method was not found).
 */
public final class JvmtiSampler {
    /** Where the library is in the agent jar. */
    public static final String RESOURCE = "native/linux-x86_64/libmemscope-sampler.so";

    /** null until the first {@link #load}; then "" when loaded, else why not. */
    private static String loadResult;
    private static volatile boolean active;

    private JvmtiSampler() {
    }

    /**
     * Loads the library (once per JVM) and enables the JVM's sampling with the given mean interval. Samples are
     * ignored until the capture's heap sampling is on.
     *
     * @param stackDepth frames kept per sampled stack (more are looked at to find the site)
     * @return null when sampling runs, else a one-line reason why not (the caller falls back to bytecode hooks)
     */
    public static synchronized String start(long intervalBytes, int stackDepth) {
        if (active) {
            return null;
        }
        if (intervalBytes > Integer.MAX_VALUE) {
            return "interval " + intervalBytes + " is above the JVM sampler's limit of " + Integer.MAX_VALUE
                    + " bytes";
        }
        String why = load();
        if (!why.isEmpty()) {
            return why;
        }
        warmUp();
        int rc;
        try {
            rc = start0((int) intervalBytes, Math.max(stackDepth, StackTable.SITE_SEARCH_FRAMES));
        } catch (Throwable t) {
            return "starting the JVMTI sampler failed: " + t;
        }
        if (rc != 0) {
            return "starting the JVMTI sampler failed: " + describe(rc);
        }
        active = true;
        return null;
    }

    /** Calls the hook class's sample methods past the JDK's method handle customization threshold (127). */
    private static void warmUp() {
        try {
            Class<?> c = Class.forName(io.memscope.agent.boot.BootHooks.NAME, false, null);
            c.getMethod("jvmtiWarmUp", int.class).invoke(null, 130);
        } catch (Throwable t) {
            // not warmed up: the 128th sample customizes on an application thread (a one-time error in its bytes)
        }
    }

    /** Disables the JVM's sampling event (detach, end of capture). Callbacks still in flight are ignored. */
    public static synchronized void stop() {
        if (!active) {
            return;
        }
        active = false;
        int rc = stop0();
        if (rc != 0) {
            io.memscope.error.Failures.report("agent.jvmti.stop",
                    new IllegalStateException("stopping the JVMTI sampler: " + describe(rc)));
        }
    }

    /** @return whether the JVM's sampler is enabled by memscope */
    public static boolean active() {
        return active;
    }

    private static String describe(int rc) {
        return rc == -1 ? "no JVMTI 11 environment in this JVM"
                : rc == -2 ? "JNI error while binding the callback" : "JVMTI error " + rc;
    }

    private static String load() {
        if (loadResult != null) {
            return loadResult;
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            loadResult = "no JVMTI sampler library for " + os + "/" + arch + " (Linux x86_64 only)";
            return loadResult;
        }
        Path tmp = null;
        try (InputStream in = JvmtiSampler.class.getClassLoader() == null ? null
                : JvmtiSampler.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                loadResult = RESOURCE + " is missing from the agent jar";
                return loadResult;
            }
            tmp = Files.createTempFile("memscope-sampler-", ".so",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            natives().load.invokeExact(tmp.toAbsolutePath().toString());
            loadResult = "";
        } catch (Throwable t) {
            loadResult = "cannot load the JVMTI sampler library: " + t;
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp); // mapped already: the file is not needed any more
                } catch (Throwable ignored) {
                    // a temporary file left behind; nothing else to do
                }
            }
        }
        return loadResult;
    }

    /** What {@link #sampled} answers when it needs the stack's frames ({@link #sampledFrames} follows). */
    public static final int NEED_FRAMES = 1;

    /**
     * Called by the native callback (through {@code java.lang.MemscopeHooks.jvmtiSampled}) on the allocating thread
     * for each object the JVM sampled, with a hash of its raw stack. Public for that class's method handle; not an
     * API. Never throws.
     *
     * @param o          the new object (its constructor may not have run yet)
     * @param type       its exact class
     * @param size       its size in bytes as the JVM allocated it
     * @param stackHash  the library's 64-bit hash of the stack's raw (jmethodID, bytecode index) pairs
     * @param frameCount frames in that stack (0 when the JVM gave none)
     * @return {@link #NEED_FRAMES} when the stack was not seen before and the sample waits for
     *         {@link #sampledFrames}, else 0 (recorded, or ignored)
     */
    public static int sampled(Object o, Class<?> type, long size, long stackHash, int frameCount) {
        if (!Hooks.heapSampling || type == null) { // no type: a warm-up call (MemscopeHooks.jvmtiWarmUp)
            return 0;
        }
        long before = OwnBytes.before();
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return 0;
        }
        int r = Capture.sampleJvmti(ts, o, type, size, stackHash, frameCount, null);
        if (r == NEED_FRAMES) {
            ts.ownBefore = before; // the library allocates the frames' long[] before the second call: measure both
        } else {
            OwnBytes.after(ts, before);
        }
        return r;
    }

    /**
     * The same sample after {@link #sampled} answered {@link #NEED_FRAMES}, with the frames: pairs (jmethodID,
     * bytecode index; -1 in a native method), top frame first, at most {@link StackTable#SITE_SEARCH_FRAMES} or
     * {@code stackDepth} frames. Never throws.
     */
    public static void sampledFrames(Object o, Class<?> type, long size, long stackHash, long[] frames) {
        if (!Hooks.heapSampling || frames == null) {
            return;
        }
        long fresh = OwnBytes.before();
        ThreadState ts = ThreadState.current();
        if (ts == null || ts.busy) {
            return;
        }
        long before = ts.ownBefore >= 0 ? ts.ownBefore : fresh;
        ts.ownBefore = -1;
        Capture.sampleJvmti(ts, o, type, size, stackHash, frames.length / 2, frames);
        OwnBytes.after(ts, before);
    }

    /**
     * A method of a sampled stack, resolved once: {@code [class name, method name, source file or null]} and its
     * line number table, or null when the method is gone (its class was unloaded) or the JVM cannot say.
     */
    static String[] describe(long method) {
        String s = describe0(method);
        if (s == null) {
            return null;
        }
        // indexOf, not String.split: this runs inside the JVM's sampling callback, where as little JDK code as
        // possible should run (split uses ArrayList.subList)
        int t1 = s.indexOf('\t');
        int t2 = t1 < 0 ? -1 : s.indexOf('\t', t1 + 1);
        if (t2 < 0 || s.indexOf('\t', t2 + 1) >= 0 || t1 < 3 || s.charAt(0) != 'L') {
            return null;
        }
        String cls = s.substring(1, t1 - 1).replace('/', '.');
        String file = s.substring(t2 + 1);
        return new String[] {cls, s.substring(t1 + 1, t2), file.isEmpty() ? null : file};
    }

    /** @return the method's line number table as pairs (first bytecode index, line), or null */
    static int[] lines(long method) {
        return lines0(method);
    }

    private static int start0(int intervalBytes, int frames) throws Throwable {
        return (int) natives().start.invokeExact(intervalBytes, frames);
    }

    private static int stop0() {
        try {
            return (int) natives().stop.invokeExact();
        } catch (Throwable t) {
            return -2;
        }
    }

    private static String describe0(long method) {
        try {
            return (String) natives().describe.invokeExact(method);
        } catch (Throwable t) {
            return null;
        }
    }

    private static int[] lines0(long method) {
        try {
            return (int[]) natives().lines.invokeExact(method);
        } catch (Throwable t) {
            return null;
        }
    }

    /**
     * The library's entry points, declared by {@code java.lang.MemscopeHooks} (see {@code MemscopeHooksTemplate}):
     * the library is loaded by that class, so it belongs to {@code java.base} (native access: no restricted-method
     * warning on JDK 24+) and its JNI functions bind to that class's native methods.
     */
    private static final class Natives {
        final MethodHandle load;
        final MethodHandle start;
        final MethodHandle stop;
        final MethodHandle describe;
        final MethodHandle lines;

        Natives() throws ReflectiveOperationException {
            Class<?> c = Class.forName(io.memscope.agent.boot.BootHooks.NAME, false, null);
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            load = l.findStatic(c, "jvmtiLoad", MethodType.methodType(void.class, String.class));
            start = l.findStatic(c, "jvmtiStart0", MethodType.methodType(int.class, int.class, int.class));
            stop = l.findStatic(c, "jvmtiStop0", MethodType.methodType(int.class));
            describe = l.findStatic(c, "jvmtiDescribe0", MethodType.methodType(String.class, long.class));
            lines = l.findStatic(c, "jvmtiLines0", MethodType.methodType(int[].class, long.class));
        }
    }

    private static volatile Natives natives;

    private static Natives natives() throws ReflectiveOperationException {
        Natives n = natives;
        if (n == null) {
            n = new Natives();
            natives = n;
        }
        return n;
    }
}
