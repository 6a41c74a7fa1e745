package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.GcRecord;
import io.memscope.recording.RetentionWalk;
import io.memscope.recording.RetentionWalk.Kind;
import io.memscope.recording.RetentionWalk.Node;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths from GC roots, from a recorded walk to report.json: linked lists, trees and nested maps fold into one shape
 * whatever the depth, thread roots that differ in their numbers are one root, estimates weigh each sample, the shapes
 * come largest first under each held site and leak suspect, and the summary shows a suspect's main path.
 */
class RetentionPathsTest {
    @TempDir
    Path dir;

    private static final Site CACHE = new Site(1, "com.acme.Cache", "put", "Cache.java", 42, "byte[]");
    private static final Site POOL = new Site(2, "com.acme.Worker", "run", "Worker.java", 7, "byte[]");

    /** A forest built node by node, parents first. */
    private static final class Forest {
        final List<Node> nodes = new ArrayList<>();
        final List<RetentionWalk.Sample> samples = new ArrayList<>();

        int add(int parent, Kind kind, String className, String label) {
            nodes.add(new Node(parent, kind, false, className, label, 0));
            return nodes.size() - 1;
        }

        int staticRoot(String className, String field, String valueClass) {
            nodes.add(new Node(-1, Kind.SYSTEM_CLASS, true, className, "class " + className, 0));
            return add(nodes.size() - 1, Kind.STATIC_FIELD, valueClass, field);
        }

        void sample(long id, int site, long size, int node) {
            samples.add(new RetentionWalk.Sample(id, site, size, node));
        }

        RetentionWalk walk(long at) {
            return new RetentionWalk(at, 2_000_000, 5_000_000, RetentionWalk.Outcome.COMPLETE, "end", null,
                    nodes.size(), 3 * nodes.size(), 1 << 20, nodes, samples);
        }
    }

    private Retention retention(RetentionWalk walk) {
        RecordedRun run = TestRun.create(dir.resolve("r.msrec")).site(CACHE).site(POOL).meta("intervalBytes", "4096")
                .retention(walk).close();
        return RetentionPaths.of(run, 0, 0, Long.MAX_VALUE, false);
    }

    private static List<Retention.RetainedBy> of(Retention r, Site s) {
        return r.bySite().get(Retention.key(s.frame(), s.typeName()));
    }

    @Test
    void aLinkedListFoldsIntoOneShapeWhateverTheDepth() {
        Forest f = new Forest();
        int list = f.staticRoot("com.acme.Cache", "ENTRIES", "java.util.LinkedList");
        int node = f.add(list, Kind.FIELD, "java.util.LinkedList$Node", "first");
        for (int i = 0; i < 6; i++) {
            if (i == 0 || i == 1 || i == 5) {
                f.sample(100 + i, 1, 4096, f.add(node, Kind.FIELD, "byte[]", "item"));
            }
            node = f.add(node, Kind.FIELD, "java.util.LinkedList$Node", "next");
        }
        List<Retention.RetainedBy> shapes = of(retention(f.walk(10)), CACHE);
        assertThat(shapes).singleElement().satisfies(s -> {
            assertThat(s.root()).isEqualTo("static com.acme.Cache.ENTRIES");
            assertThat(s.path()).containsExactly("java.util.LinkedList.first", "java.util.LinkedList$Node.next*",
                    "java.util.LinkedList$Node.item");
            assertThat(s.samples()).isEqualTo(3);
        });
    }

    @Test
    void treeNodesFoldWithEveryFieldTheWalkWentThrough() {
        Forest f = new Forest();
        int map = f.staticRoot("com.acme.Cache", "INDEX", "java.util.TreeMap");
        int root = f.add(map, Kind.FIELD, "java.util.TreeMap$Entry", "root");
        int left = f.add(root, Kind.FIELD, "java.util.TreeMap$Entry", "left");
        int leftRight = f.add(left, Kind.FIELD, "java.util.TreeMap$Entry", "right");
        int right = f.add(root, Kind.FIELD, "java.util.TreeMap$Entry", "right");
        f.sample(1, 1, 4096, f.add(leftRight, Kind.FIELD, "byte[]", "value"));
        f.sample(2, 1, 4096, f.add(right, Kind.FIELD, "byte[]", "value"));
        f.sample(3, 1, 4096, f.add(root, Kind.FIELD, "byte[]", "value"));
        assertThat(of(retention(f.walk(10)), CACHE)).singleElement().satisfies(s -> {
            assertThat(s.path()).containsExactly("java.util.TreeMap.root", "java.util.TreeMap$Entry.{left,right}*",
                    "java.util.TreeMap$Entry.value");
            assertThat(s.samples()).isEqualTo(3);
        });
    }

    @Test
    void nestedMapsFoldTheirRepeatedBlock() {
        Forest f = new Forest();
        int outer = f.staticRoot("com.acme.Cache", "TENANTS", "java.util.HashMap");
        int map = outer;
        for (int depth = 0; depth < 4; depth++) {
            int table = f.add(map, Kind.FIELD, "java.util.HashMap$Node[]", "table");
            int entry = f.add(table, Kind.ARRAY_ELEMENT, "java.util.HashMap$Node", null);
            if (depth >= 1) {
                f.sample(10 + depth, 1, 4096, f.add(entry, Kind.FIELD, "byte[]", "value"));
            }
            map = f.add(entry, Kind.FIELD, "java.util.HashMap", "value");
        }
        assertThat(of(retention(f.walk(10)), CACHE)).singleElement().satisfies(s -> {
            assertThat(s.path()).containsExactly(
                    "(java.util.HashMap.table -> java.util.HashMap$Node[] -> java.util.HashMap$Node.value)*",
                    "java.util.HashMap.table", "java.util.HashMap$Node[]", "java.util.HashMap$Node.value");
            assertThat(s.samples()).isEqualTo(3);
        });
    }

