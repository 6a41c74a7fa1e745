package io.memscope.agent.capture;

import io.memscope.agent.boot.SamplerNatives;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.Locale;

/**
 * The JVMTI sampler library ({@code libmemscope-sampler.so}, src/main/native) and its entry points: loaded once per
 * JVM, shipped in the agent jar under {@value #RESOURCE}, copied to a private temporary file, loaded by
 * {@code java.lang.MemscopeHooks} (so that it belongs to {@code java.base}: native access without a warning on JDK
 * 24+, and the JNI functions bind to that class's native methods) and deleted again.
 *
 * <p>The library queues the JVM's heap samples in C and never calls Java; {@link JvmtiHeapSampler} drives one
 * capture's use of it through {@link SamplerNatives}. Linux x86_64 only; elsewhere {@link #load} returns the reason.
 *
 * <p>Return codes of the native methods: 0 = done; a positive number = a JVMTI error code ({@code jvmtiError});
 * -1 = no JVMTI 11 environment; -2 = a JNI failure; -3 = a capture is still open; -4 = a callback did not return
 * within 5 s (its buffers are then never freed); -5 = out of memory.
 */
final class SamplerLibrary {
    /** Where the library is in the agent jar. */
    static final String RESOURCE = "native/linux-x86_64/libmemscope-sampler.so";

    /** null until the first {@link #load}; then "" when loaded, else why not. */
    private static volatile String loadResult;

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
        loadResult = loadResource(RESOURCE, "memscope-sampler-");
        return loadResult;
    }

    /**
     * Loads a library of the agent jar through {@code java.lang.MemscopeHooks}: copied to a private temporary file,
     * loaded, and the file deleted again (mapped already).
     *
     * @return "" when loaded, else a one-line reason
     */
    static String loadResource(String resource, String prefix) {
        File tmp = null;
        try {
            byte[] library = io.memscope.agent.boot.AgentJar.read(resource);
            if (library == null) {
                return resource + " is missing from the agent jar";
            }
            tmp = privateFile(prefix);
            try (FileOutputStream out = new FileOutputStream(tmp)) {
                out.write(library);
            }
            SamplerNatives.load(tmp.getAbsolutePath());
            return "";
        } catch (Throwable t) {
            return "cannot load " + resource + ": " + t;
        } finally {
            if (tmp != null && !tmp.delete()) {
                tmp.deleteOnExit(); // mapped already: the file is not needed any more
            }
        }
    }

    /**
     * A new file readable by this user only, in the temporary directory. Not {@code Files.createTempFile}: its
     * {@code SecureRandom} loads and seeds the JDK's security providers, tens of milliseconds at start-up; the name
     * needs to be unique, not unguessable ({@code createNewFile} refuses an existing file or link).
     */
    private static File privateFile(String prefix) throws IOException {
        File dir = new File(System.getProperty("java.io.tmpdir"));
        long seed = System.nanoTime();
        for (int attempt = 0; ; attempt++) {
            File f = new File(dir, prefix + Long.toHexString(seed + attempt) + ".so");
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

    /** @return whether the library is loaded ({@link #load} returned "") */
    static boolean loaded() {
        return "".equals(loadResult);
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
            case -6:
                return "the JVM's sampling interval is not between 1 byte and memscope's interval";
            default:
                return "JVMTI error " + rc;
        }
    }
}
