package io.memscope.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Base64;
import java.util.Map;
import java.util.Set;

/**
 * The push's {@code Authorization} header, from the environment variable {@value AgentOptions#PUSH_AUTH_ENV} or from
 * the file of option {@code pushAuthFile} (which only its owner may read or write), never from the agent argument
 * string. The value as given when it names its scheme ({@code Bearer abc}, {@code Basic dXNl...}); {@code user:token}
 * becomes HTTP Basic (Grafana Cloud's form); anything else a bearer token. Error messages name the file and what is
 * wrong with it, never its content.
 */
public final class PushAuth {
    private PushAuth() {
    }

    /**
     * @return the header's value, or null when neither the variable nor the file is given
     * @throws IllegalArgumentException the file cannot be read, is empty, or others may read it
     */
    public static String header(Map<String, String> env, Path file) {
        String v = env.get(AgentOptions.PUSH_AUTH_ENV);
        if ((v == null || v.isBlank()) && file != null) {
            v = read(file);
        }
        if (v == null || v.isBlank()) {
            return null;
        }
        v = v.strip();
        if (v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("the push's authorization must be one line");
        }
        if (v.indexOf(' ') > 0) {
            return v;
        }
        if (v.indexOf(':') > 0) {
            return "Basic " + Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8));
        }
        return "Bearer " + v;
    }

    private static String read(Path file) {
        try {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("pushAuthFile " + file + " is not a file");
            }
            try {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
                for (PosixFilePermission p : perms) {
                    if (p != PosixFilePermission.OWNER_READ && p != PosixFilePermission.OWNER_WRITE) {
                        throw new IllegalArgumentException("pushAuthFile " + file + " may be read or run by others "
                                + "(" + java.nio.file.attribute.PosixFilePermissions.toString(perms)
                                + "): chmod 600 it");
                    }
                }
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: nothing to check
            }
            String s = Files.readString(file, StandardCharsets.UTF_8);
            if (s.isBlank()) {
                throw new IllegalArgumentException("pushAuthFile " + file + " is empty");
            }
            return s;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read pushAuthFile " + file + ": " + FileErrors.reason(e));
        }
    }
}
