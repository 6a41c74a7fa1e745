package io.memscope.cli;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Small, closed recordings written in-process for the CLI's tests of damaged and odd input. */
final class SmallRecordings {
    private SmallRecordings() {
    }

    /**
     * {@code events} allocations (every 4th collected) at two sites with stacks, GCs every 100 events, metadata (the
     * well-known keys plus {@code extra}), in blocks of 512 bytes (many blocks to damage).
     */
    static Path write(Path file, int events, Map<String, String> extra) {
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 1_000)
                .process(4242, 0).blockBytes(512).open()) {
            w.metadata("mode", "sample");
            w.metadata("intervalBytes", "1024");
            w.metadata("startNanos", "1000");
            w.metadata("startEpochMillis", "1767225600000");
            w.metadata("pid", "4242");
            w.metadata("command", "com.example.App");
            for (Map.Entry<String, String> e : extra.entrySet()) {
                w.metadata(e.getKey(), e.getValue());
            }
            w.site(1, "com.example.Cache", "put", "Cache.java", 42, "byte[]");
            w.site(2, "com.example.Parser", "parse", "Parser.java", 7, "char[]");
            w.stack(0xa1L, List.of("com.example.Cache.put(Cache.java:42)", "com.example.App.main(App.java:3)"));
            w.stack(0xb2L, List.of("com.example.Parser.parse(Parser.java:7)", "com.example.App.main(App.java:4)"));
            int main = w.strings().intern("main");
            int bytes = w.strings().intern("byte[]");
            int chars = w.strings().intern("char[]");
            for (int i = 0; i < events; i++) {
                boolean cache = (i & 1) == 0;
                long t = 1_000 + i * 10_000L;
                w.accept(t, MemoryEventType.ALLOCATE, i + 1, 1024, 0, 1, main, 0, cache ? bytes : chars,
                        cache ? 0xa1L : 0xb2L, cache ? 1 : 2);
                if (i % 4 == 3) {
                    w.accept(t + 5_000, MemoryEventType.DEALLOCATE, i, 1024, 0, 1, main, 0, cache ? chars : bytes,
                            cache ? 0xb2L : 0xa1L, cache ? 2 : 1);
                }
                if (i % 100 == 99) {
                    w.gc(t + 6_000, 1_000_000, "G1 Young Generation", "G1 Evacuation Pause", 4_000_000, 1_000_000,
                            8_000_000, "end of minor GC");
                }
            }
            w.metadata("endNanos", Long.toString(1_000 + events * 10_000L));
        }
        return file;
    }
}
