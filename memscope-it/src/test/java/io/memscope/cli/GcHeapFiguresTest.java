package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ForkingBuildFixture;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every GC record of every JVM of a multi-JVM run has its heap figures: the JVM's GC notifications are matched with
 * its pauses by the beans' collection counts, whatever the notifications' delay and order under load and with
 * several beans. A build tool with test forks (a parent that allocates while three forks on G1, Parallel and Serial
 * run at once, each with several allocating threads and explicit GCs) under {@code memscope run}, repeated: matching
 * by time lost the figures of most collections in some runs and of none in others.
 *
 * <p>Records that have no figures by nature are allowed: a pause no GC bean counts ({@code JVM pause}: G1's Cleanup
 * before JDK 20, VM operations that collected nothing; {@code G1 Remark} on JDK 17). So are collections that ended
 * before memscope's notification listener was registered (at the first collection, not at start-up, which loads no
 * JMX) and whose heap memscope could not read right after them (another pause had started): counted in the
 * metadata, and never after the listener heard of a collection. Estimates above the JVM's heap are said as a
 * contradiction in the summary. A real Maven build with test forks is the workload of the whole-process benchmark
 * (memscope-bench's fork-build); here a fixture makes the same shape with more collections in less time.
 * Platform: Linux x86_64.
 */
class GcHeapFiguresTest {
    @RepeatedTest(3) // and a real Maven build ten times: MavenBuildGcFiguresIT
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void everyCollectionOfEveryJvmHasItsHeapFigures(@TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--interval", "128k"), List.of(Jvms.JDK17.toString(), "-Xmx64m",
                "-XX:+UseG1GC", "-cp", System.getProperty("java.class.path"), ForkingBuildFixture.class.getName(),
                "4000", "G1", "Parallel", "Serial"));
        assertThat(code).isZero();
        List<Path> dirs;
        try (java.util.stream.Stream<Path> l = Files.list(out)) {
            dirs = l.filter(d -> Files.isRegularFile(d.resolve("report.json"))).toList();
        }
        assertThat(dirs).as("the parent and its three forks").hasSize(4);
        List<String> names = new ArrayList<>();
        for (Path dir : dirs) {
            names.addAll(checkHeapFigures(dir, 6));
        }
        // each collector's beans were heard (which of a collector's beans depends on how much of the run came
        // before the listener: a loaded machine can fit all of a fork's young collections in that time)
        assertThat(names).contains("G1 Young Generation");
        assertThat(names).containsAnyOf("PS Scavenge", "PS MarkSweep");
        assertThat(names).containsAnyOf("Copy", "MarkSweepCompact");
    }

    /**
     * Checks one JVM's report (its folder under a run's output): every collection after the notification listener
     * heard of one has the JVM's heap figures; those without are counted in the metadata; no notification was left
     * unmatched; estimates above the heap are said as a contradiction.
     *
     * @param minCollections the fewest collections the JVM is expected to have recorded
     * @return the names of its collections
     */
    static List<String> checkHeapFigures(Path dir, int minCollections) throws java.io.IOException {
        List<String> names = new ArrayList<>();
        Object report = Json.parse(Files.readString(dir.resolve("report.json")));
        Map<String, Object> meta = Json.obj(report, "metadata");
        List<Map<String, Object>> gcs = Json.list(report, "gc", "collections");
        assertThat(gcs).as("collections of %s", meta.get("command")).hasSizeGreaterThanOrEqualTo(minCollections);
        // the listener is registered once the first collection ended; the JVM's figures of collections that
        // ended before are lost, and memscope reads the heap itself after each of them when it can: what it
        // could not read is counted, and comes before the first collection the listener heard of
        int firstHeard = gcs.size();
        for (int i = 0; i < gcs.size(); i++) {
            if (gcs.get(i).get("cause") != null) {
                firstHeard = Math.min(firstHeard, i);
            }
        }
        int without = 0;
        for (int i = 0; i < gcs.size(); i++) {
            Map<String, Object> c = gcs.get(i);
            String name = (String) c.get("name");
            names.add(name);
            if (!name.equals("JVM pause") && !name.equals("G1 Remark")
                    && Json.num(c, "heapCommittedBytes") == 0) {
                without++;
                assertThat(i).as("a record without heap figures after the listener heard of collection %d: %s "
                        + "in %s", firstHeard, c, meta.get("command")).isLessThan(firstHeard);
            }
        }
        assertThat(Jvms.metadataCount(meta, "gc.collectionsWithoutHeapFigures")).as("%s", meta)
                .isEqualTo(without);
        assertThat(Jvms.metadataCount(meta, "gcNotificationsUnmatched")).as("%s", meta).isZero();
        Map<String, Object> heapCheck = Json.obj(report, "heapCheck");
        if (heapCheck.get("consistent").equals(false)) {
            // estimates above the JVM's heap are said as a contradiction, never printed as two facts
            assertThat(Files.readString(dir.resolve("summary.txt"))).contains("! contradiction:");
        }
        return names;
    }
}
