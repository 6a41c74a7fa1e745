package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.agent.boot.SamplerNatives;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The library's live table when a harvest (scan0 called again and again until it says the table has been gone
 * through) is left unfinished, as when the drain thread's handling of one batch throws: the next harvest starts over
 * from the first entry and must see each sample once. The half-done harvest leaves stale copies between the entries
 * it moved down and those it has not reached; going through them again reported a sample collected twice and deleted
 * its weak reference twice (a double release in the JVM's handle storage, which can hand one handle slot to two
 * owners and free a block still in use: heap corruption in the host).
 *
 * <p>Runs a real capture of the library in this JVM: samples of this thread's allocations, drained and committed
 * as the drain thread does (every other sample dropped, which removes entries mid-harvest), collections by
 * System.gc(). Platform: the JVMTI sampler library is built for Linux x86_64 only; elsewhere the test is skipped.
 */
class LiveTableHarvestTest {
    private static final int RECORD_LONGS = SampleDrain.RECORD_LONGS;
    private static final int COMMIT_LONGS = SampleDrain.COMMIT_LONGS;
    private static final int SCAN_LONGS = JvmtiLiveness.SCAN_LONGS;
    private static final int BATCH = 512;

    /** Kept reachable until the test drops them. */
    private static volatile List<byte[]> kept;

    @Test
    void aHarvestLeftUnfinishedIsNotGoneThroughTwice() throws Exception {
        SamplerLibraryInTests.load();
        // interval 256 bytes, no distances of memscope's own, 8 frames, 4 MiB queue, 1M tracked, sampling, no walk
        assertThat(SamplerNatives.start(256, 256, false, 8, 4L << 20, 1 << 20, true, 0)).isZero();
        boolean closed = false;
        try {
            List<byte[]> objects = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                objects.add(new byte[200]);
            }
            kept = objects;
            long tracked = drainAndCommit();
            assertThat(tracked).as("samples tracked").isGreaterThan(1000);

            System.gc(); // every sample still held: each one becomes a survivor, a change scan0 reports
            long[] small = new long[SCAN_LONGS]; // one entry per call: the harvest stops after its first report
            int rc = SamplerNatives.scan(small, true, Long.MIN_VALUE);
            assertThat(rc & 1).as("the first call did not go through the whole table").isZero();
            // ... and is left unfinished: the next harvest starts over, as JvmtiLiveness.scan does
            Set<Long> collected = new HashSet<>();
            harvest(collected);

            kept = null;
            objects = null;
            System.gc();
            harvest(collected);
            assertThat(collected.size()).as("samples reported collected, each once").isGreaterThan(1000);

            assertThat(SamplerNatives.pause()).isZero();
            drainAndCommit();
            long[] counters = new long[SamplerCounter.COUNT];
            SamplerNatives.counters(counters);
            long heldBeforeClose = counters[SamplerCounter.WEAK_REFS_HELD.ordinal()];
            closed = true;
            assertThat(SamplerNatives.close()).isZero();
            SamplerNatives.counters(counters);
            assertThat(heldBeforeClose).as("weak references held by the library before close").isPositive();
            assertThat(counters[SamplerCounter.WEAK_REFS_HELD.ordinal()])
                    .as("every weak reference deleted exactly once (negative: deleted twice)").isZero();
            assertThat(counters[SamplerCounter.BUFFERS.ordinal()]).isZero();
        } finally {
            if (!closed) {
                SamplerNatives.pause();
                SamplerNatives.close();
            }
        }
    }

    /** Drains the queue as the drain thread does; every other sample is kept (tracked), the rest dropped. */
    private static long drainAndCommit() {
        long[] records = new long[BATCH * RECORD_LONGS];
        long[] frames = new long[2 * 8192];
        long[] commit = new long[BATCH * COMMIT_LONGS];
        long tracked = 0;
        long id = 0;
        for (;;) {
            int n = SamplerNatives.drain(records, frames, true);
            if (n <= 0) {
                return tracked;
            }
            int commits = 0;
            for (int i = 0; i < n; i++) {
                int r = i * RECORD_LONGS;
                if (records[r + 5] != 0) {
                    SamplerNatives.thread(records[r + 5]); // the announcement's global reference, deleted
                }
                long index = records[r];
                if (index < 0) {
                    continue;
                }
                boolean keep = (i & 1) == 1; // the first one dropped: a harvest removes it, leaving a gap
                int c = commits++ * COMMIT_LONGS;
                commit[c] = index;
                commit[c + 1] = keep ? ++id : 0;
                commit[c + 2] = keep ? 1 : -1;
                commit[c + 3] = 0;
                if (keep) {
                    tracked++;
                }
            }
            SamplerNatives.commit(commit, commits);
        }
    }

    /** One whole harvest; each sample reported collected goes into {@code collected}, and must not be there yet. */
    private static void harvest(Set<Long> collected) {
        long[] out = new long[BATCH * SCAN_LONGS];
        boolean begin = true;
        for (;;) {
            int rc = SamplerNatives.scan(out, begin, Long.MIN_VALUE);
            begin = false;
            for (int i = 0; i < rc >>> 1; i++) {
                long id = out[i * SCAN_LONGS];
                long collectedBy = out[i * SCAN_LONGS + 5];
                if (collectedBy != 0) {
                    assertThat(collected.add(id)).as("sample %d reported collected once", id).isTrue();
                }
            }
            if ((rc & 1) != 0) {
                return;
            }
        }
    }
}
