package io.memscope.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.cli.Main;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.ffmfixtures.FfmAttachFixture;
import memscope.ffmfixtures.FfmLeakFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/**
 * TrackingArena in a JVM under {@code memscope run} (the JDK 25 running this build): the arena never closed is a
 * native leak with its caller's site, stack and size, recorded once; the closed one is not; the accounting
 * instrument's figures match the report's.
 */
class TrackingArenaUnderAgentTest {
    private static final String CLASS = FfmLeakFixture.class.getName();

    @TempDir
    static Path out;
    private static JsonNode report;
    private static Map<String, Long> accounting;

    @BeforeAll
    static void runTheFixtureUnderTheAgent() throws Exception {
        // The build's toolchain JDK (25) runs this test; its java runs the fixture.
        assertThat(Runtime.version().feature()).isGreaterThanOrEqualTo(25);
        Path accountingFile = out.resolve("accounting.properties");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        int exit = Main.execute("run", "--out", out.resolve("run").toString(), "--", java, "-cp", classPath(),
                CLASS, accountingFile.toString());
        assertThat(exit).isZero();
        List<Path> reports;
        try (Stream<Path> s = Files.list(out.resolve("run"))) {
            reports = s.map(d -> d.resolve("report.json")).filter(Files::isRegularFile).toList();
        }
        assertThat(reports).hasSize(1);
        report = new ObjectMapper().readTree(reports.get(0).toFile());
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(accountingFile)) {
            p.load(in);
        }
        accounting = new LinkedHashMap<>();
        p.forEach((k, v) -> accounting.put((String) k, Long.parseLong((String) v)));
    }

    private static String classPath() throws Exception {
        List<String> parts = new ArrayList<>();
        for (Class<?> c : new Class<?>[] {FfmLeakFixture.class, TrackingArena.class, MemoryAccounting.class}) {
            String p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
            if (!parts.contains(p)) {
                parts.add(p);
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    private static String site(String marker) throws IOException {
        return site(FfmLeakFixture.class, marker);
    }

    private static String site(Class<?> fixture, String marker) throws IOException {
        String file = fixture.getSimpleName() + ".java";
        List<String> lines = Files.readAllLines(Path.of("src/test/java", "memscope/ffmfixtures", file));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("// " + marker)) {
                return fixture.getName() + ".main(" + file + ":" + (i + 1) + ")";
            }
        }
        throw new AssertionError(marker);
    }

    private static JsonNode leak(String site) {
        for (JsonNode l : report.path("native").path("leaks")) {
            if (site.equals(l.path("site").asText())) {
                return l;
            }
        }
        return null;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anArenaNeverClosedIsANativeLeakWithItsCallersSiteStackAndSize() throws Exception {
        JsonNode one = leak(site("LEAKED-ALLOCATE"));
        assertThat(one).as("leak at the allocate line in %s", report.path("native")).isNotNull();
        assertThat(one.path("type").asText()).isEqualTo("native:arena");
        // Recorded once (not once by the arena and once by the Unsafe hook): one block of the segment's size.
        assertThat(one.path("count").asLong()).isEqualTo(1);
        assertThat(one.path("bytes").asLong()).isEqualTo(100_000);
        List<String> stack = new ArrayList<>();
        one.path("stack").forEach(f -> stack.add(f.asText()));
        // The stack starts at the caller of allocate: no memscope frames, no JDK arena internals above it.
        assertThat(stack).isNotEmpty();
        assertThat(stack.get(0)).isEqualTo(site("LEAKED-ALLOCATE"));
        assertThat(stack).noneMatch(f -> f.startsWith("io.memscope.") || f.startsWith("java.lang.MemscopeHooks")
                || f.startsWith("jdk.internal."));

        JsonNode loop = leak(site("LEAKED-LOOP"));
        assertThat(loop).isNotNull();
        assertThat(loop.path("count").asLong()).isEqualTo(3);
        assertThat(loop.path("bytes").asLong()).isEqualTo(3 * 40_000);
        // allocate(layout, count) is SegmentAllocator's default method: the stack still starts at the caller.
        assertThat(loop.path("stack").get(0).asText()).isEqualTo(site("LEAKED-LOOP"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aClosedArenaIsNotALeakAndAPlainJdkArenaIsTypedAsAnArena() throws Exception {
        assertThat(leak(site("CLOSED-ALLOCATE"))).isNull();
        assertThat(leak(site("CLOSED-OTHER-THREAD"))).isNull();
        JsonNode plain = leak(site("PLAIN-ARENA"));
        assertThat(plain).isNotNull();
        assertThat(plain.path("type").asText()).isEqualTo("native:arena");
        assertThat(plain.path("bytes").asLong()).isEqualTo(24_000);
        // Without a tracking arena the JDK's own frames stay on top of the stack, as for direct buffers.
        assertThat(plain.path("stack").get(0).asText()).startsWith("jdk.internal.misc.Unsafe.allocateMemory");
        assertThat(report.path("native").path("anomalies")).isEmpty();
        assertThat(report.path("failures").path("count").asLong(0)).isZero();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theAccountingInstrumentsFiguresMatchTheReport() throws Exception {
        long leakedBytes = leak(site("LEAKED-ALLOCATE")).path("bytes").asLong()
                + leak(site("LEAKED-LOOP")).path("bytes").asLong();
        assertThat(accounting).containsEntry("currentBytes", leakedBytes)
                .containsEntry("currentCount", 4L)
                .containsEntry("countAlloc", 6L)
                .containsEntry("countFree", 2L);
        // The global row's HIGH is a bound (docs/accounting.md): at least the largest total held at once (220 000,
        // the leaked arena at the end), at most the sum of its owners' own HIGHs (the main thread's 220 000 and the
        // helper thread's 64 000, whose unused capacity stays with it after it ended).
        assertThat(accounting.get("highBytes")).isBetween(220_000L, 284_000L);
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void attachedLaterAnArenaOfBeforeClosesWithoutAnomalyAndANewOneIsSeen(@TempDir Path dir) throws Exception {
        Path go = dir.resolve("go");
        Path stop = dir.resolve("stop");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(javaBin, "-cp", classPath(), FfmAttachFixture.class.getName(),
                go.toString(), stop.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("ready");
            String pid = Long.toString(p.pid());
            Path attached = dir.resolve("attached");
            assertThat(Main.execute("attach", pid, "--out", attached.toString())).isZero();
            Files.createFile(go);
            assertThat(lines.readLine()).isEqualTo("done");
            assertThat(Main.execute("detach", pid)).isZero();
            Path json = attached.resolve(pid).resolve("report.json");
            await("the report after detach: " + json).atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> Files.isRegularFile(json));
            JsonNode r = new ObjectMapper().readTree(json.toFile());
            JsonNode leak = null;
            String after = site(FfmAttachFixture.class, "AFTER-ATTACH");
            for (JsonNode l : r.path("native").path("leaks")) {
                if (after.equals(l.path("site").asText())) {
                    leak = l;
                }
            }
            assertThat(leak).as("%s", r.path("native")).isNotNull();
            assertThat(leak.path("type").asText()).isEqualTo("native:arena");
            assertThat(leak.path("bytes").asLong()).isEqualTo(30_000);
            // The arena of before the attach freed a block the agent never saw allocated: the JDK's own memory,
            // counted, not an anomaly of the application.
            assertThat(r.path("native").path("anomalies")).isEmpty();
            assertThat(r.path("metadata").path("nativeUnknownFreesByJdk").asText()).isNotEqualTo("0");
            Files.createFile(stop);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
    }
}
