package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.Site;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.HeldFixture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which collection collected each sampled object is exact (JVMTI sampler, stop-the-world collectors): a sample's
 * DEALLOCATE carries the end of the very collection that collected it, on the same clock as its ALLOCATE, so that
 * "held at collection k" (allocated before k, collected after k or never) can be read off the recording with the
 * analysis' rule (a DEALLOCATE belongs to the last collection that started before it).
 * Linux x86_64 (the JVMTI sampler).
 */
class LivenessTest {
    private static final String SRC = "memscope/fixtures/HeldFixture.java";

    static Stream<Arguments> jvms() {
        List<Arguments> l = new ArrayList<>();
        for (String java : Jvms.javas()) {
            l.add(Arguments.of(java, "-XX:+UseG1GC"));
            l.add(Arguments.of(java, "-XX:+UseParallelGC"));
        }
        return l.stream();
    }

    @ParameterizedTest
    @MethodSource("jvms")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void eachSampleIsCollectedByTheCollectionItsDeallocateNames(String java, String gc, @TempDir Path out)
            throws Exception {
        Path times = out.resolve("times.txt");
        int code = Jvms.memscopeRun(out.resolve("reports"), List.of("--interval", "64k"), List.of(java, gc,
                "-Xmx256m", "-cp", Jvms.classPath(HeldFixture.class), HeldFixture.class.getName(), times.toString()));
        assertThat(code).isZero();
        long[] t = Stream.of(Files.readString(times).trim().split(" ")).mapToLong(Long::parseLong).toArray();
        Recording r;
        try (Stream<Path> dirs = Files.list(out.resolve("reports"))) {
            r = RecordingReader.read(dirs.filter(Files::isDirectory).findFirst().orElseThrow()
                    .resolve("recording.msrec"));
        }
        List<GcRecord> gcs = new ArrayList<>(r.gcRecords());
        gcs.sort((x, y) -> Long.compare(x.startNanos(), y.startNanos()));
        // System.gc() may be skipped by the JVM when another collection ran meanwhile (G1 during a concurrent cycle):
        // A is the last collection before the arrays were dropped, B the explicit one after, when it ran.
        GcRecord a = lastBefore(gcs, t[1]);
        GcRecord b = within(gcs, t[2], t[3]);
        int held = site(r, "HELD-SITE");
        int garbage = site(r, "GARBAGE-SITE");
        int kept = site(r, "KEPT-SITE");

        Map<Long, MemoryEvent> allocated = new HashMap<>();
        Map<Long, MemoryEvent> collected = new HashMap<>();
        for (MemoryEvent e : r.events()) {
            if (e.typeName() != null && e.typeName().startsWith("native:") || e.address() == 0) {
                continue;
            }
            if (e.type() == MemoryEventType.ALLOCATE && e.siteId() != 0) {
                allocated.put(e.address(), e);
            } else if (e.type() == MemoryEventType.DEALLOCATE) {
                collected.put(e.address(), e);
            }
        }
        StringBuilder why = new StringBuilder("A=" + a.startNanos() + " B=" + (b == null ? "skipped" : b.startNanos()) + " t=" + Arrays.toString(t));
        for (GcRecord g : gcs) {
            why.append("\n  ").append(g);
        }
        int heldSamples = 0;
        int garbageSamples = 0;
        int garbageLate = 0;
        int keptSamples = 0;
        for (MemoryEvent e : allocated.values()) {
            MemoryEvent d = collected.get(e.address());
            if (e.siteId() == held) {
                heldSamples++;
                assertThat(e.timestampNanos()).isLessThan(a.startNanos());
                assertThat(d).as("a held array is collected").isNotNull();
                if (b != null) {
                    assertThat(d.timestampNanos()).as("held at A, collected by B: " + why).isEqualTo(end(b));
                } else {
                    assertThat(d.timestampNanos()).as("held until dropped, collected by a collection: " + why)
                            .isGreaterThan(t[2]).isIn(ends(gcs));
                }
            } else if (e.siteId() == kept) {
                keptSamples++;
                assertThat(d).as("kept to the end").isNull();
            } else if (e.siteId() == garbage) {
                garbageSamples++;
                GcRecord next = firstAfter(gcs, e.timestampNanos());
                assertThat(d).as("garbage is collected").isNotNull();
                if (d.timestampNanos() != end(next)) {
                    garbageLate++; // the array still in `sink` at that collection
                }
                assertThat(d.previousSize()).as("lifetime").isEqualTo(d.timestampNanos() - e.timestampNanos());
            }
        }
        assertThat(heldSamples).isGreaterThan(200);
        assertThat(keptSamples).isGreaterThan(50);
        assertThat(garbageSamples).isGreaterThan(300);
        assertThat(garbageLate).as("garbage collected by the first collection after its allocation").isLessThanOrEqualTo(1);
        assertThat(r.metadata().get("liveness.untracked")).isEqualTo("0");
    }

    /** @return the collection that starts in [from, to], or null when the JVM skipped it */
    private static GcRecord within(List<GcRecord> gcs, long from, long to) {
        for (GcRecord g : gcs) {
            if (g.startNanos() >= from && g.startNanos() <= to) {
                return g;
            }
        }
        return null;
    }

    private static GcRecord lastBefore(List<GcRecord> gcs, long time) {
        GcRecord last = null;
        for (GcRecord g : gcs) {
            if (g.startNanos() < time) {
                last = g;
            }
        }
        if (last == null) {
            throw new AssertionError("no GC record before " + time + ": " + gcs);
        }
        return last;
    }

    /** The DEALLOCATE of an object the collection freed is at its end: after its start, before the next start. */
    private static long end(GcRecord g) {
        return g.startNanos() + g.durationNanos();
    }

    private static List<Long> ends(List<GcRecord> gcs) {
        List<Long> l = new ArrayList<>();
        for (GcRecord g : gcs) {
            l.add(end(g));
        }
        return l;
    }

    private static GcRecord firstAfter(List<GcRecord> gcs, long time) {
        for (GcRecord g : gcs) {
            if (g.startNanos() > time) {
                return g;
            }
        }
        throw new AssertionError("no GC record after " + time);
    }

    private static int site(Recording r, String marker) throws Exception {
        int line = Jvms.lineOf(SRC, marker);
        for (Site s : r.sites().values()) {
            // the arrays themselves, not the ArrayList's backing arrays grown on the same line
            if (s.line() == line && "memscope.fixtures.HeldFixture".equals(s.className())
                    && "byte[]".equals(s.typeName())) {
                return s.id();
            }
        }
        throw new AssertionError(marker + " (line " + line + ") not among " + r.sites().values());
    }
}
