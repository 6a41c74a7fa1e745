package io.memscope;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of memscope, as built. */
public final class Version {
    private static final String VERSION = load();

    private Version() {
    }

    /** @return the version string of this build, for example {@code 0.1.0-SNAPSHOT}; {@code unknown} if the build lost it */
    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
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
