package io.memscope.bench.recording;

import io.memscope.MemoryEventType;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.TypicalStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Write and read cost of the recording format ({@code io.memscope.recording}) per event, for a typical allocation
 * stream ({@link TypicalStream}, {@value #EVENTS} events per operation; scores are ns per event), against two
 * peers in the same run: the same events as fixed-width fields through a buffered {@code DataOutputStream} (a
 * naive persistence of memscope-rs's event: 65 bytes per event), and that stream through {@code GZIPOutputStream}
 * (default level). Files go to {@code java.io.tmpdir} (the page cache: this measures encoding, not the disk).
 *
 * <ul>
 * <li>{@code writeRecording}: a new {@link RecordingWriter} (sites, stacks, strings, events, END), closed.</li>
 * <li>{@code readRecording}: {@link RecordingReader#readStrict} into memory (columns).</li>
 * <li>{@code streamRecording}: {@link RecordingReader#stream} to a visitor summing the sizes (one block in
 *     memory).</li>
 * <li>{@code writeFixedWidth}, {@code readFixedWidth}, {@code writeFixedWidthGzip}, {@code readFixedWidthGzip}:
 *     the peers (the read peers sum the sizes, like the streaming read).</li>
 * </ul>
 * The file sizes (bytes per event) are printed when the trial starts.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@State(Scope.Benchmark)
public class RecordingBenchmark {
    static final int EVENTS = 100_000;
    static final int FIXED_BYTES_PER_EVENT = 8 + 1 + 8 + 8 + 8 + 8 + 4 + 4 + 4 + 8 + 4;

    TypicalStream stream;
    Path dir;
    Path recording;
    Path fixed;
    Path gzip;
    Path out;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        stream = new TypicalStream(EVENTS, 7);
        dir = Files.createTempDirectory("memscope-recording-bench");
        recording = dir.resolve("read.msrec");
        fixed = dir.resolve("read.bin");
        gzip = dir.resolve("read.bin.gz");
        out = dir.resolve("out");
        writeRecording(recording);
        writeFixed(fixed, false);
        writeFixed(gzip, true);
        System.out.printf("%n[recording bench] %d events; bytes/event: recording %.2f, fixed-width %.2f, "
                        + "fixed-width gzip %.2f%n", EVENTS, Files.size(recording) / (double) EVENTS,
                Files.size(fixed) / (double) EVENTS, Files.size(gzip) / (double) EVENTS);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        for (Path p : new Path[] {recording, fixed, gzip, out}) {
            Files.deleteIfExists(p);
        }
        Files.deleteIfExists(dir);
    }

    private long writeRecording(Path file) {
        try (RecordingWriter w = RecordingWriter.builder(file).strings(stream.strings()).open()) {
            stream.defineSites(w);
            stream.forEach(w);
            w.flush();
            return w.bytesWritten();
        }
    }

    private long writeFixed(Path file, boolean compress) throws IOException {
        OutputStream os = Files.newOutputStream(file);
        if (compress) {
            os = new GZIPOutputStream(os, 1 << 16);
        }
        try (DataOutputStream d = new DataOutputStream(new BufferedOutputStream(os, 1 << 16))) {
            TypicalStream s = stream;
            for (int i = 0; i < s.n; i++) {
                d.writeLong(s.timestamp[i]);
                d.writeByte(s.type[i].code());
                d.writeLong(s.address[i]);
                d.writeLong(s.size[i]);
                d.writeLong(s.previousSize[i]);
                d.writeLong(s.threadId[i]);
                d.writeInt(s.threadName[i]);
                d.writeInt(0);
                d.writeInt(s.typeName[i]);
                d.writeLong(s.stack[i]);
                d.writeInt(s.site[i]);
            }
            return d.size();
        }
    }

    private static long readFixed(InputStream in) throws IOException {
        long sum = 0;
        try (DataInputStream d = new DataInputStream(new BufferedInputStream(in, 1 << 16))) {
            while (true) {
                long ts;
                try {
                    ts = d.readLong();
                } catch (EOFException end) {
                    return sum;
                }
                MemoryEventType type = MemoryEventType.ofCode(d.readByte());
                d.readLong();
                long size = d.readLong();
                d.readLong();
                d.readLong();
                d.readInt();
                d.readInt();
                d.readInt();
                d.readLong();
                d.readInt();
                sum += size + ts + type.ordinal();
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long writeRecording() {
        return writeRecording(out);
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public int readRecording() {
        Recording r = RecordingReader.readStrict(recording);
        return r.eventCount();
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long streamRecording() {
        long[] sum = new long[1];
        RecordingReader.stream(recording, new RecordingVisitor() {
            @Override
            public void accept(io.memscope.recording.EventView e) {
                sum[0] += e.size() + e.timestampNanos() + e.type().ordinal();
            }
        });
        return sum[0];
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long writeFixedWidth() throws IOException {
        return writeFixed(out, false);
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long readFixedWidth() throws IOException {
        return readFixed(Files.newInputStream(fixed));
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long writeFixedWidthGzip() throws IOException {
        return writeFixed(out, true);
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long readFixedWidthGzip() throws IOException {
        return readFixed(new GZIPInputStream(Files.newInputStream(gzip), 1 << 16));
    }
}
