package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jline.utils.AttributedString;
import org.junit.jupiter.api.Test;

/** The layout of one {@code memscope top} frame, from fixed figures. */
class TopScreenTest {
    private static TopFrame frame(TopSort sort, long gcWindow, long heldAge) {
        return frame(sort, gcWindow, heldAge, -1);
    }

    private static TopFrame frame(TopSort sort, long gcWindow, long heldAge, long mallocBytes) {
        return new TopFrame("4242", "sample", 512 * 1024, 75_000, 0, 300L << 20, 1L << 30, 4L << 30, 120L << 20,
                heldAge, 800L << 20, true, 3 << 20, 7, gcWindow, 3, 12, 6, 1,
                List.of("G1 Young Generation", "G1 Concurrent GC"), sort,
                List.of(new TopFrame.Row("com.acme.Cache.put(Cache.java:42)", "byte[]", 100L << 20, 101L << 20,
                                2L << 20, 101L << 20, 1L << 20),
                        new TopFrame.Row("com.acme.Parser.token(Parser.java:7)",
                                "java.util.concurrent.ConcurrentHashMap$Node", 0, 90L << 20, 700L << 20, 40L << 30, 0)),
                16L << 20, java.util.Map.of("rss", 700L << 20, "rssAnon", 650L << 20, "rssFile", 50L << 20,
                        "heapCommitted", 1L << 30, "metaspace", 40L << 20, "codeCache", 10L << 20, "threads", 19L,
                        "threadStacks", 19L << 20, "directBuffers", 3L << 20, "trackedNative", 4L << 20),
                mallocBytes, false);
    }

    @Test
    void mallocOutstandingIsShownWhenTheAgentSamplesIt() {
        List<String> l = text(TopScreen.render(frame(TopSort.HELD, 1000, 1200, 12L << 20), 0, true, false));
        assertThat(l.get(2)).isEqualTo("alloc  800.0 MiB/s (all threads)  native outstanding 3.0 MiB in 7 blocks, "
                + "malloc 12.0 MiB (est.)");
    }

    /** Attached to a running JVM: the native figure (a pool's chunks taken before) starts at the attach. */
    @Test
    void anAttachedAgentsFiguresSayTheyStartAtTheAttach() {
        TopFrame f = frame(TopSort.HELD, 1000, 1200);
        TopFrame attached = new TopFrame(f.pid(), f.mode(), f.intervalBytes(), f.uptimeMillis(), f.takenAtMillis(),
                f.heapUsed(), f.heapCommitted(), f.heapMax(), f.heldBytes(), f.heldAgeMillis(), f.allocationRate(),
                f.allocationRateExact(), f.nativeBytes(), f.nativeBlocks(), f.gcWindowMillis(), f.gcPauses(),
                f.gcPauseMillis(), f.gcPauseMaxMillis(), f.gcCycles(), f.gcCollectors(), f.sort(), f.rows(),
                f.unconfirmedBytes(), f.processMemory(), f.mallocBytes(), true);
        List<String> l = text(TopScreen.render(attached, 0, true, false));
        assertThat(l.get(0)).contains("attached 1m15s ago").doesNotContain(" up ");
        assertThat(l.get(2)).isEqualTo("alloc  800.0 MiB/s (all threads)  native outstanding since the attach "
                + "3.0 MiB in 7 blocks");
        assertThat(text(TopScreen.render(f, 0, true, false)).get(0)).contains(" up 1m15s ");
    }

    private static List<String> text(List<AttributedString> lines) {
        return lines.stream().map(AttributedString::toString).toList();
    }

