package io.memscope.agent.boot;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Reads entries of the agent jar straight from the file. Not {@code getResourceAsStream}: its first use sets up the
 * JDK's URL and jar-connection machinery, milliseconds of the application's start-up for two small entries.
 */
public final class AgentJar {
    /** The jar, open from the first {@link #read} to {@link #release} (the agent's start reads two entries). */
    private static ZipFile open;

    private AgentJar() {
    }

    /** Closes the jar (the end of the agent's start); a later {@link #read} opens it again. */
    public static synchronized void release() {
        ZipFile z = open;
        open = null;
        if (z != null) {
            try {
                z.close();
            } catch (IOException ignored) {
                // read-only: nothing lost
            }
        }
    }

    /**
     * @param entry an entry name ({@code native/linux-x86_64/libmemscope-sampler.so}), relative to the jar's root
     * @return its bytes, or null when it is not there
     */
    public static synchronized byte[] read(String entry) throws IOException {
        if (open == null) {
            File jar = jar();
            open = jar != null && jar.isFile() ? new ZipFile(jar) : null;
        }
        if (open != null) {
            ZipEntry e = open.getEntry(entry);
            if (e == null) {
                return null;
            }
            try (InputStream in = open.getInputStream(e)) {
                return in.readAllBytes();
            }
        }
        // classes in a directory (this module's own tests)
        ClassLoader l = AgentJar.class.getClassLoader();
        try (InputStream in = l == null ? null : l.getResourceAsStream(entry)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    /** @return the jar the agent's classes come from, or null */
    private static File jar() {
        try {
            java.security.CodeSource cs = AgentJar.class.getProtectionDomain().getCodeSource();
            return cs == null ? null : new File(cs.getLocation().toURI());
        } catch (Exception e) {
            return null;
        }
    }
}
