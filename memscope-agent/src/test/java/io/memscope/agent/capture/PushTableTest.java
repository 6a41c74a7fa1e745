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
        PushTable t = new PushTable(1024);
        t.allocated(512, 11, heap, 1, null);
        t.allocated(512, 11, heap, 1, null);
        t.allocated(4096, 11, nat, 1, null);
        t.allocated(64, 0, 0, 1, "native:direct-buffer");
        t.allocated(64, 12, heap, 2, null);
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
        PushTable t = new PushTable(1 << 20);
        for (int i = 0; i < PushTable.MAX_ENTRIES + 10; i++) {
            t.allocated(1 << 20, 1000 + i, heap, 1, null);
        }
        PushTable.Taken taken = t.take();
        assertThat(taken.entries).hasSize(PushTable.MAX_ENTRIES);
        assertThat(taken.overflowedSamples).isEqualTo(10);
        assertThat(taken.overflow.bytes).isCloseTo(10 * (1 << 20) * LiveSites.weight(1 << 20, 1 << 20),
                within(1e-3));
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
}
