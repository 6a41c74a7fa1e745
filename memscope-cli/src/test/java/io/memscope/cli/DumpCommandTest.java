package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.RecordingWriter;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class DumpCommandTest {
    /** 2026-01-01T00:00:00Z in ns since the epoch. */
    private static final long EPOCH = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream oldOut;
    private PrintStream oldErr;

    @BeforeEach
    void capture() {
        oldOut = System.out;
        oldErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(oldOut);
        System.setErr(oldErr);
    }

    private int run(String... args) {
        out.reset();
        err.reset();
        return Main.execute(args);
    }

    private List<String> lines() {
        return Arrays.asList(out.toString(StandardCharsets.UTF_8).split("\n"));
    }

    /** Writes a small recording: 1000 events (every 10th a DEALLOCATE), a GC, an anomaly, metadata. */
    private Path recording() {
        Path file = dir.resolve("app.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).clock(EPOCH, 1_000).process(777, 0)
                .blockBytes(512).open()) {
            w.metadata("command", "java -jar \"app.jar\"\tx");
            w.metadata("mode", "exact");
            w.site(3, "com.example.Cache", "put", "Cache.java", 42, "byte[]");
            w.stack(0xabcL, List.of("com.example.Cache.put(Cache.java:42)"));
            int main = w.strings().intern("main");
            int type = w.strings().intern("byte[]");
            int var = w.strings().intern("buf");
            for (int i = 0; i < 1000; i++) {
                MemoryEventType t = i % 10 == 9 ? MemoryEventType.DEALLOCATE : MemoryEventType.ALLOCATE;
                w.accept(1_000 + i * 1_000L, t, 0x1000 + i, 64, 0, 1, main, i == 0 ? var : 0, type, 0xabcL, 3);
            }
            w.gc(5_000, 1_500_000, "G1 Young Generation", "G1 Evacuation Pause", 100, 40, 200, "end of minor GC");
            w.anomaly("double-free", 6_000, 0x1005, 64, 1, 0, "freed twice");
            w.accounting(new io.memscope.recording.AccountingSnapshot(7_000, List.of(
                    new io.memscope.accounting.SummaryRow(io.memscope.accounting.SummaryTable.USER, -1, null, "carol",
                            null, "memory/cache/entries", new long[] {2, 1, 96, 32, 0, 1, 2, 32, 64, 96, 0}))));
        }
        return file;
    }

    @Test
    void textDumpShowsHeaderMetadataEventsAndSummary() {
        Path file = recording();
        assertThat(run("dump", file.toString())).isEqualTo(0);
        List<String> lines = lines();
        assertThat(lines.get(0)).startsWith("# memscope recording ").endsWith("(format 1.7)");
        assertThat(lines.get(1)).contains("pid 777").contains("recording started 2026-01-01T00:00:00Z");
        // a control character of the recording (a tab here) is shown as an escape in text
        assertThat(lines).contains("# command = java -jar \"app.jar\"\\tx", "# mode = exact");
        assertThat(lines).contains("2026-01-01T00:00:00Z ALLOCATE 0x1000 size=64 prev=0 thread=1/main type=byte[] "
                + "var=buf site=com.example.Cache.put(Cache.java:42) stack=0xabc");
        assertThat(lines).contains("2026-01-01T00:00:00.000009Z DEALLOCATE 0x1009 size=64 prev=0 thread=1/main "
                + "type=byte[] var=- site=com.example.Cache.put(Cache.java:42) stack=0xabc");
        assertThat(lines).contains("2026-01-01T00:00:00.000004Z GC G1 Young Generation cause=G1 Evacuation Pause "
                + "duration=1500000ns used=100->40 committed=200 action=end of minor GC examined=unknown");
        assertThat(lines).contains("2026-01-01T00:00:00.000005Z ANOMALY double-free 0x1005 size=64 thread=1 "
                + "stack=- detail=freed twice");
        assertThat(lines).contains("2026-01-01T00:00:00.000006Z ACCOUNTING USER user=carol host=- "
                + "memory/cache/entries COUNT_ALLOC=2 COUNT_FREE=1 SUM_NUMBER_OF_BYTES_ALLOC=96 "
                + "SUM_NUMBER_OF_BYTES_FREE=32 LOW_COUNT_USED=0 CURRENT_COUNT_USED=1 HIGH_COUNT_USED=2 "
                + "LOW_NUMBER_OF_BYTES_USED=32 CURRENT_NUMBER_OF_BYTES_USED=64 HIGH_NUMBER_OF_BYTES_USED=96 "
                + "COUNT_ANOMALIES=0");
        assertThat(lines.stream().filter(l -> l.contains(" ALLOCATE ") || l.contains(" DEALLOCATE "))).hasSize(1000);
        assertThat(lines.get(lines.size() - 1)).isEqualTo("# 1000 events, 1000 shown, 1 GCs, 1 anomalies, 1 sites, "
                + "1 stacks; END: 1000 written, 0 dropped, closed cleanly");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void typeAndLimitFilterEvents() {
        Path file = recording();
        assertThat(run("dump", "--type", "DEALLOCATE", file.toString())).isEqualTo(0);
        assertThat(lines().stream().filter(l -> l.contains(" DEALLOCATE "))).hasSize(100);
        assertThat(lines().stream().filter(l -> l.contains(" ALLOCATE "))).isEmpty();
        assertThat(lines().get(lines().size() - 1)).startsWith("# 1000 events, 100 shown");

        assertThat(run("dump", "--limit", "5", "--type", "allocate", file.toString())).isEqualTo(0);
        assertThat(lines().stream().filter(l -> l.contains(" ALLOCATE "))).hasSize(5);
        assertThat(lines().get(lines().size() - 1)).startsWith("# stopped after 5 events (--limit)");
    }

    @Test
    void jsonLinesAreOneObjectPerLineWithEscapedStrings() {
        Path file = recording();
        assertThat(run("dump", "--json", file.toString())).isEqualTo(0);
        List<String> lines = lines();
        assertThat(lines).allSatisfy(l -> assertThat(l).startsWith("{\"kind\":\"").endsWith("}"));
        assertThat(lines.get(0)).startsWith("{\"kind\":\"header\",\"file\":").contains("\"version\":\"1.7\"")
                .contains("\"pid\":777").contains("\"clockEpochNanos\":" + EPOCH);
        assertThat(lines).contains("{\"kind\":\"metadata\",\"key\":\"command\",\"value\":\"java -jar \\\"app.jar\\\"\\tx\"}");
        assertThat(lines).contains("{\"kind\":\"event\",\"time\":\"2026-01-01T00:00:00Z\",\"timestampNanos\":1000,"
                + "\"type\":\"ALLOCATE\",\"address\":\"0x1000\",\"size\":64,\"previousSize\":0,\"threadId\":1,"
                + "\"threadName\":\"main\",\"typeName\":\"byte[]\",\"variable\":\"buf\","
                + "\"site\":\"com.example.Cache.put(Cache.java:42)\",\"siteId\":3,\"stackId\":\"0xabc\"}");
        assertThat(lines.stream().filter(l -> l.startsWith("{\"kind\":\"event\""))).hasSize(1000);
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("{\"kind\":\"gc\"").contains("\"cause\":\"G1 Evacuation Pause\"")
                .contains("\"action\":\"end of minor GC\""));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("{\"kind\":\"anomaly\"").contains("\"anomaly\":\"double-free\""));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("{\"kind\":\"accounting\"")
                .contains("\"table\":\"USER\"", "\"user\":\"carol\"", "\"host\":null",
                        "\"HIGH_NUMBER_OF_BYTES_USED\":96"));
        assertThat(lines.get(lines.size() - 1)).isEqualTo("{\"kind\":\"summary\",\"events\":1000,\"shown\":1000,"
                + "\"gcs\":1,\"anomalies\":1,\"sites\":1,\"stacks\":1,\"apiEvents\":0,\"scopeEdges\":0,\"scopePaths\":0,\"functions\":0,\"stoppedAtLimit\":false,\"eventsWritten\":1000,"
                + "\"eventsDropped\":0,\"clean\":true,\"damage\":null}");
    }

    @Test
    void damagedFilePrintsWhatItCanThenTheDamageOnStderrWithExitCode1() throws Exception {
        Path file = recording();
        byte[] bytes = Files.readAllBytes(file);
        Path cut = dir.resolve("cut.msrec");
        Files.write(cut, Arrays.copyOf(bytes, bytes.length * 2 / 3));
        assertThat(run("dump", cut.toString())).isEqualTo(1);
        long shown = lines().stream().filter(l -> l.contains("ALLOCATE ")).count();
        assertThat(shown).isBetween(300L, 999L);
        assertThat(lines().get(lines().size() - 1)).contains("no END block").contains("DAMAGED at offset");
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("memscope dump: damaged recording: " + cut + ": at offset ")
                .contains("truncated block");

        assertThat(run("dump", "--json", cut.toString())).isEqualTo(1);
        assertThat(lines().get(lines().size() - 1)).contains("\"eventsWritten\":null").contains("\"damage\":{\"offset\":");
    }

    @Test
    void notARecordingOrMissingFileIsAClearError() throws Exception {
        Path junk = dir.resolve("junk.txt");
        Files.writeString(junk, "just some text that is long enough to hold a header, but is not a recording");
        assertThat(run("dump", junk.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("at offset 0: not a memscope recording (bad magic)");
        assertThat(run("dump", dir.resolve("missing.msrec").toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no such file");
    }

    @Test
    void scopeEdgesAndApiEventsArePrinted() throws Exception {
        Path file = dir.resolve("scopes.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).clock(EPOCH, 1_000).process(777, 0).open()) {
            int main = w.strings().intern("main");
            w.scopeEdge(1_100, 1, main, false, 2, 0, -1);
            w.scopePath(1, 0, "request");
            w.scopePath(2, 1, "parse");
            w.scopeEdge(1_200, 9, 0, false, 2, 77, -1);
            w.scopeEdge(1_300, 1, main, true, 2, 0, 4096);
            w.apiEvent(1_250, MemoryEventType.BORROW, 7, 100, 0, 1, main, w.strings().intern("db"),
                    w.strings().intern("com.example.Conn"), 0, 0);
            w.functionStats("pkg.Service.handle", "(J)V", "pkg.Main.main(Main.java:9)", 20, 1, 400_000_000,
                    30_000_000, 200_320, 0);
        }
        assertThat(run("dump", file.toString())).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("# scope path 2 = request/parse")
                .contains("SCOPE_ENTER request/parse thread=9 task=77")
                .contains("SCOPE_EXIT request/parse thread=1/main allocated=4096")
                .contains("API BORROW 0x7 size=100 prev=0 thread=1/main type=com.example.Conn var=db")
                .contains("1 API events, 3 scope edges, 2 scope paths, 1 function entries")
                .contains("# function pkg.Service.handle(J)V from pkg.Main.main(Main.java:9): calls=20 recursive=1 "
                        + "total=400000000ns max=30000000ns allocated=200320 withoutAllocation=0");

        assertThat(run("dump", "--json", "--thread", "1", file.toString())).isZero();
        assertThat(lines()).anySatisfy(l -> assertThat(l).isEqualTo("{\"kind\":\"scope\",\"time\":"
                + "\"2026-01-01T00:00:00.000000300Z\",\"timestampNanos\":1300,\"edge\":\"exit\",\"path\":"
                + "\"request/parse\",\"pathId\":2,\"threadId\":1,\"threadName\":\"main\",\"taskId\":null,"
                + "\"allocatedBytes\":4096}"));
        assertThat(lines()).noneMatch(l -> l.contains("\"threadId\":9"));
        assertThat(lines()).anySatisfy(l -> assertThat(l).startsWith("{\"kind\":\"apiEvent\"")
                .contains("\"type\":\"BORROW\"").contains("\"variable\":\"db\""));
    }
}
