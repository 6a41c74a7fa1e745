package io.memscope.cli;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stop-the-world pauses of a JVM's unified GC log ({@code -Xlog:gc,gc+phases}): one line per pause, written by
 * the JVM at the end of the pause from VM start to exit, for example
 * <pre>
 * [123456789ns] GC(7) Pause Young (Mixed) (G1 Evacuation Pause) 82M-&gt;31M(96M) 1.777ms      G1, Parallel, Serial (gc)
 * [123456789ns] GC(5) Pause Remark 65M-&gt;44M(96M) 1.172ms
 * [123456789ns] GC(0) Pause Init Mark (unload classes) 0.019ms                            Shenandoah (gc)
 * [123456789ns] GC(9) Pause Mark End 0.015ms                                              ZGC, JDK 17 (gc+phases)
 * [123456789ns] GC(0) Y: Pause Mark Start (Major) 0.022ms                                 generational ZGC (gc+phases)
 * </pre>
 * (generational ZGC prefixes the generation: {@code Y:} young of a major collection, {@code y:} a minor one,
 * {@code O:} old; the prefix is kept in the name). Durations have the log's precision: milliseconds with three
 * decimals (1 µs). {@code gc+phases} adds sub-phase lines for the other collectors (G1's "Pre Evacuate Collection
 * Set", full collections' "Phase 1: Mark live objects", ...), which do not start with "Pause" and are not pauses.
 */
final class GcLog {
    /**
     * {@code GC(<id>) <name> [<heap before>-><after>(<capacity>)] <ms>ms} where name starts with "Pause ", or with
     * a ZGC generation and "Pause ".
     */
    static final Pattern PAUSE = Pattern.compile(
            "GC\\((\\d+)\\) ((?:[YyO]: )?Pause .*?)(?: \\d+[BKMGT]?->\\d+[BKMGT]?\\(\\d+[BKMGT]?\\))? (\\d+\\.\\d+)ms$");

    private GcLog() {
    }

    /** One pause: the collection's GC id, the pause name as logged, the duration in ns (a multiple of 1000). */
    static final class Pause {
        final long gcId;
        final String name;
        final long nanos;

        Pause(long gcId, String name, long nanos) {
            this.gcId = gcId;
            this.name = name;
            this.nanos = nanos;
        }

        /** @return young, mixed, remark, cleanup, full or other */
        String kind() {
            if (name.startsWith("Pause Young")) {
                return name.contains("(Mixed)") ? "mixed" : "young";
            }
            if (name.startsWith("Pause Remark")) {
                return "remark";
            }
            if (name.startsWith("Pause Cleanup")) {
                return "cleanup";
            }
            if (name.startsWith("Pause Full")) {
                return "full";
            }
            return "other";
        }
    }

    /** The kinds {@link Pause#kind()} returns, in the order reports print them. */
    static final List<String> KINDS = List.of("young", "mixed", "remark", "cleanup", "full", "other");

    /** @return the pauses of the log, in log order */
    static List<Pause> read(Path log) throws IOException {
        List<Pause> l = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Pause p = parse(line);
            if (p != null) {
                l.add(p);
            }
        }
        return l;
    }

    /** @return the pause of one log line, or null if the line is not a pause */
    static Pause parse(String line) {
        Matcher m = PAUSE.matcher(line.trim());
        if (!m.find()) {
            return null;
        }
        long ns = new BigDecimal(m.group(3)).movePointRight(6).setScale(0, RoundingMode.HALF_UP).longValueExact();
        return new Pause(Long.parseLong(m.group(1)), m.group(2), ns);
    }
}
