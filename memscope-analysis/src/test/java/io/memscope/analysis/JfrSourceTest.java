package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.error.CorruptFileException;
import io.memscope.recording.GcRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import jdk.jfr.Recording;
import jfrfixture.JfrWork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JFR recording of this test JVM (jdk.jfr's Recording: allocation samples, old-object samples with paths to GC
 * roots, collections) read as a run. The end-to-end tests, with the JDK's -XX:StartFlightRecording and with
 * async-profiler, are memscope-it's JfrReportTest.
 */
class JfrSourceTest {
    private static Path record(Path dir) throws Exception {
        Path file = dir.resolve("test.jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.ObjectAllocationSample").with("throttle", "1000/s");
            r.enable("jdk.OldObjectSample").withStackTrace().with("cutoff", "infinity");
            r.enable("jdk.GarbageCollection");
            r.enable("jdk.GCHeapSummary");
            r.enable("jdk.JVMInformation");
            r.start();
            JfrWork.keep();
            JfrWork.churn();
            System.gc();
            r.stop();
            r.dump(file);
        }
        return file;
    }

    @Test
    void aJfrRecordingOfThisJvmReportsItsSitesAndSaysWhatItLacks(@TempDir Path tmp) throws Exception {
        Path file = record(tmp);
        RecordedRun run = RecordedRun.open(file);
        assertThat(run.origin().kind()).isEqualTo("jfr");
        assertThat(run.eventWeights()).isTrue();
        assertThat(run.gcRecords()).anyMatch(GcRecord::wholeHeap);
        Report report = ReportBuilder.build(file);
        assertThat(report.recording().jfr()).isTrue();
        assertThat(report.recording().closed()).isTrue();
        assertThat(report.recording().limitations()).anyMatch(l -> l.startsWith("no scopes"))
                .anyMatch(l -> l.startsWith("no native memory"));
        List<String> allocating = report.topAllocationSites().stream().map(SiteProfile::site).toList();
        assertThat(allocating).anyMatch(s -> s.startsWith("jfrfixture.JfrWork.churn(Unknown Source:"));
        // each sample counts its weight: the allocated total is about what the threads allocated, not a Poisson sum
        assertThat(report.totals().allocatedBytes()).isGreaterThan(400_000L * 1040 / 2);
        // the diff's noise band for JFR weights: the size-biased mean weight, at least the plain mean weight
        long effective = Long.parseLong(report.metadata().get(JfrSource.EFFECTIVE_WEIGHT_BYTES));
        assertThat(effective).isPositive().isLessThanOrEqualTo(report.totals().allocatedBytes());
        assertThat(DiffBuilder.varianceFactor(report, DiffMetric.ALLOCATED, 1)).isEqualTo(effective);
        // pprof: JFR's samples have no byte period (not memscope's 512 KiB)
        assertThat(io.memscope.analysis.export.PprofProfile.period(report)).isZero();
        java.io.ByteArrayOutputStream pprof = new java.io.ByteArrayOutputStream();
        io.memscope.analysis.export.PprofProfile.write(report, io.memscope.analysis.export.ExportMetric.ALLOC_BYTES,
                io.memscope.analysis.export.PprofProfile.period(report), 0, pprof);
        PprofWire wire = PprofWire.decode(new java.io.ByteArrayInputStream(pprof.toByteArray()));
        assertThat(wire.period).isZero();
        assertThat(wire.sum("alloc_space")).isEqualTo(report.totals().allocatedBytes());
        assertThat(DiffBuilder.varianceFactor(report, DiffMetric.LIVE, 1)).isZero();
        String json = ReportJson.toJson(report);
        assertThat(json.replace(" ", "").replace("\n", "")).contains("\"source\":{\"kind\":\"jfr\"");
        assertThat(Summary.format(report)).contains("from a JFR recording").contains("not in a JFR recording: ");
    }

    @Test
    void aTruncatedRecordingIsACorruptFileNamingTheChunk(@TempDir Path tmp) throws Exception {
        Path file = record(tmp);
        byte[] all = Files.readAllBytes(file);
        Path cut = tmp.resolve("cut.jfr");
        Files.write(cut, Arrays.copyOf(all, all.length - 10));
        assertThatThrownBy(() -> RecordedRun.open(cut)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("not a readable JFR recording").hasMessageContaining("truncated");
        Path tiny = tmp.resolve("tiny.jfr");
        Files.write(tiny, Arrays.copyOf(all, 20));
        assertThatThrownBy(() -> RecordedRun.open(tiny)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("header");
        Path other = tmp.resolve("other.jfr");
        Files.writeString(other, "hello");
        assertThatThrownBy(() -> RecordedRun.open(other)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("not a JFR recording");
    }

    @Test
    void namesAndSizes() {
        assertThat(JfrSource.arrayBytes("byte[]", 16384)).isEqualTo(16400);
        assertThat(JfrSource.arrayBytes("java.lang.Object[]", 3)).isEqualTo(32);
        assertThat(JfrSource.arrayBytes("java.lang.String", 0)).isZero();
        assertThat(JfrRuntimeRecords.examined("G1Full")).isEqualTo(GcRecord.Examined.WHOLE_HEAP);
        assertThat(JfrRuntimeRecords.examined("G1Old")).isEqualTo(GcRecord.Examined.WHOLE_HEAP);
        assertThat(JfrRuntimeRecords.examined("G1New")).isEqualTo(GcRecord.Examined.YOUNG);
        assertThat(JfrRuntimeRecords.examined("Epsilon")).isEqualTo(GcRecord.Examined.UNKNOWN);
    }
}
