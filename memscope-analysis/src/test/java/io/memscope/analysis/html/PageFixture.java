package io.memscope.analysis.html;

import io.memscope.analysis.json.JsonWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A realistic page-data document (docs/formats/report-html.md) of an imagined web shop, with every section the
 * page draws: per-stack figures with allocation per timeline bucket, a timeline, GC collections, a peak, leak
 * suspects, temporaries, native leaks, anomalies and an accounting table. Its figures are known here, so tests can
 * compute what the page must show (a search's share, the top site of a time range) independently of the page.
 *
 * <p>The run lasts 20 s in 200 buckets of 100 ms. A nightly report job ({@link #BATCH_SITE}) allocates only
 * between 12 s and 16 s ({@link #BATCH_FROM_MS}, {@link #BATCH_TO_MS}); the rest allocate all the time.
 */
final class PageFixture {
    static final int BUCKETS = 200;
    static final long BUCKET_MS = 100;
    static final long BATCH_FROM_MS = 12_000;
    static final long BATCH_TO_MS = 16_000;
    static final String BATCH_SITE = "com.example.shop.report.NightlyReport.render(NightlyReport.java:88)";
    static final String LEAK_SITE = "com.example.shop.cache.SessionCache.remember(SessionCache.java:57)";
    static final String TEMP_SITE = "com.example.shop.api.PriceFormatter.format(PriceFormatter.java:31)";
    static final String NATIVE_SITE = "com.example.shop.io.ImageStore.load(ImageStore.java:120)";

    /** One stack: frames innermost first, its type and figures. */
    record Stack(List<String> frames, String type, boolean nativeStack, long allocBytes, long allocObjects,
                 long heldBytes, long peakBytes, long nativeBytes, boolean leak, long fromMs, long toMs) {
    }

    final String command;
    final String threadName;
    final List<Stack> stacks = new ArrayList<>();

    PageFixture(String command, String threadName) {
        this.command = command;
        this.threadName = threadName;
    }

    static PageFixture shop() {
        PageFixture f = new PageFixture("com.example.shop.ShopServer --port 8080 --profile prod", "http-nio-8080-exec-1");
        List<String> http = List.of(
                "com.example.shop.api.OrderController.post(OrderController.java:64)",
                "org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)",
                "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:166)",
                "org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)",
                "java.lang.Thread.run(Thread.java:1583)");
        f.add(cat(List.of(LEAK_SITE, "com.example.shop.session.SessionFilter.doFilter(SessionFilter.java:40)"), http),
                "com.example.shop.cache.SessionCache$Entry", false, 96L << 20, 1_500_000, 88L << 20, 70L << 20, 0, true,
                0, 20_000);
        f.add(cat(List.of("java.util.HashMap.resize(HashMap.java:710)", "java.util.HashMap.putVal(HashMap.java:635)",
                        "java.util.HashMap.put(HashMap.java:618)", LEAK_SITE,
                        "com.example.shop.session.SessionFilter.doFilter(SessionFilter.java:40)"), http),
                "java.util.HashMap$Node[]", false, 24L << 20, 3_000, 20L << 20, 16L << 20, 0, true, 0, 20_000);
        f.add(cat(List.of("java.lang.StringBuilder.toString(StringBuilder.java:453)", TEMP_SITE,
                        "com.example.shop.api.OrderController.render(OrderController.java:91)"), http),
                "java.lang.String", false, 610L << 20, 14_000_000, 1L << 20, 2L << 20, 0, false, 0, 20_000);
        f.add(cat(List.of("java.util.Arrays.copyOf(Arrays.java:3537)",
                        "java.lang.AbstractStringBuilder.ensureCapacityInternal(AbstractStringBuilder.java:228)",
                        "java.lang.StringBuilder.append(StringBuilder.java:179)", TEMP_SITE,
                        "com.example.shop.api.OrderController.render(OrderController.java:91)"), http),
                "byte[]", false, 420L << 20, 9_000_000, 0, 1L << 20, 0, false, 0, 20_000);
        f.add(cat(List.of("com.fasterxml.jackson.core.util.BufferRecycler.balloc(BufferRecycler.java:155)",
                        "com.fasterxml.jackson.databind.ObjectMapper.writeValueAsString(ObjectMapper.java:3964)",
                        "com.example.shop.api.OrderController.render(OrderController.java:95)"), http),
                "byte[]", false, 180L << 20, 90_000, 0, 3L << 20, 0, false, 0, 20_000);
        f.add(List.of(BATCH_SITE, "com.example.shop.report.NightlyReport.run(NightlyReport.java:40)",
                        "java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)",
                        "java.lang.Thread.run(Thread.java:1583)"),
                "long[]", false, 300L << 20, 40_000, 0, 150L << 20, 0, false, BATCH_FROM_MS, BATCH_TO_MS);
        f.add(List.of("java.util.ArrayList.grow(ArrayList.java:237)", "java.util.ArrayList.add(ArrayList.java:466)",
                        "com.example.shop.report.NightlyReport.collect(NightlyReport.java:72)",
                        "com.example.shop.report.NightlyReport.run(NightlyReport.java:38)",
                        "java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)",
                        "java.lang.Thread.run(Thread.java:1583)"),
                "java.lang.Object[]", false, 60L << 20, 20_000, 0, 40L << 20, 0, false, BATCH_FROM_MS, BATCH_TO_MS);
        f.add(cat(List.of(NATIVE_SITE, "com.example.shop.api.ImageController.get(ImageController.java:33)"), http),
                "native:direct-buffer", true, 0, 0, 0, 0, 12L << 20, true, 0, 20_000); // outstanding and growing
        return f;
    }

    /** A page whose every application-given name is an attempt to inject markup or script. */
    static PageFixture hostile() {
        PageFixture f = new PageFixture("</script><script>window.pwned=1</script> <!-- --port=\u2028\u2029 &amp;",
                "<img src=x onerror=\"window.pwned=1\">");
        f.add(List.of("evil.<script>alert(1)</script>.run(<b>Evil</b>.java:1)",
                        "evil.Main.main(</script><!--<script>alert(2)</script>.java:2)"),
                "<svg onload=alert(3)>", false, 50L << 20, 1000, 40L << 20, 30L << 20, 0, true, 0, 20_000);
        f.add(List.of("evil.\u2028Line.sep(\u2029.java:3)", "evil.Main.main(Main.java:4)"),
                "\"'&<>", false, 20L << 20, 500, 0, 1L << 20, 0, false, 0, 20_000);
        return f;
    }

    private static List<String> cat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    void add(List<String> frames, String type, boolean nativeStack, long allocBytes, long allocObjects, long held,
             long peak, long nat, boolean leak, long fromMs, long toMs) {
        stacks.add(new Stack(frames, type, nativeStack, allocBytes, allocObjects, held, peak, nat, leak, fromMs,
                toMs));
    }

    /** Bytes stack {@code s} allocated in bucket {@code b}: its bytes spread evenly over its active buckets. */
    long bucketBytes(Stack s, int b) {
        long start = b * BUCKET_MS;
        if (s.allocBytes() == 0 || start < s.fromMs() || start >= s.toMs()) {
            return 0;
        }
        long active = (s.toMs() - s.fromMs()) / BUCKET_MS;
        return s.allocBytes() / active;
    }

    long totalAlloc() {
        return stacks.stream().mapToLong(Stack::allocBytes).sum();
    }

    /** The page-data JSON of this fixture. */
    String json() {
        Map<String, Integer> frameIds = new LinkedHashMap<>();
        Map<String, Integer> typeIds = new LinkedHashMap<>();
        for (Stack s : stacks) {
            s.frames().forEach(fr -> frameIds.putIfAbsent(fr, frameIds.size()));
            typeIds.putIfAbsent(s.type(), typeIds.size());
        }
        // one site per distinct innermost application frame + type
        Map<String, List<Integer>> siteStacks = new LinkedHashMap<>();
        for (int i = 0; i < stacks.size(); i++) {
            siteStacks.computeIfAbsent(siteOf(stacks.get(i)) + '\u0000' + stacks.get(i).type(), k -> new ArrayList<>())
                    .add(i);
        }
        List<String> siteKeys = new ArrayList<>(siteStacks.keySet());
        JsonWriter w = JsonWriter.compact();
        w.beginObject().field("format", PageData.FORMAT).field("version", PageData.VERSION).field("kind", "report");
        w.name("meta").beginObject().field("command", command).field("pid", "4242").field("jvm", "25.0.1")
                .field("mode", "sample").field("intervalBytes", 524288).field("durationMs", BUCKETS * BUCKET_MS)
                .field("startEpochMs", 1_767_000_000_000L).field("sampler", "jvmti").field("attached", false)
                .field("applicationPackage", "com.example.shop.").field("thread", threadName).endObject();
        long held = stacks.stream().mapToLong(Stack::heldBytes).sum();
        long peak = stacks.stream().mapToLong(Stack::peakBytes).sum();
        long nat = stacks.stream().mapToLong(Stack::nativeBytes).sum();
        w.name("totals").beginObject().field("allocatedBytes", totalAlloc())
                .field("allocatedObjects", stacks.stream().mapToLong(Stack::allocObjects).sum())
                .field("heldAtEndBytes", held).field("peakHeldBytes", peak).field("peakTimeMs", 15_050)
                .field("nativeOutstandingBytes", nat).field("nativeOutstandingBlocks", 12)
                .field("nativePeakBytes", nat).field("nativeAllocatedBytes", nat * 3)
                .field("gcCount", 60).field("gcPauseCount", 60).field("gcPauseTotalMs", 60 * 6.5)
                .field("gcPauseMaxMs", 41.0).field("maxHeapAfterGcBytes", 520L << 20).field("samples", 4100)
                .field("exact", false).endObject();
        w.name("stacks").beginObject();
        w.name("frames").beginArray();
        for (Stack s : stacks) {
            w.beginArray();
            s.frames().forEach(fr -> w.value(frameIds.get(fr)));
            w.endArray();
        }
        w.endArray();
        longs(w, "type", stacks.stream().mapToLong(s -> typeIds.get(s.type())).toArray());
        long[] site = new long[stacks.size()];
        for (int k = 0; k < siteKeys.size(); k++) {
            for (int i : siteStacks.get(siteKeys.get(k))) {
                site[i] = k;
            }
        }
        longs(w, "site", site);
        longs(w, "native", stacks.stream().mapToLong(s -> s.nativeStack() ? 1 : 0).toArray());
        longs(w, "allocBytes", stacks.stream().mapToLong(Stack::allocBytes).toArray());
        longs(w, "allocObjects", stacks.stream().mapToLong(Stack::allocObjects).toArray());
        longs(w, "heldBytes", stacks.stream().mapToLong(Stack::heldBytes).toArray());
        longs(w, "peakBytes", stacks.stream().mapToLong(Stack::peakBytes).toArray());
        longs(w, "nativeBytes", stacks.stream().mapToLong(Stack::nativeBytes).toArray());
        longs(w, "leak", stacks.stream().mapToLong(s -> s.leak() ? 1 : 0).toArray());
        w.name("allocByBucket").beginArray();
        for (Stack s : stacks) {
            w.beginArray();
            int previous = -1;
            for (int b = 0; b < BUCKETS; b++) {
                long v = bucketBytes(s, b);
                if (v > 0) {
                    w.value(b - previous).value(v);
                    previous = b;
                }
            }
            w.endArray();
        }
        w.endArray().endObject();
        w.name("frames").beginArray();
        frameIds.keySet().forEach(w::value);
        w.endArray();
        w.name("frameKinds").beginArray();
        FrameKinds kinds = FrameKinds.of(command, stacks.stream().map(Stack::frames).toList());
        frameIds.keySet().forEach(fr -> w.value(kinds.kind(fr)));
        w.endArray();
        w.name("types").beginArray();
        typeIds.keySet().forEach(w::value);
        w.endArray();
        w.name("sites").beginArray();
        for (String key : siteKeys) {
            List<Integer> idx = siteStacks.get(key);
            Stack first = stacks.get(idx.get(0));
            long alloc = idx.stream().mapToLong(i -> stacks.get(i).allocBytes()).sum();
            long heldB = idx.stream().mapToLong(i -> stacks.get(i).heldBytes()).sum();
            boolean temp = alloc > (100L << 20) && heldB * 20 < alloc && first.fromMs() == 0;
            w.beginObject().field("site", siteOf(first)).field("type", typeIds.get(first.type()))
                    .field("native", first.nativeStack()).field("allocBytes", alloc)
                    .field("allocObjects", idx.stream().mapToLong(i -> stacks.get(i).allocObjects()).sum())
                    .field("heldBytes", heldB).field("heldObjects", heldB / 64)
                    .field("peakBytes", idx.stream().mapToLong(i -> stacks.get(i).peakBytes()).sum())
                    .field("heldAtPeakBytes", idx.stream().mapToLong(i -> stacks.get(i).peakBytes()).sum())
                    .field("nativeBytes", idx.stream().mapToLong(i -> stacks.get(i).nativeBytes()).sum())
                    .field("nativeBlocks", first.nativeStack() ? 12 : 0)
                    .field("growthBytes", !first.leak() ? 0 : first.nativeStack()
                            ? idx.stream().mapToLong(i -> stacks.get(i).nativeBytes()).sum() / 2 : heldB / 2)
                    .field("medianAgeAtCollectionMs", temp ? 0.35 : -1)
                    .field("freedByFirstCollectionShare", temp ? 0.97 : -1).field("samples", alloc / 524288)
                    .field("leak", first.leak() && !first.nativeStack())
                    .field("nativeLeak", first.leak() && first.nativeStack()).field("temporary", temp);
            w.name("stacks").beginArray();
            idx.forEach(w::value);
            w.endArray().endObject();
        }
        w.endArray();
        w.name("anomalies").beginArray();
        w.beginObject().field("kind", "double-free").field("address", 0x7f00dead0000L).field("size", 4096)
                .field("timeMs", 9_500.0);
        w.name("stack").beginArray().value(frameIds.get(stacks.get(stacks.size() - 1).frames().get(0))).endArray();
        w.endObject().endArray();
        gc(w);
        timeline(w);
        w.name("peak").beginObject().field("timeMs", 15_050.0).field("heapUsedAfterGcBytes", 520L << 20)
                .field("estimatedBytes", peak).endObject();
        w.name("accounting").beginArray();
        w.beginObject().field("title", "by user");
        w.name("columns").beginArray()
                .beginObject().field("name", "user").field("unit", "text").endObject()
                .beginObject().field("name", "current").field("unit", "bytes").endObject()
                .beginObject().field("name", "high").field("unit", "bytes").endObject()
                .endArray();
        w.name("rows").beginArray();
        w.beginArray().value(threadName).value(12L << 20).value(40L << 20).endArray();
        w.beginArray().value("tenant-b").value(3L << 20).value(9L << 20).endArray();
        w.endArray().endObject().endArray();
        w.name("failures").beginObject().field("count", 0).name("messages").beginArray().endArray().endObject();
        w.name("notes").beginArray().value("Test fixture: " + threadName).endArray();
        w.endObject();
        return w.toString();
    }

    /**
     * A large synthetic profile for size and first-paint measurements: {@code count} stacks drawn as random walks
     * through a call tree (branching 3, depth 12 to 40, about 6,000 distinct frames), so stacks share their outer
     * frames as real ones do; each allocates in up to 30 consecutive buckets.
     */
    static PageFixture scaled(int count, long seed) {
        java.util.Random r = new java.util.Random(seed);
        PageFixture f = new PageFixture("com.example.big.Main --scale " + count, "main");
        String[] pkgs = {"com.example.big.", "org.apache.kafka.clients.", "java.util.", "io.netty.buffer.",
                "com.fasterxml.jackson.databind.", "java.lang."};
        for (int i = 0; i < count; i++) {
            int depth = 12 + r.nextInt(29);
            List<String> frames = new ArrayList<>();
            long node = 1;
            for (int d = 0; d < depth; d++) {
                node = (node * 3 + r.nextInt(3)) % 400_009;
                long code = node % 6007; // a few thousand distinct frames, as in a real application
                String pkg = pkgs[(int) (code % pkgs.length)];
                frames.add(0, pkg + "Class" + (code % 499) + ".method" + (code % 13) + "(Class" + (code % 499)
                        + ".java:" + (10 + code % 400) + ")");
            }
            long bytes = (long) (Math.exp(r.nextGaussian() * 2 + 12));
            long from = r.nextInt(BUCKETS - 30) * BUCKET_MS;
            f.add(frames, "byte[]" + (i % 7 == 0 ? "" : "[]".repeat(i % 3)), false, bytes, bytes / 64 + 1,
                    r.nextInt(10) == 0 ? bytes / 3 : 0, r.nextInt(5) == 0 ? bytes / 2 : 0, 0, r.nextInt(50) == 0,
                    from, from + (1 + r.nextInt(30)) * BUCKET_MS);
        }
        return f;
    }

    static final String NEW_SITE = "com.example.shop.api.Recommendations.compute(Recommendations.java:77)";

    /** How a stack's allocated bytes changed in the compared run of {@link #diffJson()}. */
    static long newBytes(Stack s) {
        String site = siteOf(s);
        if (site.equals(LEAK_SITE)) {
            return s.allocBytes() * 3;
        }
        if (site.equals(TEMP_SITE)) {
            return s.allocBytes() / 2;
        }
        if (site.startsWith("com.example.shop.report.")) {
            return 0;
        }
        return s.allocBytes();
    }

    /**
     * A comparison page of the shop with a newer build of itself, compared by allocated bytes: the session cache
     * allocates three times as much, the price formatter half, the nightly report is gone and a recommendation
     * engine is new.
     */
    static String diffJson() {
        PageFixture f = shop();
        f.stacks.removeIf(x -> x.nativeStack());
        f.add(List.of(NEW_SITE, "com.example.shop.api.OrderController.post(OrderController.java:70)",
                "java.lang.Thread.run(Thread.java:1583)"), "double[]", false, 0, 0, 0, 0, 0, false, 0, 20_000);
        Map<String, Integer> frameIds = new LinkedHashMap<>();
        Map<String, Integer> typeIds = new LinkedHashMap<>();
        for (Stack x : f.stacks) {
            x.frames().forEach(fr -> frameIds.putIfAbsent(fr, frameIds.size()));
            typeIds.putIfAbsent(x.type(), typeIds.size());
        }
        long[] base = new long[f.stacks.size()];
        long[] now = new long[f.stacks.size()];
        for (int i = 0; i < base.length; i++) {
            Stack x = f.stacks.get(i);
            base[i] = x.allocBytes();
            now[i] = x.frames().get(0).equals(NEW_SITE) ? 90L << 20 : newBytes(x);
        }
        JsonWriter w = JsonWriter.compact();
        w.beginObject().field("format", PageData.FORMAT).field("version", PageData.VERSION).field("kind", "diff");
        w.name("meta").beginObject().field("metric", "allocated").field("metricLabel", "allocated bytes")
                .field("normalized", false).field("applicationPackage", "com.example.shop.");
        w.name("base").beginObject().field("label", "runs/v41/4242").field("command", f.command)
                .field("durationMs", 20_000).field("startEpochMs", 1_767_000_000_000L).endObject();
        w.name("new").beginObject().field("label", "runs/v42/5150").field("command", f.command)
                .field("durationMs", 20_000).field("startEpochMs", 1_767_100_000_000L).endObject();
        w.endObject();
        w.name("totals").beginObject().field("baseBytes", java.util.Arrays.stream(base).sum())
                .field("newBytes", java.util.Arrays.stream(now).sum()).endObject();
        w.name("stacks").beginObject();
        w.name("frames").beginArray();
        for (Stack x : f.stacks) {
            w.beginArray();
            x.frames().forEach(fr -> w.value(frameIds.get(fr)));
            w.endArray();
        }
        w.endArray();
        longs(w, "type", f.stacks.stream().mapToLong(x -> typeIds.get(x.type())).toArray());
        longs(w, "baseBytes", base);
        longs(w, "newBytes", now);
        long[] delta = new long[base.length];
        for (int i = 0; i < base.length; i++) {
            delta[i] = now[i] - base[i];
        }
        longs(w, "deltaBytes", delta);
        w.endObject();
        w.name("frames").beginArray();
        frameIds.keySet().forEach(w::value);
        w.endArray();
        FrameKinds kinds = FrameKinds.of(f.command, f.stacks.stream().map(Stack::frames).toList());
        w.name("frameKinds").beginArray();
        frameIds.keySet().forEach(fr -> w.value(kinds.kind(fr)));
        w.endArray();
        w.name("types").beginArray();
        typeIds.keySet().forEach(w::value);
        w.endArray();
        Map<String, List<Integer>> sites = new LinkedHashMap<>();
        for (int i = 0; i < f.stacks.size(); i++) {
            sites.computeIfAbsent(siteOf(f.stacks.get(i)) + '\u0000' + f.stacks.get(i).type(),
                    k -> new ArrayList<>()).add(i);
        }
        w.name("diffSites").beginArray();
        for (List<Integer> idx : sites.values()) {
            Stack first = f.stacks.get(idx.get(0));
            long b = idx.stream().mapToLong(i -> base[i]).sum();
            long n = idx.stream().mapToLong(i -> now[i]).sum();
            w.beginObject().field("site", siteOf(first)).field("type", typeIds.get(first.type()))
                    .field("baseBytes", b).field("newBytes", n).field("deltaBytes", n - b);
            w.name("stacks").beginArray();
            idx.forEach(w::value);
            w.endArray().endObject();
        }
        w.endArray();
        w.name("notes").beginArray().value("Test fixture.").endArray();
        w.endObject();
        return w.toString();
    }

    /** The innermost frame of the application (the site), or the innermost frame. */
    static String siteOf(Stack s) {
        for (String fr : s.frames()) {
            if (fr.startsWith("com.example.") || fr.startsWith("evil.")) {
                return fr;
            }
        }
        return s.frames().get(0);
    }

    private void gc(JsonWriter w) {
        w.name("gc").beginObject();
        w.name("pausePercentilesMs").beginObject().field("count", 60).field("p50", 5.0).field("p90", 9.0)
                .field("p99", 41.0).field("max", 41.0).endObject();
        w.name("byCollector").beginArray()
                .beginObject().field("name", "G1 Young Generation").field("count", 58).field("totalMs", 330.0)
                .field("maxMs", 12.0).endObject()
                .beginObject().field("name", "G1 Old Generation").field("count", 2).field("totalMs", 60.0)
                .field("maxMs", 41.0).endObject()
                .endArray();
        w.name("collections").beginArray();
        for (int i = 0; i < 60; i++) {
            long t = 150 + i * 330L;
            boolean old = i == 29 || i == 59;
            long base = (60L << 20) + (long) i * (2L << 20) + (t >= BATCH_FROM_MS && t < BATCH_TO_MS ? 380L << 20 : 0);
            w.beginObject().field("timeMs", (double) t).field("durationMs", old ? 41.0 : 4.0 + i % 7)
                    .field("name", old ? "G1 Old Generation" : "G1 Young Generation")
                    .field("cause", i == 7 ? threadName : "G1 Evacuation Pause").field("pause", true)
                    .field("usedBeforeBytes", base + (180L << 20)).field("usedAfterBytes", base)
                    .field("committedBytes", 1L << 30).endObject();
        }
        w.endArray().endObject();
    }

    private void timeline(JsonWriter w) {
        w.name("timeline").beginObject();
        long[] start = new long[BUCKETS];
        long[] alloc = new long[BUCKETS];
        long[] heldB = new long[BUCKETS];
        long[] nat = new long[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            start[b] = b * BUCKET_MS;
            for (Stack s : stacks) {
                alloc[b] += bucketBytes(s, b);
            }
            long t = start[b];
            heldB[b] = (40L << 20) + (long) b * (520L << 10)
                    + (t >= BATCH_FROM_MS && t < BATCH_TO_MS ? (190L << 20) * (t - BATCH_FROM_MS) / 4000 : 0);
            nat[b] = (12L << 20) * b / BUCKETS;
        }
        longs(w, "startMs", start);
        longs(w, "allocatedBytes", alloc);
        longs(w, "heldBytes", heldB);
        longs(w, "nativeOutstandingBytes", nat);
        w.endObject();
    }

    private static void longs(JsonWriter w, String name, long[] values) {
        w.name(name).beginArray();
        for (long v : values) {
            w.value(v);
        }
        w.endArray();
    }
}
