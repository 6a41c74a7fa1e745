package io.memscope.junit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import org.junit.platform.commons.PreconditionViolationException;

/** Byte sizes in annotations ({@code 50MB}, {@code 512k}, {@code 1.5GiB}, {@code 0}) and in messages. */
final class Sizes {
    private Sizes() {
    }

    /**
     * @param text a number, optionally with a unit: {@code B}, {@code K}/{@code KB}/{@code KiB}, {@code M}/{@code MB}/
     *             {@code MiB}, {@code G}/{@code GB}/{@code GiB}, {@code T}/{@code TB}/{@code TiB} (case-insensitive,
     *             powers of 1024, a decimal rounded down to whole bytes): the grammar of the agent's sizes
     *             ({@code interval=512k}), which this module may not depend on; SizesTest checks that both agree
     * @param what the annotation and attribute, for the message
     * @throws PreconditionViolationException for anything else (JUnit reports it as the test's failure)
     */
    static long parse(String text, String what) {
        String t = text == null ? "" : text.trim().replace("_", "").toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) {
            i++;
        }
        int shift = switch (t.substring(i).trim()) {
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
            // exact: a double would round sizes past 2^53 bytes
            BigDecimal bytes = new BigDecimal(t.substring(0, i)).multiply(BigDecimal.valueOf(1L << shift));
            return bytes.setScale(0, RoundingMode.FLOOR).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new PreconditionViolationException(what + ": '" + text + "' is not a size (examples: 0, 4096, "
                    + "512KB, 50MB, 1.5GB; units are powers of 1024)");
        }
    }

    /** @return {@code 12.3 MiB}, {@code 512 B}: three significant digits, powers of 1024 */
    static String format(long bytes) {
        long b = Math.abs(bytes);
        String sign = bytes < 0 ? "-" : "";
        if (b < 1024) {
            return sign + b + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        String n = v >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : v >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
        return sign + n + " " + units[u];
    }
}
