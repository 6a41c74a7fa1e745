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
        Path tmp = null;
        ClassLoader loader = SamplerLibrary.class.getClassLoader();
        try (InputStream in = loader == null ? null : loader.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                loadResult = RESOURCE + " is missing from the agent jar";
                return loadResult;
            }
            tmp = privateFile();
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            Natives n = new Natives();
            n.load.invokeExact(tmp.toAbsolutePath().toString());
            natives = n;
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

    /**
     * A new file readable by this user only, in the temporary directory. Not {@code Files.createTempFile}: its
     * {@code SecureRandom} loads and seeds the JDK's security providers, tens of milliseconds at start-up; the name
     * needs to be unique, not unguessable ({@code CREATE_NEW} refuses an existing file or link).
     */
    private static Path privateFile() throws java.io.IOException {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        long seed = System.nanoTime() ^ ProcessHandle.current().pid() << 32;
        for (int attempt = 0; ; attempt++) {
            Path p = dir.resolve("memscope-sampler-" + ProcessHandle.current().pid() + "-"
                    + Long.toHexString(seed + attempt) + ".so");
            try {
                return Files.createFile(p,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
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
     * The library's entry points, declared by {@code java.lang.MemscopeHooks} (see {@code MemscopeHooksTemplate}),
     * as method handles: that class is defined at run time, so the agent cannot link to it directly.
     */
    static final class Natives {
        final MethodHandle load;
        final MethodHandle start;
        final MethodHandle ownThread;
        final MethodHandle pause;
        final MethodHandle close;
        final MethodHandle await;
        final MethodHandle wake;
        final MethodHandle drain;
        final MethodHandle className;
        final MethodHandle thread;
        final MethodHandle commit;
        final MethodHandle scan;
        final MethodHandle collections;
        final MethodHandle counters;
        final MethodHandle describe;
        final MethodHandle lines;

        Natives() throws ReflectiveOperationException {
            Class<?> c = Class.forName(io.memscope.agent.boot.BootHooks.NAME, false, null);
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            load = l.findStatic(c, "jvmtiLoad", MethodType.methodType(void.class, String.class));
            start = l.findStatic(c, "jvmtiStart0", MethodType.methodType(int.class, int.class, int.class, long.class,
                    int.class, boolean.class));
            ownThread = l.findStatic(c, "jvmtiOwnThread0", MethodType.methodType(void.class, long.class));
            pause = l.findStatic(c, "jvmtiPause0", MethodType.methodType(int.class));
            close = l.findStatic(c, "jvmtiClose0", MethodType.methodType(int.class));
            await = l.findStatic(c, "jvmtiAwait0", MethodType.methodType(void.class, long.class));
            wake = l.findStatic(c, "jvmtiWake0", MethodType.methodType(void.class));
            drain = l.findStatic(c, "jvmtiDrain0", MethodType.methodType(int.class, long[].class, long[].class,
                    boolean.class));
            className = l.findStatic(c, "jvmtiClassName0", MethodType.methodType(String.class, int.class));
            thread = l.findStatic(c, "jvmtiThread0", MethodType.methodType(Object.class, long.class));
            commit = l.findStatic(c, "jvmtiCommit0", MethodType.methodType(void.class, long[].class, int.class));
            scan = l.findStatic(c, "jvmtiScan0", MethodType.methodType(int.class, long[].class, boolean.class));
            collections = l.findStatic(c, "jvmtiCollections0", MethodType.methodType(int.class, long[].class,
                    int.class));
            counters = l.findStatic(c, "jvmtiCounters0", MethodType.methodType(void.class, long[].class));
            describe = l.findStatic(c, "jvmtiDescribe0", MethodType.methodType(String.class, long.class));
            lines = l.findStatic(c, "jvmtiLines0", MethodType.methodType(int[].class, long.class));
        }
    }
}