    @Test
    void theHeaderSaysWhatEachFigureIs() {
        List<String> l = text(TopScreen.render(frame(TopSort.HELD, 1000, 1200), 0, true, false));
        assertThat(l.get(0)).startsWith("memscope top  pid 4242  sample mode, interval 512.0 KiB  up 1m15s")
                .endsWith("[running]");
        assertThat(l.get(1)).isEqualTo("heap   used 300.0 MiB of 1.0 GiB committed (max 4.0 GiB)  held ~120 MiB "
                + "(est., reachable at the whole-heap GC 1.2 s ago) + ~16 MiB unconfirmed");
        assertThat(l.get(2)).isEqualTo("alloc  800.0 MiB/s (all threads)  native outstanding 3.0 MiB in 7 blocks");
        assertThat(l.get(3)).as("committed parts above RSS: other is 0").isEqualTo("rss    700.0 MiB (anon 650.0 MiB, "
                + "file 50.0 MiB)  heap 1.0 GiB  metaspace 40.0 MiB  code 10.0 MiB  threads 19 (stacks 19.0 MiB)  "
                + "direct 3.0 MiB  malloc 1.0 MiB  files 50.0 MiB  other 0 B");
        assertThat(l.get(4)).isEqualTo("gc     last 1.0 s: 3 pauses, 12 ms in all, longest 6 ms; 1 concurrent cycle  "
                + "(G1 Young Generation, G1 Concurrent GC)");
        assertThat(l.get(5)).startsWith("keys: h held  r rate  l live  a allocated  w why held  p pause  q quit").endsWith("sort: held");
        assertThat(l.get(7)).contains("*held").doesNotContain("*rate");
        assertThat(l.get(8)).contains("~100 MiB", "~2 MiB/s", "byte[]", "com.acme.Cache.put(Cache.java:42)");
        // a site holding nothing in the held order: one the live order added below the sites holding something
        assertThat(l.get(9)).isEqualTo("  (below: sites holding nothing at the last whole-heap GC, by live bytes)");
        assertThat(l.get(10)).contains("ConcurrentHashM~ ", "com.acme.Parser.token(Parser.java:7)");
        assertThat(l).hasSize(TopScreen.HEADER_LINES + 3);
    }

    @Test
    void residentPartsAreMarkedAndTheMappedPoolIsPartOfTheFiles() {
        java.util.Map<String, Long> pm = new java.util.HashMap<>(java.util.Map.of("rss", 700L << 20, "rssAnon",
                600L << 20, "rssFile", 100L << 20, "heapCommitted", 1L << 30, "heapResident", 300L << 20,
                "metaspace", 40L << 20, "codeCache", 10L << 20, "codeCacheResident", 6L << 20, "threads", 19L));
        pm.putAll(java.util.Map.of("threadStacks", 19L << 20, "threadStacksResident", 2L << 20, "directBuffers",
                100L << 20, "trackedNative", 100L << 20, "mappedBuffers", 64L << 20));
        assertThat(TopScreen.rss(pm)).isEqualTo("rss    700.0 MiB (anon 600.0 MiB, file 100.0 MiB, mapped 64.0 MiB)  "
                + "heap 300.0 MiB res  metaspace 40.0 MiB  code 6.0 MiB res  threads 19 (stacks 2.0 MiB res)  "
                + "direct 100.0 MiB  malloc 0 B  files 100.0 MiB  other 152.0 MiB");
        pm.put("residentAge", 1_200_000_000L);
        assertThat(TopScreen.rss(pm)).as("the resident figures' age").endsWith("other 152.0 MiB  (res 1.2 s ago)");
    }

    @Test
    void plainOutputHasNoKeysAndTheFirstFrameHasNoGcWindowYet() {
        List<String> l = text(TopScreen.render(frame(TopSort.RATE, 0, -1), 0, false, false));
        assertThat(l.get(0)).doesNotContain("[running]", "[PAUSED]");
        assertThat(l.get(1)).endsWith("held: no whole-heap GC yet + ~16 MiB unconfirmed");
        assertThat(l.get(3)).startsWith("rss    700.0 MiB");
        assertThat(l.get(4)).contains("from the next refresh on");
        assertThat(l.get(5)).isEqualTo("sort: rate");
        assertThat(l.get(7)).contains("*rate");
    }

    @Test
    void everyLineFitsTheWidthAndPausedIsShown() {
        List<AttributedString> lines = TopScreen.render(frame(TopSort.LIVE, 1000, 5), 60, true, true);
        for (AttributedString s : lines) {
            assertThat(s.columnLength()).isLessThanOrEqualTo(60);
        }
        assertThat(lines.get(0).toString()).endsWith("~");
        assertThat(text(TopScreen.render(frame(TopSort.LIVE, 1000, 5), 0, true, true)).get(0)).endsWith("[PAUSED]");
    }

