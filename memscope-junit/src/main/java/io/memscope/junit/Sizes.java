package io.memscope.junit;

import java.util.Locale;
import org.junit.platform.commons.PreconditionViolationException;

/** Byte sizes in annotations ({@code 50MB}, {@code 512k}, {@code 1.5GiB}, {@code 0}) and in messages. */
final class Sizes {
    private Sizes() {
    }

    /**
     * @param text a number, optionally with a unit: {@code B}, {@code K}/{@code KB}/{@code KiB}, {@code M}/{@code MB}/
     *             {@code MiB}, {@code G}/{@code GB}/{@code GiB}, {@code T}/{@code TB}/{@code TiB} (case-insensitive,
     *             powers of 1024, as the agent's {@code interval} option)
     * @param what the annotation and attribute, for the message
     * @throws PreconditionViolationException for anything else (JUnit reports it as the test's failure)
     */
    static long parse(String text, String what) {
        String t = text == null ? "" : text.trim().replace("_", "").toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) {
            i++;
        }
        String number = t.substring(0, i);
        String unit = t.substring(i).trim();
        long factor;
        switch (unit) {
            case "": case "b": factor = 1; break;
            case "k": case "kb": case "kib": factor = 1L << 10; break;
            case "m": case "mb": case "mib": factor = 1L << 20; break;
            case "g": case "gb": case "gib": factor = 1L << 30; break;
            case "t": case "tb": case "tib": factor = 1L << 40; break;
            default: factor = -1;
        }
        double value;
        try {
            value = number.isEmpty() ? Double.NaN : Double.parseDouble(number);
        } catch (NumberFormatException e) {
            value = Double.NaN;
        }
        if (factor < 0 || Double.isNaN(value) || value * factor >= Long.MAX_VALUE) {
            throw new PreconditionViolationException(what + ": '" + text + "' is not a size (examples: 0, 4096, "
                    + "512KB, 50MB, 1.5GB; units are powers of 1024)");
        }
        return (long) Math.floor(value * factor);
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
