package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident check's own thread: it publishes each pass's figures for the samples, says why it is off (a heap below
 * its minimum, a file it cannot read), counts its passes and its CPU time, and ends when stopped.
 */
class ResidentCheckThreadTest {
    private static final long MIB = 1024 * 1024;

    private static String stack(long start, long rssKb) {
        return String.format("%x-%x ---p 00000000 00:00 0%nRss:                   0 kB%n"
                + "%x-%x rw-p 00000000 00:00 0%nRss:             %8d kB%n", start, start + 16 * 1024,
                start + 16 * 1024, start + MIB, rssKb);
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    @Test
    void passesPublishTheirFiguresOnTheirOwnThreadUntilStopped(@TempDir Path dir) throws Exception {
        Path smaps = Files.writeString(dir.resolve("smaps"), stack(0x7f00_0000_0000L, 40) + stack(0x7f00_0010_0000L,
                60));
        ResidentCheckThread r = new ResidentCheckThread(100, new long[] {MIB}, null, smaps.toString())
                .start(1024 * MIB);
        long[] figures = new long[4];
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                r.figures(figures, 0);
                return figures[3] == 2;
            });
            assertThat(figures[2]).isEqualTo(100 * 1024L);
            assertThat(threadAlive("memscope-resident")).isTrue();
            // the next passes read the file afresh
            Files.writeString(smaps, stack(0x7f00_0000_0000L, 40));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                r.figures(figures, 0);
                return figures[3] == 1;
            });
            assertThat(r.passed()).isTrue();
        } finally {
            r.stop();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> !threadAlive("memscope-resident"));
        Map<String, String> meta = new HashMap<>();
        r.metadata(meta);
        assertThat(Long.parseLong(meta.get("processMemory.rssDetailPasses"))).isGreaterThanOrEqualTo(2);
        assertThat(meta).containsEntry("processMemory.rssDetailFailures", "0").doesNotContainKey(
                "processMemory.rssDetailOff").containsKey("processMemory.rssDetailStretched");
    }

    @Test
    void aRequestOrTheCapturesEndRunsAPassBeforeTheInterval(@TempDir Path dir) throws Exception {
        Path smaps = Files.writeString(dir.resolve("smaps"), stack(0x7f00_0000_0000L, 40));
        // an hour's interval: every pass after the first is one asked for
        ResidentCheckThread r = new ResidentCheckThread(3_600_000, new long[] {MIB}, null, smaps.toString())
                .start(1024 * MIB);
        long[] figures = new long[4];
        try {
            await().atMost(Duration.ofSeconds(30)).until(r::passed);
            long first = r.figures(figures, 0);
            assertThat(first).isNotEqualTo(Long.MIN_VALUE).isLessThanOrEqualTo(System.nanoTime());
            assertThat(figures[2]).isEqualTo(40 * 1024L);
            Files.writeString(smaps, stack(0x7f00_0000_0000L, 40) + stack(0x7f00_0010_0000L, 60));
            r.request();
            await().atMost(Duration.ofSeconds(30)).until(() -> r.figures(figures, 0) != first);
            assertThat(figures[2]).as("the requested pass read the file afresh").isEqualTo(100 * 1024L);
            long second = r.figures(figures, 0);
            assertThat(second).isGreaterThan(first);
            Files.writeString(smaps, stack(0x7f00_0000_0000L, 80));
            assertThat(r.passNow(30_000_000_000L)).as("the end's pass").isTrue();
            assertThat(r.figures(figures, 0)).isGreaterThan(second);
            assertThat(figures[2]).isEqualTo(80 * 1024L);
        } finally {
            r.stop();
        }
        Map<String, String> meta = new HashMap<>();
        r.metadata(meta);
        assertThat(meta).containsEntry("processMemory.rssDetailPasses", "3")
                .containsEntry("processMemory.rssDetailRequestedPasses", "2");
        assertThat(meta.get("processMemory.rssDetailEndPass")).startsWith("done in ");
        await().atMost(Duration.ofSeconds(30)).until(() -> !threadAlive("memscope-resident"));
        assertThat(r.passNow(1_000_000_000L)).as("stopped: no pass").isFalse();
        r.metadata(meta);
        assertThat(meta).containsEntry("processMemory.rssDetailEndPass", "skipped: the check is off");
    }

    @Test
    void aHeapBelowTheMinimumHasNoCheckAndSaysWhy(@TempDir Path dir) throws Exception {
        Path smaps = Files.writeString(dir.resolve("smaps"), stack(0x7f00_0000_0000L, 40));
        ResidentCheckThread r = new ResidentCheckThread(100, new long[] {MIB}, null, smaps.toString())
                .start(8 * MIB);
        long[] figures = new long[4];
        r.figures(figures, 0);
        assertThat(figures).containsOnly(-1L);
        assertThat(r.passed()).isFalse();
        Map<String, String> meta = new HashMap<>();
        r.metadata(meta);
        assertThat(meta.get("processMemory.rssDetailOff")).startsWith("the heap is too small (at most 8 MiB, below "
                + ResidentCheckThread.MIN_HEAP_MIB + " MiB)");
        assertThat(meta).containsEntry("processMemory.rssDetailPasses", "0");
    }

    @Test
    void aFileThatCannotBeReadTurnsItOffWithTheReason(@TempDir Path dir) {
        String missing = dir.resolve("no-smaps").toString();
        ResidentCheckThread r = new ResidentCheckThread(100, new long[] {MIB}, null, missing).start(1024 * MIB);
        Map<String, String> meta = new HashMap<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            r.metadata(meta);
            return meta.containsKey("processMemory.rssDetailOff");
        });
        r.stop();
        assertThat(meta.get("processMemory.rssDetailOff")).startsWith("cannot read " + missing);
        assertThat(meta).containsEntry("processMemory.rssDetailFailures", "1").containsEntry(
                "processMemory.rssDetailPasses", "0");
    }
}
