package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The push's table of one interval's allocations: weights, native sites left out, its bound, its swap. */
class PushTableTest {
    @Test
    void heapSamplesAreWeighedAndNativeBlocksLeftOut() {
        int heap = SiteTable.register("push-test#heap", "com/acme/A", "a", "A.java", 3, "byte[]", false);
        int nat = SiteTable.register("push-test#native", "com.acme.B", "b", "B.java", 4, "native:unsafe", false);
        PushTable t = new PushTable(1024, null);
        t.allocated(0, 1, 512, 11, heap, 1, null);
        t.allocated(0, 1, 512, 11, heap, 1, null);
        t.allocated(0, 1, 4096, 11, nat, 1, null);
        t.allocated(0, 1, 64, 0, 0, 1, "native:direct-buffer");
        t.allocated(0, 1, 64, 12, heap, 2, null);
        PushTable.Taken taken = t.take();
        assertThat(taken.entries).hasSize(2);
        double w = LiveSites.weight(512, 1024);
        PushTable.Entry e = entry(taken.entries, 11, heap, 1);
        assertThat(e.objects).isCloseTo(2 * w, within(1e-9));
        assertThat(e.bytes).isCloseTo(2 * 512 * w, within(1e-6));
        assertThat(taken.overflow).isNull();
        assertThat(t.take().entries).as("emptied by take").isEmpty();
    }

    @Test
    void pairsBeyondTheBoundGoIntoOneCountedEntry() {
        int heap = SiteTable.register("push-test#bound", "com/acme/C", "c", "C.java", 5, "int[]", false);
        PushTable t = new PushTable(1 << 20, null);
        for (int i = 0; i < PushTable.MAX_ENTRIES + 10; i++) {
            t.allocated(0, 1, 1 << 20, 1000 + i, heap, 1, null);
        }
        PushTable.Taken taken = t.take();
        assertThat(taken.entries).hasSize(PushTable.MAX_ENTRIES);
        assertThat(taken.overflowedSamples).isEqualTo(10);
        assertThat(taken.overflow.bytes).isCloseTo(10 * (1 << 20) * LiveSites.weight(1 << 20, 1 << 20),
                within(1e-3));
    }

    /**
     * Scope labels: a sample waits until the scope edges up to its time are known, then is labelled with the path open
     * on its thread at its time, whatever the thread did after it (here it left the scope before the sample arrived).
     */
    @Test
    void samplesAreLabelledWithTheScopeOpenAtTheirTimeOnceItIsKnown() {
        int heap = SiteTable.register("push-test#scoped", "com/acme/D", "d", "D.java", 6, "long[]", false);
        TreePaths paths = new TreePaths();
        int request = paths.add(0, "request");
        int parse = paths.add(request, "parse");
        PushScopes scopes = new PushScopes(paths);
        PushTable t = new PushTable(1024, scopes);
        long thread = 7;
        scopes.edge(100, thread, false, request);
        scopes.edge(200, thread, false, parse);
        scopes.edge(300, thread, true, parse);
        scopes.edge(400, thread, true, request);
        t.allocated(150, thread, 512, 21, heap, 1, null); // in request
        t.allocated(250, thread, 512, 22, heap, 1, null); // in request/parse
        t.allocated(350, thread, 512, 23, heap, 1, null); // back in request
        t.allocated(450, thread, 512, 24, heap, 1, null); // no scope
        t.allocated(250, thread + 1, 512, 25, heap, 1, null); // another thread: no scope
        assertThat(t.take().entries).as("edges not known up to the samples' times yet: they wait").isEmpty();
        t.edgesDrained(500 + PushScopes.PUBLISH_MARGIN_NANOS); // the drain that gave them: the waiting are labelled
        t.allocated(350, thread, 512, 26, heap, 1, null); // arrives late, its edges known: labelled at once
        Map<PushTable.Entry, PushTable.Entry> m = t.take().entries;
        assertThat(m).hasSize(6);
        assertThat(entry(m, 26, heap, 1).scopePath).isEqualTo(request);
        assertThat(entry(m, 21, heap, 1).scopePath).isEqualTo(request);
        assertThat(entry(m, 22, heap, 1).scopePath).isEqualTo(parse);
        assertThat(entry(m, 23, heap, 1).scopePath).isEqualTo(request);
        assertThat(entry(m, 24, heap, 1).scopePath).isEqualTo(PushScopes.NONE);
        assertThat(entry(m, 25, heap, 1).scopePath).isEqualTo(PushScopes.NONE);
        assertThat(scopes.name(parse)).isEqualTo("request/parse");
        assertThat(t.scopeUnknown()).isZero();
        scopes.forgetBefore(1000);
        assertThat(scopes.edges()).as("every edge folded").isZero();
        assertThat(scopes.openAt(thread, 2000)).isEqualTo(PushScopes.NONE);
        assertThat(scopes.openAt(thread, 150)).as("forgotten: not guessed").isEqualTo(PushScopes.UNKNOWN);
        assertThat(scopes.openAt(thread + 1, 150)).as("a thread that never entered a scope").isEqualTo(PushScopes.NONE);
    }

