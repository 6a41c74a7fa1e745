package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.GrowthFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** `memscope diff` and `memscope export` on the recordings of real runs. */
class DiffAndExportTest {
    private static final String SRC = "memscope/fixtures/GrowthFixture.java";

    private static Path run(Path out, int growMiB) throws Exception {
        // --gc-at-end: what each run still holds at its end is measured at a final collection
        int code = Jvms.memscopeRun(out, List.of("--interval", "64k", "--gc-at-end"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(GrowthFixture.class), GrowthFixture.class.getName(), Integer.toString(growMiB)));
        assertThat(code).isZero();
        try (var s = Files.list(out)) {
            return s.filter(Files::isDirectory).findFirst().orElseThrow();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void diffRanksTheGrowingSiteFirstAndGatesWithExit3(@TempDir Path tmp) throws Exception {
        Path base = run(tmp.resolve("base"), 8);
        Path newer = run(tmp.resolve("new"), 48);
        String growing = "memscope.fixtures.GrowthFixture.main(GrowthFixture.java:" + Jvms.lineOf(SRC, "// GROWING")
                + ")";

        CliRun table = CliRun.run("diff", base.toString(), newer.toString());
        assertThat(table.exit).as(table.err).isZero();
        assertThat(table.out.lines().filter(l -> l.contains("GrowthFixture")).findFirst().orElseThrow())
                .contains(growing);

        CliRun json = CliRun.run("diff", base.toString(), newer.resolve("recording.msrec").toString(), "--metric",
                "live", "--json");
        assertThat(json.exit).as(json.err).isZero();
        Object d = MiniJson.parse(json.out);
        assertThat(((Map<?, ?>) d).get("metric")).isEqualTo("live");
        Map<String, Object> first = MiniJson.list(d, "sites").get(0);
        assertThat(first.get("site")).isEqualTo(growing);
        double delta = ((Number) first.get("deltaBytes")).doubleValue();
        assertThat(delta).isBetween(30.0 * (1 << 20), 50.0 * (1 << 20));
        assertThat(((Number) first.get("newBytes")).doubleValue() - ((Number) first.get("baseBytes")).doubleValue())
                .isEqualTo(delta);
        assertThat(MiniJson.obj(d, "base")).containsKeys("allocatedBytes", "liveBytesAtEnd", "peakLiveBytes");
        assertThat(MiniJson.obj(d, "new")).containsKeys("allocatedBytes", "liveBytesAtEnd", "peakLiveBytes");

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
        assertThat(MiniJson.parse(normalized.out)).satisfies(n ->
                assertThat(((Map<?, ?>) n).get("unit")).isEqualTo("bytes/unit"));
        CliRun bad = CliRun.run("diff", base.toString(), tmp.resolve("missing").toString());
        assertThat(bad.exit).as("an error keeps its own exit code").isEqualTo(1);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void exportWritesCollapsedStacksPprofAndATrace(@TempDir Path tmp) throws Exception {
        Path dir = run(tmp.resolve("run"), 16);
        Object report = Jvms.report(tmp.resolve("run"));
        long allocated = MiniJson.num(MiniJson.obj(report, "totals"), "allocatedBytes");

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
        Path dir = run(tmp.resolve("run"), 16);
        Path whole = tmp.resolve("whole.json");
        Path part = tmp.resolve("part.json");
        assertThat(CliRun.run("report", dir.toString(), "--json", whole.toString()).exit).isZero();
        assertThat(tmp.resolve("report.html")).as("--json writes the JSON only; the page is --html's").doesNotExist();
        CliRun r = CliRun.run("report", dir.toString(), "--from", "0", "--to", "0.001", "--json", part.toString());
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.out).contains("window: 0.000 s to 0.001 s");
        Object w = MiniJson.parse(Files.readString(whole));
        Object q = MiniJson.parse(Files.readString(part));
        assertThat(MiniJson.obj(q, "window").get("restricted")).isEqualTo(true);
        assertThat(MiniJson.num(MiniJson.obj(q, "totals"), "allocatedBytes"))
                .isLessThan(MiniJson.num(MiniJson.obj(w, "totals"), "allocatedBytes"));
        assertThat(CliRun.run("report", dir.toString(), "--from", "5", "--to", "1").exit).isEqualTo(1);
    }
}
