package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** `memscope diff` and `memscope export` on the recordings of real runs. */
class DiffAndExportTest {
    private static final String SRC = "memscope/fixtures/GrowthFixture.java";

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void diffRanksTheGrowingSiteFirstAndGatesWithExit3(@TempDir Path tmp) throws Exception {
        Path base = SharedRuns.growth(8);
        Path newer = SharedRuns.growth(48);
        String growing = "memscope.fixtures.GrowthFixture.main(GrowthFixture.java:" + Jvms.lineOf(SRC, "// GROWING")
                + ")";

        CliRun table = CliRun.run("diff", base.toString(), newer.toString());
        assertThat(table.exit).as(table.err).isZero();
        assertThat(table.out.lines().filter(l -> l.contains("GrowthFixture")).findFirst().orElseThrow())
                .contains(growing);

        CliRun json = CliRun.run("diff", base.toString(), newer.resolve("recording.msrec").toString(), "--metric",
                "live", "--json");
        assertThat(json.exit).as(json.err).isZero();
        Object d = Json.parse(json.out);
        assertThat(((Map<?, ?>) d).get("metric")).isEqualTo("live");
        Map<String, Object> first = Json.list(d, "sites").get(0);
        assertThat(first.get("site")).isEqualTo(growing);
        assertThat(first.get("significant")).isEqualTo(true);
        assertThat(first.get("verdict")).isEqualTo("grew");
        assertThat(((Number) first.get("newSamples")).longValue()).as("48 MiB at 64 KiB: hundreds of samples")
                .isGreaterThan(((Number) first.get("baseSamples")).longValue() + 100);
        assertThat(Json.obj(d, "total").get("significant")).isEqualTo(true);
        assertThat(Json.list(d, "sites")).allSatisfy(e -> assertThat(e).containsKeys("significant",
                "baseSamples", "newSamples", "noiseBytes"));
        double delta = ((Number) first.get("deltaBytes")).doubleValue();
        assertThat(delta).isBetween(30.0 * (1 << 20), 50.0 * (1 << 20));
        assertThat(((Number) first.get("newBytes")).doubleValue() - ((Number) first.get("baseBytes")).doubleValue())
                .isEqualTo(delta);
        assertThat(Json.obj(d, "base")).containsKeys("allocatedBytes", "heldAtEndBytes", "peakHeldBytes");
        assertThat(Json.obj(d, "new")).containsKeys("allocatedBytes", "heldAtEndBytes", "peakHeldBytes");

        CliRun gate = CliRun.run("diff", base.toString(), newer.toString(), "--metric", "live",
                "--fail-on-increase", "50");
        assertThat(gate.exit).as("live memory grew by far more than 50%").isEqualTo(3);
        assertThat(gate.err).contains("grew by").contains(growing);
        CliRun pass = CliRun.run("diff", newer.toString(), base.toString(), "--metric", "live",
                "--fail-on-increase", "50");
        assertThat(pass.exit).as("it shrank").isZero();
        CliRun normalized = CliRun.run("diff", base.toString(), newer.toString(), "--per", "8,48", "--json",
                "--metric", "live");
        assertThat(normalized.exit).isZero();
        assertThat(Json.parse(normalized.out)).satisfies(n ->
                assertThat(((Map<?, ?>) n).get("unit")).isEqualTo("bytes/unit"));
        CliRun bad = CliRun.run("diff", base.toString(), tmp.resolve("missing").toString());
        assertThat(bad.exit).as("an error keeps its own exit code").isEqualTo(1);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void exportWritesCollapsedStacksPprofAndATrace(@TempDir Path tmp) throws Exception {
        Path dir = SharedRuns.growth(16);
        Object report = Jvms.report(dir.getParent());
        long allocated = Json.num(Json.obj(report, "totals"), "allocatedBytes");

        Path folded = tmp.resolve("alloc.txt");
        CliRun c = CliRun.run("export", dir.toString(), "--format", "collapsed", "-o", folded.toString());
        assertThat(c.exit).as(c.err).isZero();
        long sum = 0;
        for (String line : Files.readAllLines(folded)) {
            sum += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
        }
        assertThat(sum).isEqualTo(allocated);
        assertThat(Files.readString(folded)).contains("GrowthFixture.main(GrowthFixture.java:"
                + Jvms.lineOf(SRC, "// GROWING") + ");byte[] ");

        Path pprof = tmp.resolve("heap.pb.gz");
        CliRun p = CliRun.run("export", dir.toString(), "--format", "pprof", "-o", pprof.toString());
        assertThat(p.exit).as(p.err).isZero();
        assertThat(Files.readAllBytes(pprof)).startsWith((byte) 0x1f, (byte) 0x8b); // gzip

        Path trace = tmp.resolve("timeline.json");
        CliRun t = CliRun.run("export", dir.toString(), "--format", "chrome-trace", "-o", trace.toString());
        assertThat(t.exit).as(t.err).isZero();
        assertThat(Files.readString(trace)).contains("\"memscope heap\"").contains("\"ph\":\"C\"");

        CliRun stdout = CliRun.run("export", dir.toString(), "--format", "collapsed", "--metric", "live-bytes");
        assertThat(stdout.exit).isZero();
        assertThat(stdout.out).contains("byte[] ");
        assertThat(CliRun.run("export", dir.toString(), "--format", "svg").exit).isEqualTo(1);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void reportFromToRestrictsTheFigures(@TempDir Path tmp) throws Exception {
        Path dir = SharedRuns.growth(16);
        Path whole = tmp.resolve("whole.json");
        Path part = tmp.resolve("part.json");
        assertThat(CliRun.run("report", dir.toString(), "--json", whole.toString()).exit).isZero();
        assertThat(tmp.resolve("report.html")).as("--json writes the JSON only; the page is --html's").doesNotExist();
        CliRun r = CliRun.run("report", dir.toString(), "--from", "0", "--to", "0.001", "--json", part.toString());
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.out).contains("window: 0.000 s to 0.001 s");
        Object w = Json.parse(Files.readString(whole));
        Object q = Json.parse(Files.readString(part));
        assertThat(Json.obj(q, "window").get("restricted")).isEqualTo(true);
        assertThat(Json.num(Json.obj(q, "totals"), "allocatedBytes"))
                .isLessThan(Json.num(Json.obj(w, "totals"), "allocatedBytes"));
        assertThat(CliRun.run("report", dir.toString(), "--from", "5", "--to", "1").exit).isEqualTo(1);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theSameProgramTwiceDiffersBySamplingNoiseAloneAndTheGateKnowsIt(@TempDir Path tmp) throws Exception {
        Path a = SharedRuns.noise("a");
        Path b = SharedRuns.noise("b");
        CliRun json = CliRun.run("diff", a.toString(), b.toString(), "--metric", "live", "--json", "--top", "0");
        assertThat(json.exit).as(json.err).isZero();
        Object d = Json.parse(json.out);
        List<Map<String, Object>> fixtureSites = Json.list(d, "sites").stream()
                .filter(e -> String.valueOf(e.get("site")).contains("NoiseFixture")).toList();
        assertThat(fixtureSites).as("the fixture's 24 sites, held at the end of both runs").hasSizeGreaterThan(20);
        // each site rests on a handful of samples: their raw changes are large, and noise
        assertThat(fixtureSites.stream().filter(e -> Boolean.TRUE.equals(e.get("significant"))).count())
                .as("sites called significant in two runs of the same program (a false alarm each)").isLessThan(2);
        assertThat(fixtureSites).filteredOn(e -> ((Number) e.get("deltaBytes")).doubleValue() != 0)
                .isNotEmpty().allSatisfy(e -> assertThat(((Number) e.get("noiseBytes")).doubleValue()).isPositive());
        assertThat(Json.obj(d, "significance")).containsKeys("test", "falseAlarmRate", "tests", "z");

        CliRun table = CliRun.run("diff", a.toString(), b.toString(), "--metric", "live", "--top", "0");
        assertThat(table.out).contains("samples").contains(" noise ").contains("changed by more than sampling noise");

        // whichever way the total moved, a growth within noise does not fail the gate, and says why
        CliRun ab = CliRun.run("diff", a.toString(), b.toString(), "--metric", "live", "--fail-on-increase", "0");
        CliRun ba = CliRun.run("diff", b.toString(), a.toString(), "--metric", "live", "--fail-on-increase", "0");
        assertThat(ab.exit).as(ab.err).isZero();
        assertThat(ba.exit).as(ba.err).isZero();
        if (((Number) Json.obj(d, "total").get("deltaBytes")).doubleValue() != 0) {
            assertThat(ab.err + ba.err).contains("within sampling noise").contains("not failing");
        }
    }
}
