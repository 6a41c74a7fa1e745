package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.NativePoolFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native leaks are judged like heap leaks, outstanding and growing: a live pool's buffers, taken once and reused to
 * the end, are outstanding but not a leak; a buffer kept per request is.
 */
class NativeLeakRuleTest {
    private static final String SRC = "memscope/fixtures/NativePoolFixture.java";

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLivePoolIsOutstandingButOnlyTheGrowingSiteIsALeak(@TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--gc-at-end"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(NativePoolFixture.class), NativePoolFixture.class.getName()));
        assertThat(code).isZero();
        String pool = "memscope.fixtures.NativePoolFixture.main(NativePoolFixture.java:" + Jvms.lineOf(SRC, "// POOL")
                + ")";
        String leak = "memscope.fixtures.NativePoolFixture.main(NativePoolFixture.java:" + Jvms.lineOf(SRC, "// LEAK")
                + ")";
        Object report = Jvms.report(out);
        assertThat(Jvms.sites(report, "native", "leaks")).as("both are outstanding").contains(pool, leak);
        assertThat(Jvms.sites(report, "native", "leakSuspects")).as("only the growing one is a leak")
                .containsExactly(leak);
        Map<String, Object> poolEntry = Json.list(report, "native", "leaks").stream()
                .filter(e -> e.get("site").equals(pool)).findFirst().orElseThrow();
        assertThat(poolEntry.get("leakSuspect")).isEqualTo(false);
        assertThat(Json.num(poolEntry, "bytes")).isEqualTo(16L * 64 * 1024);

        Path dir = Reports.recordingDirs(out).get(0);
        String summary = Files.readString(dir.resolve("summary.txt"));
        // the native section's lines ("... in N blocks  site ..."): a heap section may list the same line's
        // Cleaner objects when one of them happened to be sampled
        String poolLine = summary.lines().filter(l -> l.contains(pool) && l.contains(" blocks  ")).findFirst()
                .orElseThrow();
        String leakLine = summary.lines().filter(l -> l.contains(leak) && l.contains(" blocks  ")).findFirst()
                .orElseThrow();
        assertThat(poolLine).contains("not growing").doesNotContain("LEAK");
        assertThat(leakLine).contains("LEAK SUSPECT");
    }
}
