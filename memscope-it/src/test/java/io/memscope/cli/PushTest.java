package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.memscope.analysis.export.pprof.ProfileProto;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.PushFixture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The push to a Pyroscope server, end to end: {@code memscope run --push} on a real JVM ({@link PushFixture}: a known
 * retained site, a known churn site), a receiver implementing {@code POST /ingest} as Pyroscope documents it
 * ({@link PushReceiver}: query parameters, multipart body, gzipped pprof decoded by protobuf-java), backends that
 * refuse, hang or are down, and the authorization token never written anywhere. Platform: Linux x86_64 (the JVM's
 * sampler; the figures are compared with the same run's report, whatever the sampler).
 */
class PushTest {
    private static final String SRC = "memscope/fixtures/PushFixture.java";
    private static final String TOKEN = "s3cr3t-push-token-5f2e";

    private static String frame(String method, String marker) throws Exception {
        return "memscope.fixtures.PushFixture." + method + "(PushFixture.java:" + Jvms.lineOf(SRC, marker) + ")";
    }

    /** Runs the fixture under memscope run with the push options; its stdout and stderr go into files. */
    private static CliRun run(Path out, Path logs, List<String> pushOptions, long churnMillis, long idleMillis)
            throws Exception {
        String java = String.join(" ", List.of(Jvms.current(), "-Xmx256m", "-cp",
                Jvms.classPath(PushFixture.class, io.memscope.Memscope.class), PushFixture.class.getName(), Long.toString(churnMillis),
                Long.toString(idleMillis)));
        List<String> args = new ArrayList<>(List.of("run", "--out", out.toString(), "--interval", "32k"));
        args.addAll(pushOptions);
        args.addAll(List.of("--", "bash", "-c", "exec " + java + " >" + logs.resolve("app.out") + " 2>"
                + logs.resolve("app.err")));
        return CliRun.run(args.toArray(new String[0]));
    }

    private static Path tokenFile(Path dir) throws Exception {
        Path f = dir.resolve("push.token");
        Files.writeString(f, "Bearer " + TOKEN + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private static Map<String, Object> site(Object report, String list, String site) {
        for (Map<String, Object> e : Json.list(report, list)) {
            if (site.equals(e.get("site"))) {
                return e;
            }
        }
        throw new AssertionError(site + " not in " + list + ": " + Json.list(report, list));
    }

    private static long number(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    @ParameterizedTest(name = "{0} sampler")
    @ValueSource(strings = {"jvmti", "bytecode"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyIntervalIsPushedAsPprofAndAgreesWithTheReport(String sampler, @TempDir Path out, @TempDir Path logs)
            throws Exception {
        String churn = frame("churn", "CHURN-SITE");
        String retained = frame("retain", "RETAINED-SITE");
        try (PushReceiver receiver = new PushReceiver(PushReceiver.Mode.OK)) {
            CliRun r = run(out, logs, List.of("--sampler", sampler, "--push", receiver.url(), "--push-interval", "1s",
                    "--push-name",
                    "pushfixture", "--push-label", "env=test", "--push-label", "team=mem", "--push-tenant", "tenant-a",
                    "--push-auth-file", tokenFile(logs).toString(), "--malloc", "--malloc-interval", "8k"), 4000, 2500);
            assertThat(r.exit).as(r.err).isZero();
            assertThat(Files.readString(logs.resolve("app.out"))).contains("push fixture: retained 1024 arrays");
            assertThat(receiver.errors).as("requests the receiver could not parse").isEmpty();
            List<PushReceiver.Push> pushes = new ArrayList<>(receiver.pushes);
            assertThat(pushes).as("a profile a second for about 6 s").hasSizeGreaterThanOrEqualTo(4);
            Object report = Jvms.report(out);
            Map<String, Object> meta = Json.obj(report, "metadata");
            String pid = meta.get("pid").toString();
            assertThat(meta).containsEntry("sampler", sampler);

            long lastUntil = 0;
            pushes.sort(Comparator.comparingLong(p -> Long.parseLong(p.query().get("from"))));
            for (PushReceiver.Push p : pushes) {
                assertThat(p.query()).containsEntry("format", "pprof").containsEntry("spyName", "memscope");
                long from = Long.parseLong(p.query().get("from"));
                long until = Long.parseLong(p.query().get("until"));
                assertThat(until).isGreaterThan(from).isLessThanOrEqualTo(from + 3);
                assertThat(from).as("intervals follow each other").isGreaterThanOrEqualTo(lastUntil - 1);
                lastUntil = until;
                assertThat(p.name()).isEqualTo("pushfixture");
                assertThat(p.labels()).containsEntry("pid", pid).containsEntry("env", "test")
                        .containsEntry("team", "mem").containsKey("host");
                assertThat(p.headers()).containsEntry("authorization", "Bearer " + TOKEN)
                        .containsEntry("x-scope-orgid", "tenant-a");
                Object config = Json.parse(p.sampleTypeConfig());
                assertThat(Json.obj(config, "alloc_space")).containsEntry("units", "bytes")
                        .containsEntry("aggregation", "sum").containsEntry("cumulative", false)
                        .containsEntry("sampled", true);
                assertThat(Json.obj(config, "inuse_space")).containsEntry("aggregation", "average");
                assertThat(Json.obj(config, "alloc_objects")).containsEntry("units", "objects");
                ProfileProto.Profile prof = p.profile();
                List<String> types = new ArrayList<>();
                for (ProfileProto.ValueType t : prof.getSampleTypeList()) {
                    types.add(prof.getStringTable((int) t.getType()) + "/" + prof.getStringTable((int) t.getUnit()));
                }
                assertThat(types).containsExactly("alloc_objects/count", "alloc_space/bytes", "inuse_objects/count",
                        "inuse_space/bytes", "native_inuse_space/bytes", "malloc_inuse_space/bytes");
                assertThat(prof.getStringTable((int) prof.getPeriodType().getType())).isEqualTo("space");
                assertThat(prof.getPeriod()).isEqualTo(32 * 1024);
                assertThat(prof.getTimeNanos() / 1_000_000_000L).isBetween(from - 1, from + 1);
            }

            // Allocations: the churn site's bytes over all pushes are the report's (the same samples, the same
            // weights; every interval was pushed, the last ones after the churn ended). 1%: rounding of each
            // (stack, thread) entry, and the samples drained after the last push (none expected: the idle wait).
            long pushedChurn = 0;
            for (PushReceiver.Push p : pushes) {
                pushedChurn += PushReceiver.sum(p.profile(), "alloc_space", f -> f.contains(churn));
            }
            long reportChurn = number(site(report, "topAllocationSites", churn), "allocatedBytes");
            assertThat(reportChurn).as("the fixture churns about 0.5 MB a ms at this site").isGreaterThan(40L << 20);
            System.out.printf("push (" + sampler + "): %d profiles; churn site alloc_space pushed %d, report %d (%.2f%%); retained site "
                    + "inuse_space %d, report %d, truth %d%n", pushes.size(), pushedChurn, reportChurn,
                    100.0 * (pushedChurn - reportChurn) / reportChurn, heldOf(pushes, retained),
                    number(site(report, "topLiveSites", retained), "liveBytes"),
                    (long) PushFixture.RETAINED_ARRAYS * (PushFixture.RETAINED_BYTES + 16));
            assertThat((double) pushedChurn).as("churn site's alloc_space, pushed against the report; the pushes: %s",
                    pushSummary(pushes)).isCloseTo(reportChurn, within(reportChurn * 0.01));
            ProfileProto.Profile first = pushes.stream().filter(p -> PushReceiver.sum(p.profile(), "alloc_space",
                    f -> f.contains(churn)) > 0).findFirst().orElseThrow().profile();
            assertThat(labels(first, "thread")).contains("main");

            // Scopes: every churn sample carries the scope open on its thread at its time, exactly (the fixture
            // switches scope every half millisecond: a label taken at the drain instead would be wrong about half the
            // time), and the retained site, allocated before any scope, carries none.
            String search = frame("churn", "SEARCH-SITE");
            long checkoutBytes = 0;
            long searchBytes = 0;
            for (PushReceiver.Push p : pushes) {
                checkoutBytes += scopeBytes(p.profile(), churn, "checkout"::equals);
                searchBytes += scopeBytes(p.profile(), search, "checkout/search"::equals);
                assertThat(scopeBytes(p.profile(), churn, l -> !"checkout".equals(l)))
                        .as("churn site bytes labelled other than checkout: %s", scopeHistogram(p.profile(), churn))
                        .isZero();
                assertThat(scopeBytes(p.profile(), search, l -> !"checkout/search".equals(l)))
                        .as("search site bytes labelled other than checkout/search: %s",
                                scopeHistogram(p.profile(), search)).isZero();
                assertThat(scopeBytes(p.profile(), retained, l -> l != null)).as("retained: before any scope")
                        .isZero();
            }
            assertThat(checkoutBytes).as("churn site in checkout").isGreaterThan(reportChurn / 2);
            assertThat(searchBytes).as("search site in checkout/search").isGreaterThan(0);
            assertThat(Jvms.metadataCount(meta, "push.scopeUnknown")).isZero();
            // the same counters on the agent's MXBean, read by the application through AgentClient before it ended
            assertThat(Files.readString(logs.resolve("app.out"))).containsPattern("push counters: \\{.*push\\.failed=0")
                    .containsPattern("push\\.sent=[1-9]").contains("push.scopeUnknown=0");

            // Held: the retained site in the last push's inuse_space, as the report holds it at the end (both:
            // reachable at a whole-heap collection, the same samples); the truth within 20% (about 5 standard errors
            // of about 400 samples); the churn site holds next to nothing.
            ProfileProto.Profile last = pushes.get(pushes.size() - 1).profile();
            long pushedHeld = PushReceiver.sum(last, "inuse_space", f -> f.equals(List.of(retained)));
            long reportHeld = number(site(report, "topLiveSites", retained), "liveBytes");
            long truth = (long) PushFixture.RETAINED_ARRAYS * (PushFixture.RETAINED_BYTES + 16);
            assertThat((double) pushedHeld).as("retained site's inuse_space against the report")
                    .isCloseTo(reportHeld, within(reportHeld * 0.10));
            assertThat((double) pushedHeld).as("against the truth").isCloseTo(truth, within(truth * 0.20));
            assertThat(PushReceiver.sum(last, "inuse_space", f -> f.contains(churn))).isLessThan(truth / 100);
            // Native: the direct buffer, outstanding, exact, under its stack
            String direct = frame("retain", "DIRECT-SITE");
            assertThat(PushReceiver.sum(last, "native_inuse_space", f -> f.contains(direct)))
                    .isEqualTo(PushFixture.DIRECT_BYTES);

            // Malloc: the kept inflaters' zlib state, estimated from malloc samples, under a stack with native frames
            // first and the fixture's line that made them (zlib's state is several KiB an inflater), with either heap
            // sampler: the malloc samples' Java frames are described through the sampler library either way
            String inflaters = frame("retain", "INFLATER-SITE");
            long pushedMalloc = PushReceiver.sum(last, "malloc_inuse_space",
                    f -> (f.get(0).contains("!") || f.get(0).contains("+0x")) && f.contains(inflaters));
            assertThat(pushedMalloc).as("kept inflaters' malloc_inuse_space; stacks of malloc_inuse_space: %s; metadata malloc.*: %s",
                    mallocStacks(last), meta.entrySet().stream().filter(e -> e.getKey().startsWith("malloc")).toList())
                    .isGreaterThan(PushFixture.INFLATERS * 1024L);

            // Counters, and the token nowhere
            assertThat(Jvms.metadataCount(meta, "push.sent")).isEqualTo(pushes.size());
            assertThat(Jvms.metadataCount(meta, "push.failed")).isZero();
            assertThat(Jvms.metadataCount(meta, "push.dropped")).isZero();
            assertThat(meta).containsEntry("option.pushAuth", "(set: file)");
            assertTokenNowhere(out, logs, r);
            assertThat(Files.readString(logs.resolve("app.err"))).as("the stream the JVM prints its options on")
                    .contains("JAVA_TOOL_OPTIONS").contains("pushing a profile every 1.0 s");
        }
    }

    /**
     * OpenTelemetry span labels, end to end: an application traced with the real opentelemetry-api and -sdk (no
     * OpenTelemetry agent; {@link memscope.fixtures.OtelPushFixture}) allocates inside local root spans that change
     * every fraction of a millisecond on two threads; every pushed sample of a site allocated inside a span carries
     * {@code span_id}, {@code span_name} and {@code trace_id} of the local root span current on its thread at the
     * sample's time (a child span's samples carry its root's, as Pyroscope's span profiles expect), exactly as the
     * application's own spans say (the fixture writes them out), and samples allocated outside spans carry none.
     */
    @org.junit.jupiter.api.Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void samplesCarryTheLocalRootSpanOfTheirThreadAtTheirTime(@TempDir Path out, @TempDir Path logs)
            throws Exception {
        String src = "memscope/fixtures/OtelPushFixture.java";
        Map<String, String> siteSpan = Map.of("CHECKOUT-SITE", "checkout", "DB-SITE", "search",
                "INVENTORY-SITE", "inventory");
        String outside = "(OtelPushFixture.java:" + Jvms.lineOf(src, "// OUTSIDE-SITE") + ")";
        Path spansFile = logs.resolve("spans.txt");
        try (PushReceiver receiver = new PushReceiver(PushReceiver.Mode.OK)) {
            String java = String.join(" ", List.of(Jvms.current(), "-Xmx256m", "-cp",
                    Jvms.classPath(memscope.fixtures.OtelPushFixture.class, io.memscope.Memscope.class,
                            io.opentelemetry.api.trace.Span.class, io.opentelemetry.context.Context.class,
                            io.opentelemetry.sdk.trace.SdkTracerProvider.class,
                            io.opentelemetry.sdk.common.Clock.class, io.opentelemetry.common.ComponentLoader.class),
                    memscope.fixtures.OtelPushFixture.class.getName(), spansFile.toString(), "3000", "2500"));
            CliRun r = CliRun.run("run", "--out", out.toString(), "--interval", "32k", "--push", receiver.url(),
                    "--push-interval", "1s", "--", "bash", "-c", "exec " + java + " >" + logs.resolve("app.out")
                            + " 2>" + logs.resolve("app.err"));
            assertThat(r.exit).as(r.err).isZero();
            assertThat(Files.readString(logs.resolve("app.out"))).as(Files.readString(logs.resolve("app.err")))
                    .contains("otel push fixture: done");
            assertThat(receiver.errors).isEmpty();
            // the application's own spans: span id -> "name traceId"
            Map<String, String> roots = new java.util.HashMap<>();
            java.util.Set<String> children = new java.util.HashSet<>();
            for (String line : Files.readAllLines(spansFile)) {
                String[] f = line.split(" ");
                if (f[0].startsWith("child:")) {
                    children.add(f[1]);
                } else {
                    roots.put(f[1], f[0] + " " + f[2]);
                }
            }
            assertThat(roots).as("spans the fixture made (about a thousand a second, fewer under load)")
                    .hasSizeGreaterThan(200);
            Map<String, Long> labelled = new java.util.TreeMap<>();
            Map<String, java.util.Set<String>> spanIds = new java.util.TreeMap<>();
            long outsideBytes = 0;
            for (PushReceiver.Push p : receiver.pushes) {
                ProfileProto.Profile prof = p.profile();
                for (ProfileProto.Sample smp : prof.getSampleList()) {
                    List<String> frames = PushReceiver.frames(prof, smp);
                    long bytes = smp.getValue(1);
                    if (bytes == 0) {
                        continue;
                    }
                    String spanId = label(prof, smp, "span_id");
                    String name = label(prof, smp, "span_name");
                    String trace = label(prof, smp, "trace_id");
                    if (frames.stream().anyMatch(f -> f.endsWith(outside))) {
                        assertThat(spanId == null && name == null && trace == null)
                                .as("outside any span: %s %s %s", spanId, name, trace).isTrue();
                        outsideBytes += bytes;
                    }
                    for (Map.Entry<String, String> site : siteSpan.entrySet()) {
                        String frame = "(OtelPushFixture.java:" + Jvms.lineOf(src, "// " + site.getKey()) + ")";
                        if (frames.stream().noneMatch(f -> f.endsWith(frame))) {
                            continue;
                        }
                        assertThat(children).as("a child span's id is never a label").doesNotContain(spanId);
                        assertThat(roots.get(spanId)).as("%s: span_id %s (%s, trace %s)", site.getKey(), spanId,
                                name, trace).isEqualTo(site.getValue() + " " + trace);
                        assertThat(name).isEqualTo(site.getValue());
                        labelled.merge(site.getKey(), bytes, Long::sum);
                        spanIds.computeIfAbsent(site.getKey(), k -> new java.util.HashSet<>()).add(spanId);
                    }
                }
            }
            System.out.printf("push (otel): %d root spans; labelled bytes per site %s; distinct span ids %s; outside"
                    + " %d%n", roots.size(), labelled, spanIds.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue().size()).toList(), outsideBytes);
            assertThat(labelled.keySet()).containsExactlyInAnyOrder("CHECKOUT-SITE", "DB-SITE", "INVENTORY-SITE");
            assertThat(spanIds.get("CHECKOUT-SITE")).as("many spans, each its own label").hasSizeGreaterThan(50);
            assertThat(outsideBytes).isPositive();
            Map<String, Object> meta = Json.obj(Jvms.report(out), "metadata");
            assertThat(Jvms.metadataCount(meta, "push.otel.contextChanges")).as("an attach and a close a span")
                    .isGreaterThanOrEqualTo(2L * roots.size());
            for (String zero : List.of("push.spanUnknown", "push.spanIdsDropped", "push.spanLabelsDropped",
                    "push.otel.rootUnknown", "push.otel.errors", "push.otel.noApi", "push.failed")) {
                assertThat(Jvms.metadataCount(meta, zero)).as(zero).isZero();
            }
        }
    }

    private static List<String> mallocStacks(ProfileProto.Profile p) {
        int type = PushReceiver.sampleTypeIndex(p, "malloc_inuse_space");
        List<String> l = new ArrayList<>();
        for (ProfileProto.Sample s : p.getSampleList()) {
            if (s.getValue(type) > 0 && l.size() < 10) {
                l.add(s.getValue(type) + " " + PushReceiver.frames(p, s));
            }
        }
        return l;
    }

    /** Each push's interval, total alloc_space and heaviest leaf frames: what a failure needs to be understood. */
    private static String pushSummary(List<PushReceiver.Push> pushes) {
        StringBuilder b = new StringBuilder();
        for (PushReceiver.Push p : pushes) {
            ProfileProto.Profile prof = p.profile();
            Map<String, Long> leaves = new java.util.HashMap<>();
            long total = 0;
            int index = Math.max(0, PushReceiver.sampleTypeIndex(prof, "alloc_space"));
            for (ProfileProto.Sample s : prof.getSampleList()) {
                List<String> frames = PushReceiver.frames(prof, s);
                long v = s.getValue(index);
                total += v;
                leaves.merge(frames.isEmpty() ? "(no frames)" : frames.get(0), v, Long::sum);
            }
            b.append("\n  ").append(p.query().get("from")).append("..").append(p.query().get("until"))
                    .append(": alloc_space ").append(total).append(", samples ").append(prof.getSampleCount())
                    .append(", top leaves ");
            leaves.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(3)
                    .forEach(e -> b.append(e.getKey()).append('=').append(e.getValue()).append("; "));
        }
        return b.toString();
    }

    private static long heldOf(List<PushReceiver.Push> pushes, String frame) {
        return PushReceiver.sum(pushes.get(pushes.size() - 1).profile(), "inuse_space", f -> f.equals(List.of(frame)));
    }

    private static List<String> labels(ProfileProto.Profile p, String key) {
        List<String> l = new ArrayList<>();
        for (ProfileProto.Sample s : p.getSampleList()) {
            String v = label(p, s, key);
            if (v != null) {
                l.add(v);
            }
        }
        return l;
    }

    private static String label(ProfileProto.Profile p, ProfileProto.Sample s, String key) {
        for (ProfileProto.Label label : s.getLabelList()) {
            if (p.getStringTable((int) label.getKey()).equals(key)) {
                return p.getStringTable((int) label.getStr());
            }
        }
        return null;
    }

    /** @return alloc_space of the samples with {@code frame} in their stack, per {@code scope} label */
    private static Map<String, Long> scopeHistogram(ProfileProto.Profile p, String frame) {
        Map<String, Long> m = new java.util.TreeMap<>();
        for (ProfileProto.Sample s : p.getSampleList()) {
            if (PushReceiver.frames(p, s).contains(frame)) {
                m.merge(String.valueOf(label(p, s, "scope")), s.getValue(1), Long::sum);
            }
        }
        return m;
    }

    /** @return alloc_space of the samples with {@code frame} in their stack whose {@code scope} label matches */
    private static long scopeBytes(ProfileProto.Profile p, String frame,
                                   java.util.function.Predicate<String> scope) {
        int space = PushReceiver.sampleTypeIndex(p, "alloc_space");
        long sum = 0;
        for (ProfileProto.Sample s : p.getSampleList()) {
            if (PushReceiver.frames(p, s).contains(frame) && scope.test(label(p, s, "scope"))) {
                sum += s.getValue(space);
            }
        }
        return sum;
    }

    private static void assertTokenNowhere(Path out, Path logs, CliRun r) throws Exception {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(out)) {
            s.filter(Files::isRegularFile).forEach(files::add);
        }
        files.add(logs.resolve("app.out"));
        files.add(logs.resolve("app.err"));
        assertThat(files).extracting(f -> f.getFileName().toString())
                .contains("recording.msrec", "report.json", "summary.txt");
        for (Path f : files) {
            assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as("%s", f)
                    .doesNotContain(TOKEN);
        }
        assertThat(r.out).doesNotContain(TOKEN);
        assertThat(r.err).doesNotContain(TOKEN);
    }

    @org.junit.jupiter.api.Test
    void credentialsAnywhereButTheEnvironmentOrAPrivateFileAreRefusedBeforeAnythingStarts(@TempDir Path dir)
            throws Exception {
        Path f = tokenFile(dir);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        CliRun open = CliRun.run("run", "--out", dir.resolve("out").toString(), "--push", "http://127.0.0.1:9",
                "--push-auth-file", f.toString(), "--", "true");
        assertThat(open.exit).isNotZero();
        assertThat(open.err).contains("chmod 600").doesNotContain(TOKEN);
        CliRun option = CliRun.run("run", "--out", dir.resolve("out").toString(), "--push", "http://127.0.0.1:9",
                "--agent-option", "pushAuth=" + TOKEN, "--", "true");
        assertThat(option.exit).isNotZero();
        assertThat(option.err).contains("MEMSCOPE_PUSH_AUTH").doesNotContain(TOKEN);
        CliRun url = CliRun.run("run", "--out", dir.resolve("out").toString(), "--push",
                "http://user:" + TOKEN + "@127.0.0.1:9", "--", "true");
        assertThat(url.exit).isNotZero();
        assertThat(url.err).contains("credentials in the URL are refused").doesNotContain(TOKEN);
    }

    enum Backend { REFUSES_500, HANGS, DOWN }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFailingBackendCostsCountedFailuresAndDropsNeverTheApplication(Backend backend, @TempDir Path out,
                                                                       @TempDir Path logs) throws Exception {
        PushReceiver receiver = backend == Backend.DOWN ? null
                : new PushReceiver(backend == Backend.HANGS ? PushReceiver.Mode.HANG : PushReceiver.Mode.ERROR);
        try {
            String url;
            if (receiver != null) {
                url = receiver.url();
            } else {
                try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1,
                        java.net.InetAddress.getLoopbackAddress())) {
                    url = "http://127.0.0.1:" + s.getLocalPort(); // closed: nobody listens there any more
                }
            }
            // a hung request takes its 5 s read timeout: the run lasts long enough to see two of them fail
            long idle = backend == Backend.HANGS ? 9000 : 4000;
            CliRun r = run(out, logs, List.of("--push", url, "--push-interval", "1s", "--push-auth-file",
                    tokenFile(logs).toString()), 3000, idle);
            assertThat(r.exit).as(r.err).isZero();
            assertThat(Files.readString(logs.resolve("app.out"))).contains("push fixture: retained 1024 arrays");
            Map<String, Object> meta = Json.obj(Jvms.report(out), "metadata");
            assertThat(Jvms.metadataCount(meta, "push.sent")).isZero();
            assertThat(Jvms.metadataCount(meta, "push.failed")).isPositive();
            if (backend != Backend.HANGS) {
                // a profile a second, attempts 1 s, 2 s, 4 s apart: the queue of 3 overflows. A hung request holds
                // the push thread (which also takes the snapshots) for its 5 s: the intervals meanwhile go into the
                // next profile, one longer interval, and nothing overflows.
                assertThat(Jvms.metadataCount(meta, "push.dropped")).as("profiles beyond the queue of 3").isPositive();
            }
            assertThat(meta.get("push.lastError").toString()).contains(switch (backend) {
                case REFUSES_500 -> "HTTP 500";
                case HANGS -> "SocketTimeoutException";
                case DOWN -> "ConnectException";
            }).contains(url + "/ingest");
            if (receiver != null) {
                assertThat(receiver.requests.get()).isPositive();
            }
            assertTokenNowhere(out, logs, r);
        } finally {
            if (receiver != null) {
                receiver.close();
            }
        }
    }
}
