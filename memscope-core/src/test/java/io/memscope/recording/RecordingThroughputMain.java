package io.memscope.recording;

import io.memscope.MemoryEventType;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

/**
 * Measurement program (not a test, run by hand; see docs/benchmarks.md "Recording file"): bytes per event, write
 * and read throughput of the recording format for the typical allocation stream of {@link SyntheticStreams},
 * against two peers measured in the same run: the same events as fixed-width fields through a
 * {@code DataOutputStream} (what a naive persistence of seed 000's event would do), and that stream gzipped.
 *
 * <pre>
 * ./mvnw -q -B -pl memscope-core -am test-compile
 * java -Xmx2g -cp memscope-core/target/classes:memscope-core/target/test-classes \
 *     io.memscope.recording.RecordingThroughputMain [events=5000000] [rounds=5]
 * </pre>
 */
public final class RecordingThroughputMain {
    private RecordingThroughputMain() {
    }

    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path dir = Files.createTempDirectory("memscope-bench");
        Path source = dir.resolve("source.msrec");
        try (RecordingWriter w = RecordingWriter.open(source)) {
            SyntheticStreams.typical(w, n, 7);
        }
        Recording events = RecordingReader.readStrict(source);
        System.out.printf("events: %,d (typical allocation stream), rounds: %d, best of rounds reported%n", n, rounds);

        Path out = dir.resolve("out.msrec");
        long[] write = new long[rounds];
        long[] read = new long[rounds];
        long[] stream = new long[rounds];
        long[] fixed = new long[rounds];
        long[] gzip = new long[rounds];
        long fixedBytes = 0;
        long gzipBytes = 0;
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            try (RecordingWriter w = RecordingWriter.builder(out).strings(copyStrings(events)).open()) {
                events.forEach(w);
            }
            write[r] = System.nanoTime() - t0;

            t0 = System.nanoTime();
            Recording back = RecordingReader.readStrict(out);
            read[r] = System.nanoTime() - t0;
            if (back.eventCount() != n) {
                throw new AssertionError("read " + back.eventCount());
            }

            long[] count = new long[1];
            t0 = System.nanoTime();
            RecordingReader.stream(out, new RecordingVisitor() {
                @Override
                public void accept(long ts, MemoryEventType type, long address, long size, long prev, long tid,
                                   int tname, int var, int tyname, long stack, int site) {
                    count[0] += size;
                }
            });
            stream[r] = System.nanoTime() - t0;

            Path f = dir.resolve("fixed.bin");
            t0 = System.nanoTime();
            try (OutputStream os = Files.newOutputStream(f)) {
                writeFixed(events, os);
            }
            fixed[r] = System.nanoTime() - t0;
            fixedBytes = Files.size(f);

            Path g = dir.resolve("fixed.bin.gz");
            t0 = System.nanoTime();
            try (OutputStream os = new GZIPOutputStream(Files.newOutputStream(g), 1 << 16)) {
                writeFixed(events, os);
            }
            gzip[r] = System.nanoTime() - t0;
            gzipBytes = Files.size(g);
        }
        long size = Files.size(out);
        report("recording write", n, size, best(write));
        report("recording read (in memory)", n, size, best(read));
        report("recording stream (visitor)", n, size, best(stream));
        report("fixed-width DataOutputStream write", n, fixedBytes, best(fixed));
        report("fixed-width + gzip write", n, gzipBytes, best(gzip));
        System.out.printf("ratios: size fixed/recording %.1fx, gzip/recording %.2fx; write speed recording/fixed "
                        + "%.2fx, recording/gzip %.2fx%n", (double) fixedBytes / size, (double) gzipBytes / size,
                (double) best(fixed) / best(write), (double) best(gzip) / best(write));
        for (Path p : new Path[] {source, out, dir.resolve("fixed.bin"), dir.resolve("fixed.bin.gz")}) {
            Files.deleteIfExists(p);
        }
        Files.deleteIfExists(dir);
    }

    private static io.memscope.store.StringTable copyStrings(Recording rec) {
        io.memscope.store.StringTable t = new io.memscope.store.StringTable();
        for (int i = 1; i < rec.stringCount(); i++) {
            t.intern(rec.string(i));
        }
        return t;
    }

    private static void writeFixed(Recording events, OutputStream os) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(os, 1 << 16));
        IOException[] failure = new IOException[1];
        events.forEach((ts, type, address, size, prev, tid, tname, var, tyname, stack, site) -> {
            try {
                out.writeLong(ts);
                out.writeByte(type.code());
                out.writeLong(address);
                out.writeLong(size);
                out.writeLong(prev);
                out.writeLong(tid);
                out.writeInt(tname);
                out.writeInt(var);
                out.writeInt(tyname);
                out.writeLong(stack);
                out.writeInt(site);
            } catch (IOException e) {
                failure[0] = e;
            }
        });
        out.flush();
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    private static long best(long[] times) {
        return Arrays.stream(times).min().orElseThrow();
    }

    private static void report(String what, int n, long bytes, long nanos) {
        System.out.printf("%-36s %6.2f bytes/event  %7.1f ns/event  %6.1f M events/s  %7.1f MB/s%n", what,
                (double) bytes / n, (double) nanos / n, n * 1e3 / nanos, bytes * 1e3 / nanos);
    }
}
