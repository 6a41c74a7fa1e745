package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay finds an event's (stack, site) tally by the stack's id (ids below a bound, directly) and checks its
 * site: a stack id met at two sites in turn keeps two tallies, a large id goes to its site's table, and a heap site's
 * collections, handed on without its tally, still count. Samples of 1 MiB at a mean interval of 1 KiB weigh their own
 * size (p = 1), so every figure is exact.
 */
class StackLookupTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1 << 20;
    private static final long LARGE = 1L << 40;

    @TempDir
    Path tmp;

    @Test
    void aStackIdSharedBySitesOrBeyondTheDirectTableKeepsItsTallies() {
        TestRun d = TestRun.create(tmp.resolve("stacks.msrec"))
                .meta(MetadataKeys.MODE, "sample").meta(MetadataKeys.INTERVAL_BYTES, "1024")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .site(new Site(1, "a.One", "make", "One.java", 1, "byte[]"))
                .site(new Site(2, "a.Two", "make", "Two.java", 2, "byte[]"))
                .stack(77, "a.Shared.call(Shared.java:7)")
                .stack(LARGE, "a.Far.call(Far.java:9)");
        long id = 1;
        long t = MS;
        // stack 77 at sites 1 and 2 in turn (3 and 5 samples), the large id at site 1 (2 samples)
        int[] sites = {1, 2, 2, 1, 2, 1, 2, 2};
        for (int s : sites) {
            d.alloc(t++, id++, MIB, s, 77);
        }
        d.alloc(t++, id++, MIB, 1, LARGE);
        d.alloc(t++, id++, MIB, 1, LARGE);
        // the first two samples collected (sites 1 and 2), handed to the held half without the sites' tallies
        d.free(302 * MS, 1, MIB, 301 * MS, 1);
        d.free(302 * MS, 2, MIB, 300 * MS, 2);
        d.gc(new GcRecord(300 * MS, MS, "G1 Old Generation", "G1 Compaction Pause", 20 * MIB, 9 * MIB, 64 * MIB,
                "end of major GC"));
        d.gc(new GcRecord(600 * MS, MS, "G1 Old Generation", "System.gc()", 9 * MIB, 9 * MIB, 64 * MIB,
                "end of major GC"));
        d.close();
        Report r = ReportBuilder.build(d.file());
        Map<String, Long> allocated = new HashMap<>();
        Map<String, Long> held = new HashMap<>();
        for (StackProfile p : r.stacks()) {
            allocated.put(p.frames().get(0) + " @ " + p.site(), p.allocatedBytes());
            held.put(p.frames().get(0) + " @ " + p.site(), p.heldBytes());
        }
        String one = site(r, "a.One").site();
        String two = site(r, "a.Two").site();
        assertThat(allocated).containsOnly(
                Map.entry("a.Shared.call(Shared.java:7) @ " + one, 3 * MIB),
                Map.entry("a.Shared.call(Shared.java:7) @ " + two, 5 * MIB),
                Map.entry("a.Far.call(Far.java:9) @ " + one, 2 * MIB));
        assertThat(site(r, "a.One").allocatedBytes()).isEqualTo(5 * MIB);
        assertThat(site(r, "a.One").liveBytes()).isEqualTo(4 * MIB);
        assertThat(site(r, "a.Two").allocatedBytes()).isEqualTo(5 * MIB);
        assertThat(site(r, "a.Two").liveBytes()).isEqualTo(4 * MIB);
    }

    private static SiteProfile site(Report r, String cls) {
        return r.sites().stream().filter(s -> s.site().startsWith(cls)).findFirst().orElseThrow();
    }
}
