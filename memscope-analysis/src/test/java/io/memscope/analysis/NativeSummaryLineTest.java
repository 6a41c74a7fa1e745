package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary's "Native memory:" line. With malloc sampled its totals are estimates and say so (RocksDB under
 * {@code --malloc} printed "1.5 GiB allocated in 3911403 blocks ... 30.6 MiB outstanding in 30201 blocks", as if
 * counted); without, the exact counts have their thousands separated like every other count of the summary.
 */
class NativeSummaryLineTest {
    private static final long MS = 1_000_000L;
    private static final Site CTX = new Site(1, "com.acme.Db", "get", "Db.java", 12, Site.NATIVE_MALLOC);
    private static final Site BUF = new Site(2, "com.acme.Io", "buffer", "Io.java", 7, Site.NATIVE_UNSAFE);

    @TempDir
    Path dir;

    private static String nativeLine(Report r) {
        return Summary.format(r).lines().filter(l -> l.startsWith("  Native memory")).findFirst().orElseThrow();
    }

    @Test
    void mallocTotalsAreEstimatesRoundedToTheirPrecision() {
        TestRun t = TestRun.create(dir.resolve("malloc.msrec")).site(CTX)
                .stack(100, "libstdc++.so.6!_Znwm", "com.acme.Db.get(Db.java:12)")
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, "131072")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(10_000 * MS))
                .meta(MetadataKeys.MALLOC_SELF_TEST, "passed");
        long addr = 0x7f00_0000_0000L;
        for (int i = 0; i < 3000; i++) {
            // sampled 64 KiB blocks (each weighs about 2.5 blocks); one in three still outstanding at the end
            t.event(i * 3 * MS, MemoryEventType.ALLOCATE, addr + i * 0x20000L, 64 * 1024, 0, 1, 100, null);
            if (i % 3 != 0) {
                t.event(i * 3 * MS + MS, MemoryEventType.DEALLOCATE, addr + i * 0x20000L, 64 * 1024, 0, 1, 100, null);
            }
        }
        Report r = ReportBuilder.build(t.close());
        assertThat(r.nativeMemory().malloc()).isNotNull();
        assertThat(nativeLine(r)).as("estimated counts carry ~ and keep no digit below their error")
                .matches("  Native memory: ~?[0-9.]+ [KMG]iB allocated in ~[0-9,]+ blocks, .* freed, ~?[0-9.]+ [KMG]iB "
                        + "outstanding in ~[0-9,]+ blocks \\(peak ~?[0-9.]+ [KMG]iB\\)")
                .doesNotContainPattern("[0-9]{4}");
    }

    @Test
    void exactCountsHaveThousandsSeparated() {
        TestRun t = TestRun.create(dir.resolve("unsafe.msrec")).site(BUF)
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(10_000 * MS));
        long addr = 0x7f00_0000_0000L;
        for (int i = 0; i < 1500; i++) {
            t.event(i * 5 * MS, MemoryEventType.ALLOCATE, addr + i * 0x1000L, 1024, 0, 2);
        }
        Report r = ReportBuilder.build(t.close());
        assertThat(nativeLine(r)).contains("1.5 MiB allocated in 1,500 blocks, 0 B freed, 1.5 MiB outstanding in "
                + "1,500 blocks (peak 1.5 MiB)");
    }
}
