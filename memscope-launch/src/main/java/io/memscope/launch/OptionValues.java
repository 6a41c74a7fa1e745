package io.memscope.launch;

import java.math.BigDecimal;
import java.math.RoundingMode;
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

    /** What {@link #parseBytes} accepts, for messages. */
    public static final String BYTES_FORM = "a size like 4096, 512k, 50MB or 1.5GiB (units are powers of 1024)";

    /**
     * Parses a size in bytes: a number with an optional unit, {@code 524288}, {@code 512k}, {@code 50MB},
     * {@code 1.5GiB}. The number is whole or decimal ({@code _} is ignored: {@code 1_000}); the unit is {@code B},
     * {@code K}/{@code KB}/{@code KiB}, {@code M}/{@code MB}/{@code MiB}, {@code G}/{@code GB}/{@code GiB} or
     * {@code T}/{@code TB}/{@code TiB}, case-insensitive, powers of 1024 whatever its spelling (as the JVM's
     * {@code -Xmx}), optionally after a space. A decimal is rounded down to whole bytes. The agent's options and the
     * command line read sizes here; the JUnit extension's annotations, which may not depend on this module, read the
     * same grammar (its tests check that both agree), so a size means the same wherever it is written.
     *
     * @throws IllegalArgumentException for anything else: a negative number, another unit, more than
     *                                  {@link Long#MAX_VALUE} bytes ({@link #BYTES_FORM} in its message)
     */
    public static long parseBytes(String v) {
        String s = v == null ? "" : v.trim().replace("_", "").toLowerCase(Locale.ROOT);
        int end = 0;
        while (end < s.length() && (Character.isDigit(s.charAt(end)) || s.charAt(end) == '.')) {
            end++;
        }
        int shift = switch (s.substring(end).trim()) {
            case "", "b" -> 0;
            case "k", "kb", "kib" -> 10;
            case "m", "mb", "mib" -> 20;
            case "g", "gb", "gib" -> 30;
            case "t", "tb", "tib" -> 40;
            default -> -1;
        };
        try {
            if (shift < 0) {
                throw new NumberFormatException();
            }
            BigDecimal bytes = new BigDecimal(s.substring(0, end)).multiply(BigDecimal.valueOf(1L << shift));
            return bytes.setScale(0, RoundingMode.FLOOR).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("expected " + BYTES_FORM);
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
