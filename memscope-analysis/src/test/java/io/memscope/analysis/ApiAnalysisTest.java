package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API sections of a report from a recording written by hand, figures known exactly: sampling interval 1 byte
 * (every sample weighs its size), samples written before the scope edges they fall in (as the agent's flushes do).
 */
class ApiAnalysisTest {
    @TempDir
    Path dir;

    @Test
    void scopesFunctionsNamedObjectsAndPoolsFromTheRecording() {
        Path file = writeApiRecording();
        ApiReport r = ApiAnalysis.analyze(RecordedRun.open(file));
        assertApiSections(r);
    }

    /** The report runs the API sections' analysis alongside its replay, on the decoding thread: the same figures. */
    @Test
    void theReportBuildsTheSameSectionsAlongsideItsReplay() {
        Path file = writeApiRecording();
        Report report = ReportBuilder.build(file);
        assertThat(report.api()).isEqualTo(ApiAnalysis.analyze(RecordedRun.open(file)));
        assertApiSections(report.api());
    }

    /**
     * The first whole-heap collection is a G1 Remark without the JVM's heap figures (JDK 17) and holds the most: it is
     * the report's peak, and the API sections' held-at-the-peak figures are at it too (analysed alone, they are at the
     * JVM's peak, the end check).
     */
    @Test
    void theSectionsHeldAtThePeakAreAtTheReportsPeak() {
        Path file = writeApiRecording(true);
        Report report = ReportBuilder.build(file);
        assertThat(report.peak().gcName()).isEqualTo("G1 Remark");
        assertThat(report.peak().estimatedBytes()).isEqualTo(3500);
        assertApiSections(report.api());
        ApiReport alone = ApiAnalysis.analyze(RecordedRun.open(file));
        assertThat(alone.scopes().get(0).heldAtPeakBytes()).as("the JVM's peak: the end check").isZero();
    }

    private Path writeApiRecording() {
        return writeApiRecording(false);
    }

    private Path writeApiRecording(boolean remark) {
        Path file = dir.resolve(remark ? "remark.msrec" : "api.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).clock(0, 0).open()) {
            w.metadata("intervalBytes", "1");
            w.metadata("startNanos", "0");
            w.metadata("endNanos", "10000");
            w.metadata("option.functions", "pkg.Service.*");
            w.site(1, "pkg.Service", "handle", "Service.java", 10, "byte[]");
            w.stack(11, List.of("pkg.Service.handle(Service.java:10)", "pkg.Main.main(Main.java:5)"));
            w.stack(12, List.of("pkg.Service.rec(Service.java:3)", "pkg.Service.rec(Service.java:3)",
                    "pkg.Main.main(Main.java:7)"));
            // two collections of the whole heap (held means reachable at one of them)
            if (remark) {
                w.gc(new io.memscope.recording.GcRecord(5000, 10, "G1 Remark", "cause", 0, 0, 0, null)
                        .withExamined(io.memscope.recording.GcRecord.Examined.WHOLE_HEAP, 5000, 5000));
                w.gc(new io.memscope.recording.GcRecord(9000, 10, "G1 Old Generation", "System.gc()", 300, 50, 1000,
                        null).withExamined(io.memscope.recording.GcRecord.Examined.WHOLE_HEAP, 9000, 9000));
            } else {
                w.gc(5000, 10, "G1 Old Generation", "cause", 500, 100, 1000);
                w.gc(9000, 10, "G1 Old Generation", "System.gc()", 300, 50, 1000);
            }
            int main = w.strings().intern("main");
            int worker = w.strings().intern("worker");
            // samples first, edges after: the order of one flush
            w.accept(250, MemoryEventType.ALLOCATE, 1, 1000, 0, 1, main, 0, 0, 11, 1); // in request/parse
            w.accept(260, MemoryEventType.ALLOCATE, 3, 500, 0, 2, worker, 0, 0, 12, 1); // no scope
            w.accept(350, MemoryEventType.ALLOCATE, 2, 2000, 0, 1, main, 0, 0, 11, 1); // in request
            // freed by the last collection (9000), observed after it: held at the peak (5000), not at the end
            w.accept(9500, MemoryEventType.DEALLOCATE, 2, 2000, 0, 1, main, 0, 0, 0, 1);
            w.scopePath(1, 0, "request");
            w.scopePath(2, 1, "parse");
            w.scopeEdge(100, 1, main, false, 1, 0, -1);
            w.scopeEdge(200, 1, main, false, 2, 0, -1);
            w.scopeEdge(300, 1, main, true, 2, 0, 1100);
            w.scopeEdge(400, 1, main, true, 1, 0, 3500);
            w.scopeEdge(500, 2, worker, false, 1, 42, -1); // a task, on a virtual thread: no bytes
            w.scopeEdge(900, 2, worker, true, 1, 0, -1);
            w.functionStats("pkg.Service.handle", "(J)V", "pkg.Main.main(Main.java:5)", 2, 0, 3_000_000, 2_000_000,
                    4096, 0);
            w.functionStats("pkg.Service.handle", "(I)V", "pkg.Main.main(Main.java:5)", 1, 0, 1_000_000, 1_000_000,
                    1024, 0);
            w.functionStats("pkg.Service.rec", "(I)I", "pkg.Main.main(Main.java:7)", 1, 1, 500_000, 500_000, 0, 0);
            int cache = w.strings().intern("cache");
            int map = w.strings().intern("java.util.HashMap");
            int db = w.strings().intern("db");
            int conn = w.strings().intern("Conn");
            w.apiEvent(120, MemoryEventType.ALLOCATE, 7, 48, 0, 1, main, cache, map, 0, 0);
            w.apiEvent(7000, MemoryEventType.DEALLOCATE, 7, 48, 6880, 1, main, cache, map, 0, 0);
            w.apiEvent(130, MemoryEventType.BORROW, 5, 0, 0, 1, main, db, conn, 11, 0);
            w.apiEvent(140, MemoryEventType.RETURN, 5, 0, 0, 1, main, db, 0, 0, 0);
            w.apiEvent(150, MemoryEventType.BORROW, 6, 10, 0, 1, main, db, conn, 12, 0);
            w.apiEvent(160, MemoryEventType.BORROW, 8, 20, 0, 1, main, db, conn, 11, 0);
            w.anomaly("pool-leak", 8000, 8, 20, 0, 11, "db");
            w.anomaly("scope-out-of-order", 300, 0, 0, 1, 0, "request/parse");
        }
        return file;
    }

    private static void assertApiSections(ApiReport r) {
        assertThat(r.scopes()).extracting(ApiReport.ScopeRow::path).containsExactly("request", "request/parse");
        ApiReport.ScopeRow request = r.scopes().get(0);
        assertThat(request.entries()).isEqualTo(2);
        assertThat(request.tasks()).isEqualTo(1);
        assertThat(request.totalMs()).isEqualTo((300 + 400) / 1e6);
        assertThat(request.maxMs()).isEqualTo(400 / 1e6);
        assertThat(request.selfMs()).isEqualTo((200 + 400) / 1e6);
        assertThat(request.allocatedBytes()).isEqualTo(3500);
        assertThat(request.selfAllocatedBytes()).isEqualTo(2400);
        assertThat(request.entriesWithoutAllocation()).isEqualTo(1);
        assertThat(request.sampledBytes()).isEqualTo(2000);
        assertThat(request.heldAtEndBytes()).isZero();
        assertThat(request.heldAtPeakBytes()).isEqualTo(2000);
        ApiReport.ScopeRow parse = r.scopes().get(1);
        assertThat(parse.parentPath()).isEqualTo("request");
        assertThat(parse.depth()).isEqualTo(2);
        assertThat(parse.allocatedBytes()).isEqualTo(1100);
        assertThat(parse.sampledBytes()).isEqualTo(1000);
        assertThat(parse.heldAtEndBytes()).isEqualTo(1000);
        assertThat(parse.heldAtPeakBytes()).isEqualTo(1000);
        assertThat(r.samplesInScopes()).isEqualTo(2);
        assertThat(r.scopeAnomalies()).isEqualTo(Map.of("scope-out-of-order", 1L));

        assertThat(r.functions()).hasSize(2);
        ApiReport.FunctionRow handle = r.functions().get(0);
        assertThat(handle.function()).isEqualTo("pkg.Service.handle");
        assertThat(handle.callSite()).isEqualTo("pkg.Main.main(Main.java:5)");
        assertThat(handle.calls()).isEqualTo(3); // both overloads
        assertThat(handle.totalMs()).isEqualTo(4.0);
        assertThat(handle.maxMs()).isEqualTo(2.0);
        assertThat(handle.allocatedBytes()).isEqualTo(5120);
        assertThat(handle.heldAtEndBytes()).isEqualTo(1000);   // sample 1; sample 2 was collected
        assertThat(handle.heldAtPeakBytes()).isEqualTo(3000);   // both held at the peak
        ApiReport.FunctionRow rec = r.functions().get(1);
        assertThat(rec.function()).isEqualTo("pkg.Service.rec");
        assertThat(rec.recursiveCalls()).isEqualTo(1);
        assertThat(rec.heldAtEndBytes()).isEqualTo(500);       // once, though twice in its stack

        assertThat(r.trackedObjects()).singleElement().satisfies(o -> {
            assertThat(o.name()).isEqualTo("cache");
            assertThat(o.type()).isEqualTo("java.util.HashMap");
            assertThat(o.bytes()).isEqualTo(48);
            assertThat(o.alive()).isFalse();
            assertThat(o.ageMs()).isEqualTo(6880 / 1e6);
        });

        assertThat(r.pools()).singleElement().satisfies(p -> {
            assertThat(p.pool()).isEqualTo("db");
            assertThat(p.borrows()).isEqualTo(3);
            assertThat(p.returns()).isEqualTo(1);
            assertThat(p.notReturned()).isEqualTo(1);
            assertThat(p.notReturnedBytes()).isEqualTo(10);
            assertThat(p.peakOutstanding()).isEqualTo(2);
            assertThat(p.leaks()).isEqualTo(1);
        });
        assertThat(r.poolLeaks()).extracting(ApiReport.PoolLeakRow::kind).containsExactly("unreachable", "not-returned");
        assertThat(r.poolLeaks().get(0).stack()).containsExactly("pkg.Service.handle(Service.java:10)",
                "pkg.Main.main(Main.java:5)");
        assertThat(r.poolLeaks().get(0).resourceType()).isEqualTo("Conn");
        assertThat(r.poolLeaks().get(1).leaseId()).isEqualTo(6);
        assertThat(r.poolLeaks().get(1).thread()).isEqualTo("1/main");
    }

    @Test
    void aRecordingWithoutApiDataHasEmptySections() {
        Path file = dir.resolve("plain.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).open()) {
            w.accept(1, MemoryEventType.ALLOCATE, 1, 64, 0, 1, 0, 0, 0, 0, 0);
        }
        ApiReport r = ApiAnalysis.analyze(RecordedRun.open(file));
        assertThat(r.isEmpty()).isTrue();
    }
}
