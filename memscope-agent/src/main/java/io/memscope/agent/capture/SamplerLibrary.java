package io.memscope.agent.capture;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Locale;

/**
 * The JVMTI sampler library ({@code libmemscope-sampler.so}, src/main/native) and its entry points: loaded once per
 * JVM, shipped in the agent jar under {@value #RESOURCE}, copied to a private temporary file, loaded by
 * {@code java.lang.MemscopeHooks} (so that it belongs to {@code java.base}: native access without a warning on JDK
 * 24+, and the JNI functions bind to that class's native methods) and deleted again.
 *
 * <p>The library queues the JVM's heap samples in C and never calls Java; {@link JvmtiHeapSampler} drives one
 * capture's use of it. Linux x86_64 only; elsewhere {@link #load} returns the reason.
 *
 * <p>Return codes of the native methods: 0 = done; a positive number = a JVMTI error code ({@code jvmtiError});
 * -1 = no JVMTI 11 environment; -2 = a JNI failure; -3 = a capture is still open; -4 = a callback did not return
 * within 5 s (its buffers are then never freed); -5 = out of memory.
 */
final class SamplerLibrary {
    /** Where the library is in the agent jar. */
    static final String RESOURCE = "native/linux-x86_64/libmemscope-sampler.so";

    /** null until the first {@link #load}; then "" when loaded, else why not. */
    private static String loadResult;
    private static Natives natives;

    private SamplerLibrary() {
    }

    /** @return "" when the library is loaded (now or before), else a one-line reason why it cannot be */
    static synchronized String load() {
        if (loadResult != null) {
            return loadResult;
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            loadResult = "no JVMTI sampler library for " + os + "/" + arch + " (Linux x86_64 only)";
            return loadResult;
        }
        File tmp = null;
        try {
            byte[] library = io.memscope.agent.boot.AgentJar.read(RESOURCE);
            if (library == null) {
                loadResult = RESOURCE + " is missing from the agent jar";
                return loadResult;
            }
            tmp = privateFile();
            try (FileOutputStream out = new FileOutputStream(tmp)) {
                out.write(library);
            }
            Natives n = new Natives();
            n.load.invokeExact(tmp.getAbsolutePath());
            natives = n;
            loadResult = "";
        } catch (Throwable t) {
            loadResult = "cannot load the JVMTI sampler library: " + t;
        } finally {
            if (tmp != null && !tmp.delete()) {
                tmp.deleteOnExit(); // mapped already: the file is not needed any more
            }
        }
        return loadResult;
    }

    /**
     * A new file readable by this user only, in the temporary directory. Not {@code Files.createTempFile}: its
     * {@code SecureRandom} loads and seeds the JDK's security providers, tens of milliseconds at start-up; the name
     * needs to be unique, not unguessable ({@code createNewFile} refuses an existing file or link).
     */
    private static File privateFile() throws IOException {
        File dir = new File(System.getProperty("java.io.tmpdir"));
        long seed = System.nanoTime();
        for (int attempt = 0; ; attempt++) {
            File f = new File(dir, "memscope-sampler-" + Long.toHexString(seed + attempt) + ".so");
            if (f.createNewFile()) {
                f.setReadable(false, false);
                f.setWritable(false, false);
                f.setReadable(true, true);
                f.setWritable(true, true);
                return f;
            }
            if (attempt > 100) {
                throw new IOException("cannot create a file in " + dir);
            }
        }
    }

    /** @return the entry points; only after {@link #load} returned "" */
    static Natives natives() {
        return natives;
    }

    /** @return a one-line description of a native return code */
    static String describe(int rc) {
        switch (rc) {
            case -1:
                return "no JVMTI 11 environment in this JVM";
            case -2:
                return "JNI error";
            case -3:
                return "the previous capture's sampler was not closed";
            case -4:
                return "a sampling callback did not return within 5 s";
            case -5:
                return "out of memory for the sampler's buffers";
            default:
                return "JVMTI error " + rc;
        }
    }

    /**
     * The library's entry points used to start a capture, declared by {@code java.lang.MemscopeHooks} (see
     * {@code MemscopeHooksTemplate}), as method handles: that class is defined at run time, so the agent cannot link
     * to it directly. The drain thread's are in {@link DrainNatives}, made when it first needs them (not inside the
     * application's start-up).
     */
    static final class Natives {
        final MethodHandle load;
        final MethodHandle start;

        Natives() throws ReflectiveOperationException {
            Class<?> c = hooks();
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            load = l.findStatic(c, "jvmtiLoad", MethodType.methodType(void.class, String.class));
            start = l.findStatic(c, "jvmtiStart0", MethodType.methodType(int.class, int.class, int.class, long.class,
                    int.class, boolean.class));
        }
    }

    /** The entry points of the drain thread and of the end of a capture (see {@link Natives}). */
    static final class DrainNatives {
        static final DrainNatives INSTANCE = create();

        final MethodHandle ownThread;
        final MethodHandle pause;
        final MethodHandle close;
        final MethodHandle wake;
        final MethodHandle counters;
        final MethodHandle await;
        final MethodHandle drain;
        final MethodHandle commit;
        final MethodHandle scan;
        final MethodHandle held;
        final MethodHandle collections;
        final MethodHandle className;
        final MethodHandle thread;
        final MethodHandle describe;
        final MethodHandle lines;

        private DrainNatives() throws ReflectiveOperationException {
            Class<?> c = hooks();
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            ownThread = l.findStatic(c, "jvmtiOwnThread0", MethodType.methodType(void.class, long.class));
            pause = l.findStatic(c, "jvmtiPause0", MethodType.methodType(int.class));
            close = l.findStatic(c, "jvmtiClose0", MethodType.methodType(int.class));
            wake = l.findStatic(c, "jvmtiWake0", MethodType.methodType(void.class));
            counters = l.findStatic(c, "jvmtiCounters0", MethodType.methodType(void.class, long[].class));
            await = l.findStatic(c, "jvmtiAwait0", MethodType.methodType(void.class, long.class));
            drain = l.findStatic(c, "jvmtiDrain0", MethodType.methodType(int.class, long[].class, long[].class,
                    boolean.class));
            commit = l.findStatic(c, "jvmtiCommit0", MethodType.methodType(void.class, long[].class, int.class));
            scan = l.findStatic(c, "jvmtiScan0", MethodType.methodType(int.class, long[].class, boolean.class));
            held = l.findStatic(c, "jvmtiHeld0", MethodType.methodType(long[].class, long.class, long.class,
                    long[].class, long.class));
            collections = l.findStatic(c, "jvmtiCollections0", MethodType.methodType(int.class, long[].class,
                    int.class));
            className = l.findStatic(c, "jvmtiClassName0", MethodType.methodType(String.class, int.class));
            thread = l.findStatic(c, "jvmtiThread0", MethodType.methodType(Object.class, long.class));
            describe = l.findStatic(c, "jvmtiDescribe0", MethodType.methodType(String.class, long.class));
            lines = l.findStatic(c, "jvmtiLines0", MethodType.methodType(int[].class, long.class));
        }

        private static DrainNatives create() {
            try {
                return new DrainNatives();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("the sampler library's entry points: " + e, e);
            }
        }
    }

    private static Class<?> hooks() throws ClassNotFoundException {
        return Class.forName(io.memscope.agent.boot.BootHooks.NAME, false, null);
    }
}
