package io.memscope.launch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The parsers of option values, one home for each kind: sizes ({@code 512k}), durations ({@code 10s}), booleans,
 * bounded whole numbers, package-prefix lists and push labels. {@link AgentOptions} reads every agent option with
 * them; the CLI reads its own sizes and durations ({@code memscope paths --memory}, {@code --last}) with the same
 * ones, so that a value means the same wherever it is given. Each throws {@link IllegalArgumentException} with the
 * expected form, which the caller puts into its own message.
 */
public final class OptionValues {
    private OptionValues() {
    }

    /** Parses {@code 524288}, {@code 512k}, {@code 1m}, {@code 1g} (binary units, case-insensitive). */
    public static long parseBytes(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        long mult = 1;
        if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.endsWith("k")) {
            mult = 1024;
        } else if (s.endsWith("m")) {
            mult = 1024 * 1024;
        } else if (s.endsWith("g")) {
            mult = 1024L * 1024 * 1024;
        }
        if (mult != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(s.trim()), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("expected bytes like 524288, 512k or 1m");
        }
    }

    /** Parses {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1h}; a bare number is seconds. */
    public static long parseDurationMillis(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        long mult = 1000;
        if (s.endsWith("ms")) {
            mult = 1;
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("s")) {
            s = s.substring(0, s.length() - 1);
        } else if (s.endsWith("m")) {
            mult = 60_000;
            s = s.substring(0, s.length() - 1);
        } else if (s.endsWith("h")) {
            mult = 3_600_000;
            s = s.substring(0, s.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(s.trim()), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("expected a duration like 10s, 500ms or 1m");
        }
    }

    /** {@code k=v;k=v}: label names as Prometheus's, values without the characters of Pyroscope's name syntax. */
    static Map<String, String> labels(String v) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String part : v.split(";")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected k=v;k=v");
            }
            String k = part.substring(0, eq).trim();
            String value = part.substring(eq + 1).trim();
            if (!k.matches("[A-Za-z_][A-Za-z0-9_]*") || k.startsWith("__")) {
                throw new IllegalArgumentException("'" + k + "' is not a label name (letters, digits, _; not __...)");
            }
            if (value.isEmpty() || !value.matches("[^,{}=;\"\\\\\\s]+")) {
                throw new IllegalArgumentException("the value of label '" + k + "' must be non-empty, without spaces "
                        + "and without , { } = ; \" \\");
            }
            m.put(k, value);
        }
        return Collections.unmodifiableMap(m);
    }

    static long number(String v, long min, long max) {
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("expected a number from " + min + " to " + max);
        }
        return n;
    }

    static boolean bool(String v) {
        if (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes")) {
            return true;
        }
        if (v.equalsIgnoreCase("false") || v.equals("0") || v.equalsIgnoreCase("no")) {
            return false;
        }
        throw new IllegalArgumentException("expected true or false");
    }

    static List<String> prefixes(String v) {
        List<String> list = new ArrayList<>();
        for (String p : v.split("[;:]")) {
            p = p.trim();
            if (!p.isEmpty()) {
                if (!p.matches("[\\p{L}_$][\\p{L}\\p{N}_$.]*")) {
                    throw new IllegalArgumentException("'" + p + "' is not a package or class name prefix");
                }
                list.add(p.replace('.', '/'));
            }
        }
        return List.copyOf(list);
    }
}
