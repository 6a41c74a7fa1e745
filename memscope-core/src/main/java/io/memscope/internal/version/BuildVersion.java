package io.memscope.internal.version;

import io.memscope.Memscope;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of memscope, as built: {@code version.properties} beside {@link Memscope} (relative to its class, so
 * that the agent's relocated copy reads its own relocated copy of the file); {@code Memscope.version()} is its
 * public face.
 */
public final class BuildVersion {
    private static final String VERSION = load();

    private BuildVersion() {
    }

    /** @return the version string of this build, for example {@code 0.1.0-SNAPSHOT}; {@code unknown} if the build lost it */
    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = Memscope.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