    @Test
    void threadsOfAPoolAreOneRootAndEstimatesWeighEachSample() {
        Forest f = new Forest();
        for (int t = 1; t <= 3; t++) {
            int thread = f.nodes.size();
            f.nodes.add(new Node(-1, Kind.THREAD, false, "java.lang.Thread", "thread pool-1-thread-" + t, 0));
            int map = f.add(thread, Kind.FIELD, "java.lang.ThreadLocal$ThreadLocalMap", "threadLocals");
            int table = f.add(map, Kind.FIELD, "java.lang.ThreadLocal$ThreadLocalMap$Entry[]", "table");
            int entry = f.add(table, Kind.ARRAY_ELEMENT, "java.lang.ThreadLocal$ThreadLocalMap$Entry", null);
            f.sample(t, 2, t == 3 ? 40960 : 4096, f.add(entry, Kind.FIELD, "byte[]", "value"));
        }
        // a sample held by a single thread's frame: a shape of its own
        f.nodes.add(new Node(-1, Kind.STACK_LOCAL, false, "byte[]", "thread main: com.acme.Worker.main(Worker.java:3)",
                0));
        f.sample(9, 2, 4096, f.nodes.size() - 1);
        List<Retention.RetainedBy> shapes = of(retention(f.walk(10)), POOL);
        assertThat(shapes).hasSize(2);
        Retention.RetainedBy pool = shapes.get(0);
        assertThat(pool.root()).isEqualTo("thread pool-*-thread-*");
        assertThat(pool.path()).containsExactly("java.lang.Thread.threadLocals",
                "java.lang.ThreadLocal$ThreadLocalMap.table", "java.lang.ThreadLocal$ThreadLocalMap$Entry[]",
                "java.lang.ThreadLocal$ThreadLocalMap$Entry.value");
        double p4 = ReportBuilder.probability(4096, 4096);
        double p40 = ReportBuilder.probability(40960, 4096);
        assertThat(pool.samples()).isEqualTo(3);
        assertThat(pool.objects()).isEqualTo(Math.round(2 / p4 + 1 / p40));
        assertThat(pool.bytes()).isEqualTo(Math.round(2 * 4096 / p4 + 40960 / p40));
        assertThat(shapes.get(1).root()).isEqualTo("thread main: com.acme.Worker.main(Worker.java:3)");
        assertThat(shapes.get(1).path()).isEmpty();
    }

    @Test
    void theLastWalkInTheWindowCounts() {
        Forest early = new Forest();
        early.sample(1, 1, 4096, early.staticRoot("com.acme.Cache", "OLD", "byte[]"));
        Forest late = new Forest();
        late.sample(1, 1, 4096, late.staticRoot("com.acme.Cache", "NEW", "byte[]"));
        RecordedRun run = TestRun.create(dir.resolve("w.msrec")).site(CACHE).retention(early.walk(1_000_000_000L))
                .retention(late.walk(3_000_000_000L)).close();
        assertThat(RetentionPaths.of(run, 0, 0, Long.MAX_VALUE, false).bySite().values())
                .singleElement().satisfies(l -> assertThat(l.get(0).root()).isEqualTo("static com.acme.Cache.NEW"));
        assertThat(RetentionPaths.of(run, 0, 0, 2_000_000_000L, true).bySite().values())
                .singleElement().satisfies(l -> assertThat(l.get(0).root()).isEqualTo("static com.acme.Cache.OLD"));
        assertThat(RetentionPaths.of(run, 0, 0, 500_000_000L, true)).isEqualTo(Retention.NONE);
    }

    @Test
    void reportJsonAndSummaryShowThePaths() {
        Forest f = new Forest();
        int list = f.staticRoot("com.acme.Cache", "ENTRIES", "java.util.ArrayList");
        int array = f.add(list, Kind.FIELD, "java.lang.Object[]", "elementData");
        TestRun t = TestRun.create(dir.resolve("j.msrec")).site(CACHE).meta("intervalBytes", "4096")
                .meta("startNanos", "0");
        // a site that grows over the run: a leak suspect, held at whole-heap collections and growing from one to the
        // next (young collections confirm nothing: "held" means reachable)
        for (int i = 0; i < 40; i++) {
            t.alloc(i * 100_000_000L, i + 1, 4096, 1);
            f.sample(i + 1, 1, 4096, f.add(array, Kind.ARRAY_ELEMENT, "byte[]", null));
            if (i % 10 == 9) {
                t.gc(new GcRecord(i * 100_000_000L + 50_000_000L, 1_000_000, "G1 Old Generation", "x", 1 << 30,
                        1 << 30, 1 << 30));
            }
        }
        Report r = ReportBuilder.build(t.retention(f.walk(4_000_000_000L)).close());
        String json = ReportJson.toJson(r);
        assertThat(r.leakSuspects()).extracting(SiteProfile::site).containsExactly(CACHE.frame());
        assertThat(json).contains("\"retention\": {", "\"outcome\": \"complete\"", "\"samplesReached\": 40",
                "\"retainedBy\": [", "\"root\": \"static com.acme.Cache.ENTRIES\"",
                "\"java.util.ArrayList.elementData\"", "\"java.lang.Object[]\"");
        assertThat(Summary.format(r)).contains("      held by static Cache.ENTRIES -> ArrayList.elementData -> "
                + "Object[] (40 of 40 samples)");
    }
}
