package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.GcRecord;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.List;

/** Writes a recording for analysis tests, the way the agent does (the recording is the analysis' only input). */
final class TestRun {
    private final Path file;
    private final RecordingWriter w;
    private final int main;

    private TestRun(Path file) {
        this.file = file;
        this.w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 0).process(4242, 0).open();
        this.main = w.strings().intern("main");
    }

    static TestRun create(Path file) {
        return new TestRun(file);
    }

    TestRun meta(String key, String value) {
        w.metadata(key, value);
        return this;
    }

    TestRun site(Site s) {
        w.site(s.id(), s.className(), s.methodName(), s.fileName(), s.line(), s.typeName());
        return this;
    }

    TestRun stack(long id, String... frames) {
        w.stack(id, List.of(frames));
        return this;
    }

    TestRun event(long t, MemoryEventType type, long address, long size, long previousSize, int site, long stack,
                  String typeName) {
        w.accept(t, type, address, size, previousSize, 1, main, 0, w.strings().intern(typeName), stack, site);
        return this;
    }

    TestRun event(long t, MemoryEventType type, long address, long size, long previousSize, int site) {
        return event(t, type, address, size, previousSize, site, 0, null);
    }

    /** A heap sample allocated at {@code t}. */
    TestRun alloc(long t, long id, long size, int site) {
        return event(t, MemoryEventType.ALLOCATE, id, size, 0, site);
    }

    /** A heap sample allocated at {@code t} with a stack. */
    TestRun alloc(long t, long id, long size, int site, long stack) {
        return event(t, MemoryEventType.ALLOCATE, id, size, 0, site, stack, null);
    }

    /** The collection of a heap sample, observed at {@code t}, with its lifetime. */
    TestRun free(long t, long id, long size, long lifetime, int site) {
        return event(t, MemoryEventType.DEALLOCATE, id, size, lifetime, site);
    }

    TestRun gc(GcRecord g) {
        w.gc(g);
        return this;
    }

    TestRun siteCount(int site, long count, long bytes) {
        w.siteCount(site, count, bytes);
        return this;
    }

    TestRun anomaly(String kind, long t, long address, long stack) {
        w.anomaly(kind, t, address, 0, 1, stack, null);
        return this;
    }

    TestRun retention(io.memscope.recording.RetentionWalk walk) {
        w.retention(walk);
        return this;
    }

    TestRun processMemory(io.memscope.recording.Recording.ProcessMemorySamples samples) {
        w.processMemory(samples);
        return this;
    }

    /** Closes the file (END block) and opens it for analysis. */
    RecordedRun close() {
        w.close();
        return RecordedRun.open(file);
    }

    /** Leaves the file without its END block, as a killed writer does (complete blocks only). */
    RecordedRun abandon() {
        w.flush();
        return RecordedRun.open(file);
    }

    Path file() {
        return file;
    }
}