    @Test
    void aSampleOlderThanTheKeptHistoryIsUnknownNeverGuessed() {
        int heap = SiteTable.register("push-test#old", "com/acme/E", "e", "E.java", 7, "long[]", false);
        TreePaths paths = new TreePaths();
        int a = paths.add(0, "a");
        PushScopes scopes = new PushScopes(paths);
        long thread = 9;
        scopes.edge(1000, thread, false, a);
        for (int i = 0; i < PushScopes.MAX_EDGES / 2; i++) { // fills the thread's history: the first entry is folded
            scopes.edge(2000 + 2 * i, thread, true, a);
            scopes.edge(2001 + 2 * i, thread, false, a);
        }
        scopes.drained(1_000_000 + PushScopes.PUBLISH_MARGIN_NANOS);
        assertThat(scopes.openAt(thread, 500)).as("before the oldest kept edge").isEqualTo(PushScopes.UNKNOWN);
        assertThat(scopes.openAt(thread, 2000 + 2 * (PushScopes.MAX_EDGES / 2 - 1) + 1)).isEqualTo(a);
        assertThat(scopes.edges()).isEqualTo(PushScopes.MAX_EDGES);
        PushTable t = new PushTable(1024, scopes);
        t.allocated(500, thread, 512, 31, heap, 1, null);
        assertThat(entry(t.take().entries, 31, heap, 1).scopePath).isEqualTo(PushScopes.UNKNOWN);
        assertThat(t.scopeUnknown()).isEqualTo(1);
    }

    /** Scope paths as the agent's API capture keeps them: ids from 1, each with its parent and name. */
    private static final class TreePaths implements PushScopes.Paths {
        private final java.util.List<int[]> parents = new java.util.ArrayList<>();
        private final java.util.List<String> names = new java.util.ArrayList<>();

        int add(int parent, String name) {
            parents.add(new int[] {parent});
            names.add(name);
            return names.size();
        }

        @Override
        public int parent(int pathId) {
            return pathId >= 1 && pathId <= parents.size() ? parents.get(pathId - 1)[0] : -1;
        }

        @Override
        public String name(int pathId) {
            return pathId >= 1 && pathId <= names.size() ? names.get(pathId - 1) : null;
        }

        @Override
        public boolean any() {
            return !names.isEmpty();
        }
    }

    @Test
    void theSampleTypeConfigNamesEverySampleType() {
        String c = ProfilePusher.sampleTypeConfig();
        for (String[] type : PushProfile.TYPES) {
            assertThat(c).contains("\"" + type[0] + "\":{");
        }
        assertThat(c).contains("\"alloc_space\":{\"units\":\"bytes\",\"aggregation\":\"sum\",\"cumulative\":false,"
                + "\"sampled\":true}");
        assertThat(c).contains("\"inuse_objects\":{\"units\":\"objects\",\"aggregation\":\"average\"");
        assertThat(c).contains("\"native_inuse_space\":{\"units\":\"bytes\",\"aggregation\":\"average\","
                + "\"cumulative\":false,\"sampled\":false}");
        assertThat(ProfilePusher.nameWithLabels("app", Map.of("env", "prod")))
                .matches("app\\{host=[^,]+,pid=\\d+,env=prod}");
    }