    /** Names of the target JVM's sites, types and collectors cannot colour, retitle, clear or forge lines. */
    @Test
    void noNameOfTheTargetActsOnTheTerminal() {
        String hostile = "\u001b[31mred\u001b]0;pwned\u0007\u001b[2J\u009b1m\r\nFORGED: leak of 999 GiB";
        TopFrame f = new TopFrame("4242", "sample", 512 * 1024, 75_000, 0, 300L << 20, 1L << 30, 4L << 30,
                120L << 20, 5, 800L << 20, true, 3 << 20, 7, 1000, 3, 12, 6, 1, List.of("GC " + hostile),
                TopSort.HELD, List.of(new TopFrame.Row("com.acme." + hostile + ".put(Cache.java:42)", hostile,
                        100L << 20, 101L << 20, 2L << 20, 101L << 20, 0)), 0, java.util.Map.of(), -1, false);
        List<String> l = text(TopScreen.render(f, 0, true, false));
        for (String line : l) {
            assertThat(line).doesNotContain("\u001b", "\r", "\n", "\u0007", "\u009b");
        }
        assertThat(String.join("\n", l)).contains("\\e[31mred\\e]0;pwned\\x07\\e[2J\\x9b1m\\r\\nFORGED");
        assertThat(l).hasSize(TopScreen.HEADER_LINES + 1);
    }

    /**
     * The sites' figures are estimates and show their precision as the report does: a new user's Netty and Caffeine
     * program had rows of one sample each shown as "512.0 KiB" (the report said "~500 KiB (1 sample)"), and types
     * cut to their package ("java.util.concu~", "com.github.benm~"). In exact mode the figures are counted, shown
     * whole.
     */
    @Test
    void siteFiguresShowTheirPrecisionAndTypesTheirClassName() {
        TopFrame.Row one = new TopFrame.Row("com.github.benmanes.caffeine.cache.BoundedLocalCache.put("
                + "BoundedLocalCache.java:2304)", "java.util.concurrent.ConcurrentHashMap$Node", 512 * 1024,
                512 * 1024, 0, 512 * 1024, 0);
        TopFrame.Row lambda = new TopFrame.Row("com.github.benmanes.caffeine.cache.BoundedLocalCache.evictEntry("
                + "BoundedLocalCache.java:1024)", "com.github.benmanes.caffeine.cache.BoundedLocalCache$$Lambda$84"
                + ".0x00007fd4780b4498", 0, 3L << 20, 1 << 20, 47L << 20, 0);
        TopFrame sampled = new TopFrame("4242", "sample", 512 * 1024, 9_300, 0, 150L << 20, 768L << 20, 6L << 30,
                57L << 20, 500, 126L << 20, true, 0, 0, 0, 0, 0, 0, 0, List.of(), TopSort.HELD, List.of(one, lambda),
                0, java.util.Map.of(), -1, false);
        List<String> l = text(TopScreen.render(sampled, 0, false, false));
        assertThat(l.get(1)).contains("held ~57 MiB (est.");
        assertThat(l.get(8)).startsWith("  ~500 KiB").contains(" ConcurrentHashM~ ").doesNotContain("512.0 KiB");
        assertThat(l.get(10)).contains("~3 MiB", "~47 MiB", " BoundedLocalCac~ ");

        TopFrame exact = new TopFrame("4242", "exact", 1, 9_300, 0, 150L << 20, 768L << 20, 6L << 30, 57L << 20, 500,
                126L << 20, true, 0, 0, 0, 0, 0, 0, 0, List.of(), TopSort.HELD, List.of(one), 0, java.util.Map.of(),
                -1, false);
        assertThat(text(TopScreen.render(exact, 0, false, false)).get(8)).startsWith(" 512.0 KiB");

        assertThat(TopScreen.shortType("java.util.concurrent.ConcurrentHashMap$Node"))
                .isEqualTo("ConcurrentHashMap$Node");
        assertThat(TopScreen.shortType("java.lang.String[][]")).isEqualTo("String[][]");
        assertThat(TopScreen.shortType("byte[]")).isEqualTo("byte[]");
        assertThat(TopScreen.shortType("a.B$$Lambda/0x0000000801001234")).isEqualTo("B$$Lambda");
        assertThat(TopScreen.shortType("native:direct-buffer")).isEqualTo("native:direct-buffer");
    }

