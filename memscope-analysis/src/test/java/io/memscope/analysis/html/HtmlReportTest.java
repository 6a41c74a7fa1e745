package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.analysis.RecordedRun;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.Site;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.json.Json;

/** The page as a file: self-contained, its data escaped, its policy matching its scripts, its data complete. */
class HtmlReportTest {
    static final String HOSTILE_CLASS = "evil.<script>alert(1)</script>";
    static final String HOSTILE_THREAD = "</script><!--<img src=x onerror=window.pwned=1>\u2028";
    static final String HOSTILE_COMMAND = HOSTILE_CLASS + " </SCRIPT><script>window.pwned=1</script> &lt; \u2029";
    /** The name of a scope, a pool, a named object and a profiled function's call site in the hostile report. */
    static final String HOSTILE_NAME = "<script>alert(1)</script>";
    static final String IMPORT_SITE = "com.example.app.Importer.read(Importer.java:30)";
    private static final long MS = 1_000_000L;

    /**
     * A recording (written the way the agent writes one) with a leak, temporaries, a native leak and GCs, whose
     * names are hostile when asked, analysed into a report: the page's real input path.
     */
    static Report report(boolean hostile) {
        Path dir = null;
        Path file = null;
        try {
            dir = Files.createTempDirectory("memscope-html-test");
            file = dir.resolve("recording.msrec");
            String cls = hostile ? HOSTILE_CLASS : "com.example.app.Cache";
            Site leak = new Site(1, cls, "put", "Cache.java", 10, "byte[]");
            Site temp = new Site(2, hostile ? "evil.\"quoted\"&amp;" : "com.example.app.Concat", "run",
                    "Concat.java", 20, "java.lang.String");
            Site nat = new Site(3, "com.example.app.Buf", "alloc", "Buf.java", 40, Site.NATIVE_DIRECT);
            try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 0)
                    .process(77, 1_767_225_600_000L).open()) {
                w.metadata(MetadataKeys.MODE, "sample");
                w.metadata(MetadataKeys.INTERVAL_BYTES, "1024");
                w.metadata(MetadataKeys.START_NANOS, "0");
                w.metadata(MetadataKeys.PID, "77");
                w.metadata(MetadataKeys.JAVA_VERSION, "25");
                w.metadata(MetadataKeys.COMMAND, hostile ? HOSTILE_COMMAND : "com.example.app.Main --serve");
                for (Site s : List.of(leak, temp, nat)) {
                    w.site(s.id(), s.className(), s.methodName(), s.fileName(), s.line(), s.typeName());
                }
                int thread = w.strings().intern(hostile ? HOSTILE_THREAD : "main");
                int bytes = w.strings().intern("byte[]");
                int string = w.strings().intern("java.lang.String");
                w.stack(11, List.of(leak.frame(), "com.example.app.Main.main(Main.java:5)"));
                w.stack(12, List.of("java.lang.StringBuilder.toString(StringBuilder.java:453)", temp.frame(),
                        "com.example.app.Main.main(Main.java:6)"));
                w.stack(13, List.of(nat.frame(), "com.example.app.Main.main(Main.java:7)"));
                long id = 1;
                // a thread's events in the order they happened, as the agent writes them: 80 cache entries kept
                // (every 10 ms) among 400 strings that die within 1 ms (every 2 ms), and a native leak growing by
                // 128 KiB every 100 ms (1 MiB in all)
                for (int i = 0; i < 400; i++) {
                    long t = 100 * MS + i * 2 * MS;
                    if (i % 50 == 0) {
                        w.accept(t, MemoryEventType.ALLOCATE, 0x1000 + (long) i << 20, 128 << 10, 0, 1, thread, 0, 0,
                                13, 3);
                    }
                    if (i % 5 == 0) {
                        w.accept(t, MemoryEventType.ALLOCATE, id++, 4096, 0, 1, thread, 0, bytes, 11, 1);
                    }
                    long sid = id++;
                    w.accept(t, MemoryEventType.ALLOCATE, sid, 65536, 0, 1, thread, 0, string, 12, 2);
                    w.accept(t + MS, MemoryEventType.DEALLOCATE, sid, 65536, MS, 1, thread, 0, string, 12, 2);
                }
                for (int i = 0; i < 5; i++) { // young collections, and full ones at 250 and 550 ms
                    boolean full = i % 2 == 1;
                    w.gc(new GcRecord((100 + i * 150) * MS, (3 + i) * MS, full ? "G1 Old Generation"
                            : "G1 Young Generation", hostile ? HOSTILE_THREAD : "G1 Evacuation Pause",
                            (200L + i) << 20, (50L + 10 * i) << 20, 512L << 20, full ? "end of major GC"
                            : "end of minor GC"));
                }
                // the agent's end check
                w.gc(new GcRecord(950 * MS, 5 * MS, "G1 Old Generation", "System.gc()", 100L << 20, 60L << 20,
                        512L << 20, "end of major GC"));
                api(w, hostile, thread);
                w.metadata(MetadataKeys.END_NANOS, Long.toString(1000 * MS));
            }
            return ReportBuilder.build(RecordedRun.open(file));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            // The report holds everything it needs: the recording goes, so that runs leave no directories behind.
            try {
                if (file != null) {
                    Files.deleteIfExists(file);
                }
                if (dir != null) {
                    Files.deleteIfExists(dir);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /**
     * The application's API use: on thread 1 scope {@code request} (100 to 600 ms) with {@code request/parse} (300 to
     * 400 ms) around the cache's and the concatenation's samples; on thread 2 scope {@code import} (hostile: named
     * {@link #HOSTILE_NAME}) around 20 samples of {@link #IMPORT_SITE} only; a pool {@code db} (hostile: the same
     * name) with one lease returned, one never returned and one lost; a named object; a profiled function.
     */
    private static void api(RecordingWriter w, boolean hostile, int thread) {
        String importScope = hostile ? HOSTILE_NAME : "import";
        String pool = hostile ? HOSTILE_NAME : "db";
        w.metadata("option.functions", "com.example.app.Cache.put");
        w.scopePath(1, 0, "request");
        w.scopePath(2, 1, "parse");
        w.scopePath(3, 0, importScope);
        w.scopeEdge(100 * MS - 1, 1, thread, false, 1, 0, -1);
        w.scopeEdge(300 * MS, 1, thread, false, 2, 0, -1);
        w.scopeEdge(400 * MS, 1, thread, true, 2, 0, 1L << 20);
        w.scopeEdge(600 * MS, 1, thread, true, 1, 0, 5L << 20);
        int importer = w.strings().intern("importer");
        w.site(4, "com.example.app.Importer", "read", "Importer.java", 30, "char[]");
        w.stack(14, List.of(IMPORT_SITE, "com.example.app.Importer.run(Importer.java:12)"));
        int chars = w.strings().intern("char[]");
        w.scopeEdge(150 * MS, 2, importer, false, 3, 0, -1);
        for (int i = 0; i < 20; i++) {
            w.accept(200 * MS + i * 10 * MS, MemoryEventType.ALLOCATE, 0x9000 + i, 8192, 0, 2, importer, 0, chars,
                    14, 4);
        }
        w.scopeEdge(450 * MS, 2, importer, true, 3, 0, 160_000);
        int poolName = w.strings().intern(pool);
        int conn = w.strings().intern("com.example.app.Connection");
        w.apiEvent(110 * MS, MemoryEventType.BORROW, 501, 0, 0, 1, thread, poolName, conn, 11, 0);
        w.apiEvent(120 * MS, MemoryEventType.RETURN, 501, 0, 0, 1, thread, poolName, 0, 0, 0);
        w.apiEvent(130 * MS, MemoryEventType.BORROW, 502, 64, 0, 1, thread, poolName, conn, 11, 0);
        w.apiEvent(140 * MS, MemoryEventType.BORROW, 503, 32, 0, 1, thread, poolName, conn, 13, 0);
        w.anomaly("pool-leak", 900 * MS, 503, 32, 1, 13, pool);
        w.apiEvent(150 * MS, MemoryEventType.ALLOCATE, 601, 48, 0, 1, thread,
                w.strings().intern(hostile ? HOSTILE_NAME : "userCache"), w.strings().intern("java.util.HashMap"), 0,
                0);
        w.functionStats("com.example.app.Cache.put", "([B)V", hostile ? HOSTILE_NAME : "com.example.app.Main.main"
                + "(Main.java:5)", 80, 0, 40 * MS, 2 * MS, 80 * 4096, 0);
    }

    @Test
    void pageIsSelfContainedAndItsPolicyAllowsOnlyItsOwnScripts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("report.html");
        HtmlReport.write(report(false), file);
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<meta name=\"generator\" content=\"memscope "
                + "report.html 1\">");
        // no markup refers to anything outside the page
        String markup = html.replaceAll("(?s)<script[^>]*>.*?</script>", "<script></script>")
                .replaceAll("(?s)<style>.*?</style>", "<style></style>");
        assertThat(markup).doesNotContainPattern("(?i)\\s(src|href)\\s*=").doesNotContain("<link", "@import");
        // exactly four script elements: the data (not executed) and three scripts, each hashed in the policy
        Matcher m = Pattern.compile("(?s)<script([^>]*)>(.*?)</script>").matcher(html);
        List<String> executable = new ArrayList<>();
        int data = 0;
        while (m.find()) {
            if (m.group(1).contains("application/json")) {
                data++;
            } else {
                executable.add(m.group(2));
            }
        }
        assertThat(data).isEqualTo(1);
        assertThat(executable).hasSize(3);
        String csp = between(html, "http-equiv=\"Content-Security-Policy\" content=\"", "\"");
        assertThat(csp).startsWith("default-src 'none'; script-src 'sha256-").doesNotContain("unsafe-eval");
        assertThat(csp.substring(0, csp.indexOf("; style-src"))).doesNotContain("unsafe-inline");
        for (String s : executable) {
            String hash = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
            assertThat(csp).contains("'sha256-" + hash + "'");
        }
        // the page script never turns data into markup or code
        String app = executable.get(2).replaceAll("(?s)/\\*.*?\\*/", "");
        assertThat(app).doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                "new Function", ".html(");
    }

    @Test
    @SuppressWarnings("unchecked")
    void dataBlockCannotEndEarlyWhateverTheNames() throws Exception {
        String html = HtmlReport.render(report(true));
        String block = between(html, "<script type=\"application/json\" id=\"memscope-data\">", "</script>");
        assertThat(block).doesNotContain("<", ">", "&", "\u2028", "\u2029");
        assertThat(block).contains("evil.\\u003cscript\\u003ealert(1)\\u003c/script\\u003e");
        // the escaped block is still the same JSON: the names come back exactly
        Map<String, Object> page = new Json().toType(block, Map.class);
        Map<String, Object> meta = (Map<String, Object>) page.get("meta");
        assertThat(meta.get("command")).isEqualTo(HOSTILE_COMMAND);
        assertThat((List<Object>) page.get("frames")).contains(HOSTILE_CLASS + ".put(Cache.java:10)");
        // the only </script> in the whole page are those closing the four script elements
        assertThat(html.toLowerCase().split("</script>", -1)).hasSize(5);
        assertThat(PageTemplate.scriptJson("\"<!--</script>\u2028\u2029&\"")).isEqualTo(
                "\"\\u003c!--\\u003c/script\\u003e\\u2028\\u2029\\u0026\"");
    }

    @Test
    @SuppressWarnings("unchecked")
    void pageDataCarriesTheReportFigures() {
        Report r = report(false);
        Map<String, Object> page = new Json().toType(ReportPageData.of(r), Map.class);
        assertThat(page.get("format")).isEqualTo(PageData.FORMAT);
        assertThat(page.get("version")).isEqualTo((long) PageData.VERSION);
        Map<String, Object> totals = (Map<String, Object>) page.get("totals");
        assertThat(totals.get("allocatedBytes")).isEqualTo(r.totals().allocatedBytes());
        assertThat(totals.get("heldAtEndBytes")).isEqualTo(r.totals().heldAtEndBytes());
        assertThat(totals.get("peakHeldBytes")).isEqualTo(r.totals().peakHeldBytes());
        assertThat(totals.get("nativeOutstandingBytes")).isEqualTo(1L << 20);
        assertThat(totals.get("gcCount")).isEqualTo(6L);
        List<Map<String, Object>> sites = (List<Map<String, Object>>) page.get("sites");
        List<String> types = (List<String>) page.get("types");
        assertThat(sites).hasSameSizeAs(r.sites());
        Map<String, Object> leak = sites.stream().filter(s -> Boolean.TRUE.equals(s.get("leak"))).findFirst()
                .orElseThrow();
        assertThat(leak.get("site")).isEqualTo("com.example.app.Cache.put(Cache.java:10)");
        assertThat(types.get(((Long) leak.get("type")).intValue())).isEqualTo("byte[]");
        assertThat(sites).anySatisfy(s -> assertThat(s.get("temporary")).isEqualTo(true));
        assertThat(sites).anySatisfy(s -> {
            assertThat(s.get("native")).isEqualTo(true);
            assertThat(s.get("nativeBytes")).isEqualTo(1L << 20);
        });
        // stacks: the report's stacks, frames by index into the frame table, innermost first; kinds for colours
        Map<String, Object> stacks = (Map<String, Object>) page.get("stacks");
        List<String> frames = (List<String>) page.get("frames");
        List<Long> kinds = (List<Long>) page.get("frameKinds");
        List<List<Long>> stackFrames = (List<List<Long>>) stacks.get("frames");
        assertThat(stackFrames).hasSameSizeAs(r.stacks());
        int leakStack = ((List<Long>) leak.get("stacks")).get(0).intValue();
        assertThat(stackFrames.get(leakStack).stream().map(i -> frames.get(i.intValue())))
                .containsExactly("com.example.app.Cache.put(Cache.java:10)", "com.example.app.Main.main(Main.java:5)");
        assertThat(((List<Long>) stacks.get("leak")).get(leakStack)).isEqualTo(1L);
        assertThat(((List<Long>) stacks.get("heldBytes")).get(leakStack)).isEqualTo(leak.get("heldBytes"));
        // every stack's allocations per bucket add up to its allocated bytes, and all of them to the total
        List<Long> alloc = (List<Long>) stacks.get("allocBytes");
        List<List<Long>> byBucket = (List<List<Long>>) stacks.get("allocByBucket");
        long sum = 0;
        for (int i = 0; i < alloc.size(); i++) {
            long s = 0;
            for (int j = 1; j < byBucket.get(i).size(); j += 2) {
                s += byBucket.get(i).get(j);
            }
            assertThat(s).as("stack %d", i).isEqualTo(alloc.get(i));
            sum += alloc.get(i);
        }
        assertThat(sum).isEqualTo(r.totals().allocatedBytes());
        Map<String, Object> timeline = (Map<String, Object>) page.get("timeline");
        assertThat((List<Object>) timeline.get("startMs")).hasSameSizeAs(r.timeline().buckets());
        assertThat(((List<Long>) timeline.get("allocatedBytes")).stream().mapToLong(Long::longValue).sum())
                .isEqualTo(r.totals().allocatedBytes());
        assertThat(kinds.get(frames.indexOf("java.lang.StringBuilder.toString(StringBuilder.java:453)")))
                .isEqualTo((long) FrameKinds.JDK);
        assertThat(kinds.get(frames.indexOf("com.example.app.Main.main(Main.java:5)")))
                .isEqualTo((long) FrameKinds.APPLICATION);
        Map<String, Object> gc = (Map<String, Object>) page.get("gc");
        Map<String, Object> pct = (Map<String, Object>) gc.get("pausePercentilesMs");
        assertThat(pct.get("count")).isEqualTo(6L);
        assertThat(((Number) pct.get("p50")).doubleValue()).isEqualTo(5.0);
        assertThat(((Number) pct.get("max")).doubleValue()).isEqualTo(7.0);
        assertThat((List<?>) gc.get("collections")).hasSize(6);
        Map<String, Object> peak = (Map<String, Object>) page.get("peak");
        assertThat(((Number) peak.get("timeMs")).doubleValue()).isEqualTo(r.peak().timeMs());
        assertThat(peak.get("estimatedBytes")).isEqualTo(r.peak().estimatedBytes());
    }

    @Test
    void frameKindsFollowTheMainClass() {
        FrameKinds k = FrameKinds.of("com.acme.shop.web.Server --port 1", List.of());
        assertThat(k.applicationPrefix()).isEqualTo("com.acme.shop.");
        assertThat(k.kind("com.acme.shop.db.Dao.load(Dao.java:3)")).isEqualTo(FrameKinds.APPLICATION);
        assertThat(k.kind("org.h2.jdbc.JdbcConnection.prepare(JdbcConnection.java:9)")).isEqualTo(FrameKinds.LIBRARY);
        assertThat(k.kind("java.util.HashMap.resize(HashMap.java:710)")).isEqualTo(FrameKinds.JDK);
        assertThat(k.kind("jdk.internal.misc.Unsafe.allocateMemory(Unsafe.java:1)")).isEqualTo(FrameKinds.JDK);
        assertThat(k.kind("sun.nio.ch.Util.getTemporaryDirectBuffer(Util.java:1)")).isEqualTo(FrameKinds.JDK);
        // a jar: the outermost non-JDK frame seen most often names the application
        FrameKinds jar = FrameKinds.of("app.jar --x", List.of(
                List.of("org.lib.A.a(A.java:1)", "io.app.Main.main(Main.java:1)", "java.lang.Thread.run(T.java:1)"),
                List.of("io.app.Main.main(Main.java:2)")));
        assertThat(jar.applicationPrefix()).isEqualTo("io.app.");
        assertThat(jar.kind("org.lib.A.a(A.java:1)")).isEqualTo(FrameKinds.LIBRARY);
        assertThat(FrameKinds.of(null, List.of()).kind("org.lib.A.a(A.java:1)")).isEqualTo(FrameKinds.APPLICATION);
        assertThat(FrameKinds.mainClass(HOSTILE_COMMAND)).isNull();
    }

    private static String between(String s, String from, String to) {
        int a = s.indexOf(from);
        assertThat(a).as("%s in the page", from).isGreaterThanOrEqualTo(0);
        int b = s.indexOf(to, a + from.length());
        return s.substring(a + from.length(), b);
    }
}
