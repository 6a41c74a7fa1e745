package io.memscope.launch;

import java.util.List;
import java.util.Locale;

/**
 * The program's command line as the recording keeps it ({@code metadata.command}, shown in every report): with the
 * values of arguments that look like secrets replaced by {@value #MASK}. An argument looks like a secret when its
 * name contains one of the secret words (case-insensitive; {@link #DEFAULT_WORDS} unless the {@code secrets} option
 * names others):
 *
 * <ul>
 * <li>{@code NAME=VALUE} and {@code NAME:VALUE} ({@code --db-password=hunter2}, {@code -Dapi.token=abc},
 *     {@code secret:xyz}): the value;</li>
 * <li>a flag followed by its value ({@code --password hunter2}, {@code -token abc}): the next argument, unless it is a
 *     flag itself;</li>
 * <li>credentials in a URL ({@code jdbc:postgresql://user:hunter2@db/app}): the password, whatever the words.</li>
 * </ul>
 *
 * The command line is split at spaces (as the JVM reports it, {@code sun.java.command}); nothing else is recorded of
 * the program's arguments or environment.
 */
final class CommandLineMask {
    /** What a masked value is replaced with. */
    static final String MASK = "***";
    /** The default secret words. */
    static final List<String> DEFAULT_WORDS = List.of("password", "passwd", "pwd", "secret", "token", "key",
            "credential", "auth", "private");

    private final List<String> words;

    /** @param words secret words, lower case */
    CommandLineMask(List<String> words) {
        this.words = words;
    }

    /** @return {@code command} with the values that look like secrets masked */
    String mask(String command) {
        String[] args = command.split(" ", -1);
        StringBuilder out = new StringBuilder(command.length());
        boolean maskNext = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i > 0) {
                out.append(' ');
            }
            if (maskNext && !a.isEmpty() && !a.startsWith("-")) {
                out.append(MASK);
                maskNext = false;
                continue;
            }
            maskNext = false;
            int sep = separator(a);
            if (sep > 0 && secret(a.substring(0, sep))) {
                out.append(a, 0, sep + 1).append(MASK);
            } else if (sep < 0 && a.startsWith("-") && secret(a)) {
                out.append(a);
                maskNext = true;
            } else {
                out.append(urlPasswordMasked(a));
            }
        }
        return out.toString();
    }

    /** @return the index of the first '=' or of a ':' not starting "://", or -1 */
    private static int separator(String a) {
        int eq = a.indexOf('=');
        int colon = a.indexOf(':');
        if (colon >= 0 && a.startsWith("//", colon + 1)) {
            colon = -1; // a URL's scheme
        }
        if (eq < 0) {
            return colon;
        }
        return colon < 0 ? eq : Math.min(eq, colon);
    }

    private boolean secret(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (String w : words) {
            if (!w.isEmpty() && n.contains(w)) {
                return true;
            }
        }
        return false;
    }

    /** {@code scheme://user:password@host} → {@code scheme://user:***@host} (anywhere in the argument). */
    private static String urlPasswordMasked(String a) {
        int scheme = a.indexOf("://");
        if (scheme < 0) {
            return a;
        }
        int start = scheme + 3;
        int end = start;
        while (end < a.length() && a.charAt(end) != '/' && a.charAt(end) != '?' && a.charAt(end) != '#') {
            end++;
        }
        int at = a.lastIndexOf('@', end - 1);
        if (at < start) {
            return a;
        }
        int colon = a.indexOf(':', start);
        if (colon < 0 || colon > at) {
            return a;
        }
        return a.substring(0, colon + 1) + MASK + urlPasswordMasked(a.substring(at));
    }
}
