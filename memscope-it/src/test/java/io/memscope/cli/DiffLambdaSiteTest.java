package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.LambdaSiteFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * `memscope diff` of two runs of one program that allocates lambdas at a line: the lambda's class is named anew in
 * every JVM ({@code $$Lambda$84.0x00007fd4780b4498}, then {@code $$Lambda$112.0x00007f62941069c8}: a new user's two
 * runs of a Caffeine cache showed its eviction lambda as one site "gone" and one "new"); the diff compares them as
 * the one site they are.
 */
class DiffLambdaSiteTest {
    private static final String SRC = "memscope/fixtures/LambdaSiteFixture.java";

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aLambdaAllocatedAtOneLineIsOneSiteInBothRuns(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), 0);
        Path b = run(tmp.resolve("b"), 5);
        String site = "memscope.fixtures.LambdaSiteFixture.main(LambdaSiteFixture.java:" + Jvms.lineOf(SRC, "// LAMBDA")
                + ")";
        String typeA = lambdaType(a, site);
        String typeB = lambdaType(b, site);
        assertThat(typeA).as("each run's own name of the lambda's class").startsWith(
                "memscope.fixtures.LambdaSiteFixture$$Lambda").isNotEqualTo(typeB);

        CliRun json = CliRun.run("diff", a.toString(), b.toString(), "--json", "--top", "0");
        assertThat(json.exit).as(json.err).isZero();
        List<Map<String, Object>> lambda = Json.list(Json.parse(json.out), "sites").stream()
                .filter(e -> site.equals(e.get("site")) && String.valueOf(e.get("type")).contains("$$Lambda"))
                .toList();
        assertThat(lambda).as(json.out).singleElement().satisfies(e -> {
            assertThat(e.get("type")).isEqualTo("memscope.fixtures.LambdaSiteFixture$$Lambda");
            assertThat(Json.num(e, "baseSamples")).isPositive();
            assertThat(Json.num(e, "newSamples")).isPositive();
            assertThat(e.get("verdict")).isNotIn("new", "gone");
        });
    }

    private static Path run(Path out, int shift) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--interval", "64k"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(LambdaSiteFixture.class), LambdaSiteFixture.class.getName(), Integer.toString(shift)));
        assertThat(code).isZero();
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(Files::isDirectory).findFirst().orElseThrow();
        }
    }

    /** @return the type the run's report.json gives the lambdas allocated at {@code site} */
    private static String lambdaType(Path dir, String site) throws Exception {
        Object r = Json.parse(Files.readString(dir.resolve("report.json")));
        return Json.list(r, "topAllocationSites").stream().filter(e -> site.equals(e.get("site")))
                .map(e -> String.valueOf(e.get("type"))).filter(t -> t.contains("$$Lambda")).findFirst()
                .orElseThrow(() -> new AssertionError("no lambda site " + site + " in " + dir));
    }
}
