package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.GrowthFixture;
import memscope.fixtures.NoiseFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The output folder of a {@code memscope run} whose command started several JVMs (a script, a build), given as is
 * to {@code report}, {@code export} and {@code diff}: each JVM is reported or listed with its pid, main class and
 * duration, one is picked with {@code --pid} or {@code --main}, and two such folders are compared JVM by JVM, paired
 * by main class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunFolderTest {
    private String growing;

    @TempDir
    static Path tmp;
    Path base;
    Path newer;

    /** A shell script starting two JVMs: the growth fixture (holding {@code growMiB}) and the noise fixture. */
    private static Path run(Path out, int growMiB) {
        String java = Jvms.current();
        String script = java + " -cp " + Jvms.classPath(GrowthFixture.class) + " " + GrowthFixture.class.getName()
                + " " + growMiB + " && " + java + " -cp " + Jvms.classPath(NoiseFixture.class) + " "
                + NoiseFixture.class.getName();
        int code = Jvms.memscopeRun(out, List.of("--interval", "64k", "--gc-at-end"), List.of("sh", "-c", script));
        assertThat(code).isZero();
        return out;
    }

    @BeforeAll
    void twoRunsOfTwoJvmsEach() throws Exception {
        growing = "memscope.fixtures.GrowthFixture.main(GrowthFixture.java:"
                + Jvms.lineOf("memscope/fixtures/GrowthFixture.java", "// GROWING") + ")";
        base = run(tmp.resolve("base"), 8);
        newer = run(tmp.resolve("new"), 48);
    }

    private long pidOf(Path folder, String main) {
        return RunFolder.jvms(folder).stream().filter(j -> j.main().equals(main)).findFirst().orElseThrow().pid();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void reportListsTheJvmsAndReportsEachOrThePickedOne() throws Exception {
        CliRun all = CliRun.run("report", base.toString());
        assertThat(all.exit).as(all.err).isZero();
        long growth = pidOf(base, GrowthFixture.class.getName());
        long noise = pidOf(base, NoiseFixture.class.getName());
        assertThat(all.out).contains("2 JVMs under").contains("--pid").contains("--main")
                .contains(GrowthFixture.class.getName()).contains(NoiseFixture.class.getName())
                .contains("memscope report for pid " + growth).contains("memscope report for pid " + noise);

        Path json = tmp.resolve("one.json");
        CliRun refused = CliRun.run("report", base.toString(), "--json", json.toString());
        assertThat(refused.exit).isEqualTo(1);
        assertThat(refused.err).contains("several JVMs").contains("--pid").contains("--main")
                .contains(Long.toString(growth)).contains(Long.toString(noise)).contains(GrowthFixture.class.getName());

        CliRun byMain = CliRun.run("report", base.toString(), "--main", "GrowthFixture", "--json", json.toString());
        assertThat(byMain.exit).as(byMain.err).isZero();
        assertThat(Files.readString(json)).contains(growing).doesNotContain("NoiseFixture.lambda");
        CliRun byPid = CliRun.run("report", base.toString(), "--pid", Long.toString(noise));
        assertThat(byPid.exit).as(byPid.err).isZero();
        assertThat(byPid.out).contains("memscope report for pid " + noise)
                .doesNotContain("memscope report for pid " + growth);
        CliRun none = CliRun.run("report", base.toString(), "--main", "NoSuchMain");
        assertThat(none.exit).isEqualTo(1);
        assertThat(none.err).contains("no JVM matches --main NoSuchMain").contains(GrowthFixture.class.getName());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void exportTakesAPick() throws Exception {
        CliRun refused = CliRun.run("export", base.toString(), "--format", "collapsed");
        assertThat(refused.exit).isEqualTo(1);
        assertThat(refused.err).contains("several JVMs").contains("memscope export " + base + " --pid ");
        Path folded = tmp.resolve("noise.txt");
        CliRun c = CliRun.run("export", base.toString(), "--main", NoiseFixture.class.getName(), "--format",
                "collapsed", "-o", folded.toString());
        assertThat(c.exit).as(c.err).isZero();
        assertThat(Files.readString(folded)).contains("NoiseFixture.lambda$main$").doesNotContain("GrowthFixture");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void diffPairsTheJvmsByMainClass() throws Exception {
        CliRun text = CliRun.run("diff", base.toString(), newer.toString(), "--metric", "live");
        assertThat(text.exit).as(text.err).isZero();
        assertThat(text.out).contains("2 pairs of JVMs, paired by main class")
                .contains("== " + GrowthFixture.class.getName() + ": base pid " + pidOf(base,
                        GrowthFixture.class.getName()) + ", new pid " + pidOf(newer, GrowthFixture.class.getName()))
                .contains("== " + NoiseFixture.class.getName() + ": base pid");

        CliRun json = CliRun.run("diff", base.toString(), newer.toString(), "--metric", "live", "--json");
        assertThat(json.exit).as(json.err).isZero();
        Object d = Json.parse(json.out);
        assertThat(((Map<?, ?>) d).get("format")).isEqualTo("memscope-diff-pairs");
        List<Map<String, Object>> pairs = Json.list(d, "pairs");
        assertThat(pairs).extracting(p -> p.get("main"))
                .containsExactlyInAnyOrder(GrowthFixture.class.getName(), NoiseFixture.class.getName());
        Map<String, Object> growth = pairs.stream().filter(p -> p.get("main").equals(GrowthFixture.class.getName()))
                .findFirst().orElseThrow();
        Map<String, Object> first = Json.list(growth, "diff", "sites").get(0);
        assertThat(first.get("site")).isEqualTo(growing);
        assertThat(first.get("significant")).isEqualTo(true);

        CliRun one = CliRun.run("diff", base.toString(), newer.toString(), "--main", "GrowthFixture", "--json",
                "--metric", "live");
        assertThat(one.exit).as(one.err).isZero();
        assertThat(((Map<?, ?>) Json.parse(one.out)).get("format")).isEqualTo("memscope-diff");

        CliRun gate = CliRun.run("diff", base.toString(), newer.toString(), "--metric", "live",
                "--fail-on-increase", "50");
        assertThat(gate.exit).as("the growth fixture's pair grew by far more than 50%").isEqualTo(3);
        assertThat(gate.err).contains(GrowthFixture.class.getName() + ": live grew by");

        CliRun page = CliRun.run("diff", base.toString(), newer.toString(), "--html", tmp.resolve("d.html")
                .toString());
        assertThat(page.exit).isEqualTo(1);
        assertThat(page.err).contains("--main");

        // one recording against a folder: paired by the recording's main class
        Path oneRecording = RunFolder.jvms(base).stream().filter(j -> j.main().equals(GrowthFixture.class.getName()))
                .findFirst().orElseThrow().recording();
        CliRun mixed = CliRun.run("diff", oneRecording.toString(), newer.toString(), "--metric", "live", "--json");
        assertThat(mixed.exit).as(mixed.err).isZero();
        assertThat(Json.list(Json.parse(mixed.out), "sites").get(0).get("site")).isEqualTo(growing);
        assertThat(mixed.err).contains("without a partner").contains(NoiseFixture.class.getName());
    }
}