    @Test
    void durations() {
        assertThat(TopScreen.duration(850)).isEqualTo("850 ms");
        assertThat(TopScreen.duration(12_345)).isEqualTo("12.3 s");
        assertThat(TopScreen.duration(245_000)).isEqualTo("4m05s");
        assertThat(TopScreen.duration(7_380_000)).isEqualTo("2h03m");
    }

    @Test
    void aRowWhoseSiteTheWalkReachedHasItsMainPathBelowIt() {
        TopPaths paths = new TopPaths("heap walk complete: 3 of 4 tracked samples reached", java.util.Map.of(
                io.memscope.analysis.Retention.key("com.acme.Cache.put(Cache.java:42)", "byte[]"),
                "static com.acme.Cache.INSTANCE -> com.acme.Cache.map -> java.util.HashMap$Node[]"));
        List<String> l = text(TopScreen.render(frame(TopSort.HELD, 1000, 1200), 0, true, false, paths));
        assertThat(l.get(5)).endsWith("heap walk complete: 3 of 4 tracked samples reached");
        assertThat(l.get(8)).contains("com.acme.Cache.put(Cache.java:42)");
        assertThat(l.get(9)).isEqualTo("           held by static com.acme.Cache.INSTANCE -> com.acme.Cache.map -> "
                + "java.util.HashMap$Node[]");
        assertThat(l.get(11)).contains("com.acme.Parser.token(Parser.java:7)");
        assertThat(l).hasSize(TopScreen.HEADER_LINES + 4);
    }

    /**
     * Before the first whole-heap GC the agent's held order has only the sites with unconfirmed bytes (a web server
     * allocating 120 MiB/s showed one row of 6 MiB): the rest of the table is the live order, said so.
     */
    @Test
    void theHeldOrderIsFilledFromTheLiveOrderAndSaysSo() {
        TopFrame.Row leak = new TopFrame.Row("com.acme.Api.handle(Api.java:26)", "byte[]", 0, 6L << 20, 0, 6L << 20,
                6L << 20);
        TopFrame.Row rows = new TopFrame.Row("com.acme.Api.handle(Api.java:24)", "java.lang.Object[]", 0, 40L << 20,
                30L << 20, 170L << 20, 0);
        TopFrame.Row json = new TopFrame.Row("com.google.gson.Gson.toJson(Gson.java:848)", "byte[]", 0, 20L << 20,
                15L << 20, 76L << 20, 0);
        List<TopFrame.Row> merged = TopSource.withLive(List.of(leak),
                List.of(rows, new TopFrame.Row(leak.site(), leak.type(), 0, 6L << 20, 0, 6L << 20, 0), json), 3);
        assertThat(merged).extracting(TopFrame.Row::site).containsExactly(leak.site(), rows.site(), json.site());
        assertThat(TopSource.withLive(List.of(leak), List.of(rows, json), 2)).hasSize(2);
        assertThat(TopSource.withLive(List.of(leak, leak), List.of(rows), 2)).as("full: nothing added")
                .containsExactly(leak, leak);

        TopFrame f = new TopFrame("4242", "sample", 512 * 1024, 9_300, 0, 150L << 20, 768L << 20, 6L << 30, -1, -1,
                126L << 20, true, 0, 0, 0, 0, 0, 0, 0, List.of(), TopSort.HELD, merged, 6L << 20, java.util.Map.of(),
                -1, false);
        List<String> l = text(TopScreen.render(f, 0, false, false));
        assertThat(l.get(8)).endsWith(leak.site());
        assertThat(l.get(9)).isEqualTo("  (no whole-heap GC yet, so nothing is known held; below: the sites by live "
                + "bytes)");
        assertThat(l.get(10)).startsWith("       0 B").endsWith(rows.site());
        assertThat(l.get(11)).endsWith(json.site());
        assertThat(text(TopScreen.render(new TopFrame("4242", "sample", 512 * 1024, 9_300, 0, 150L << 20, 768L << 20,
                6L << 30, -1, -1, 126L << 20, true, 0, 0, 0, 0, 0, 0, 0, List.of(), TopSort.LIVE, merged, 6L << 20,
                java.util.Map.of(), -1, false), 0, false, false))).as("other orders have no such line").hasSize(
                TopScreen.HEADER_LINES + 3);
    }
}