    private static PushTable.Entry entry(Map<PushTable.Entry, PushTable.Entry> m, long stack, int site, int thread) {
        for (PushTable.Entry e : m.keySet()) {
            if (e.stackId == stack && e.siteId == site && e.threadNameId == thread) {
                return e;
            }
        }
        throw new AssertionError("no entry " + stack + "/" + site + "/" + thread);
    }

    /**
     * OpenTelemetry labels: a sample gets the span current on its thread at its time (not the one current when it
     * arrives); beyond the bound of distinct spans an interval, samples keep the root's name alone, counted.
     */
    @Test
    void samplesCarryTheSpanOfTheirTimeWithinTheIntervalsBound() {
        int heap = SiteTable.register("push-test#spans", "com/acme/E", "e", "E.java", 7, "byte[]", false);
        OtelSpans spans = new OtelSpans();
        PushTable t = new PushTable(1024, null, spans);
        Thread me = Thread.currentThread();
        long thread = me.getId();
        OtelSpans.SpanLabel a = new OtelSpans.SpanLabel("t1", "s1", "checkout");
        OtelSpans.SpanLabel b = new OtelSpans.SpanLabel("t2", "s2", "search");
        spans.changed(me, 100, a);
        spans.changed(me, 200, null);
        spans.changed(me, 300, b);
        t.allocated(150, thread, 512, 11, heap, 1, null);
        t.allocated(250, thread, 512, 12, heap, 1, null);
        t.allocated(350, thread, 512, 13, heap, 1, null);
        t.allocated(50, thread, 512, 14, heap, 1, null);
        PushTable.Taken taken = t.take();
        assertThat(entry(taken.entries, 11, heap, 1).span).isEqualTo(a);
        assertThat(entry(taken.entries, 12, heap, 1).span).isNull();
        assertThat(entry(taken.entries, 13, heap, 1).span).isEqualTo(b);
        assertThat(entry(taken.entries, 14, heap, 1).span).as("before the thread's first span").isNull();

        for (int i = 0; i < PushTable.MAX_SPANS_PER_INTERVAL + 5; i++) {
            spans.changed(me, 1000 + 2 * i, new OtelSpans.SpanLabel("t", "span" + i, "root"));
            t.allocated(1001 + 2 * i, thread, 512, 20, heap, 1, null);
        }
        taken = t.take();
        long named = taken.entries.values().stream().filter(e -> e.span != null && e.span.spanId() == null
                && "root".equals(e.span.name())).count();
        assertThat(named).as("one entry for the samples beyond the bound: the name alone").isEqualTo(1);
        assertThat(taken.entries).hasSize(PushTable.MAX_SPANS_PER_INTERVAL + 1);
        Map<String, String> meta = new java.util.HashMap<>();
        t.spanMetadata(meta);
        assertThat(meta).containsEntry("push.spanIdsDropped", "5").containsEntry("push.spanLabelsDropped", "0");
    }

    /** A thread's history keeps its latest changes: a sample older than every kept one is unknown, not guessed. */
    @Test
    void aSampleOlderThanTheKeptSpanChangesIsUnknown() {
        OtelSpans spans = new OtelSpans();
        Thread me = Thread.currentThread();
        for (int i = 0; i < OtelSpans.MAX_EDGES + 1; i++) {
            spans.changed(me, 10 + i, new OtelSpans.SpanLabel("t", "s" + i, "n"));
        }
        assertThat(spans.at(me.getId(), 10)).isSameAs(OtelSpans.SpanLabel.UNKNOWN);
        assertThat(spans.at(me.getId(), 11 + OtelSpans.MAX_EDGES).spanId()).isEqualTo("s" + OtelSpans.MAX_EDGES);
        assertThat(spans.at(me.getId() + 1_000_000, 10)).as("a thread never seen: no span").isNull();
    }
}
