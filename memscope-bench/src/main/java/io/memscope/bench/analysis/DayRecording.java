package io.memscope.bench.analysis;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.ChunkPolicy;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The input of the day benchmark (docs/benchmarks.md, "Report of a day"): {@code DayRecording FILE [HOURS [RATE_MB]]}
 * writes, through core's {@link RecordingWriter}, what a sample-mode capture of {@code HOURS} hours (default 24) of a
 * service allocating {@code RATE_MB} MB/s (default 365) at the default interval (512 KiB) would hold:
 *
 * <ul>
 *   <li>a heap sample every 512 KiB of allocation on average (exponential gaps in time at the rate: 696 a second at
 *       365 MB/s, 60 million a day), sizes from 16 bytes to 256 KiB, from 3,000 sites with Zipf-like popularity,
 *       30,000 stacks of 16 frames (10 per site), 32 threads;</li>
 *   <li>a young collection every 3 s (± 1 s) and a whole-heap one every 10 min: at each young collection 99.7% of
 *       the samples allocated since the previous one are freed (a DEALLOCATE at its end), the rest promoted; at each
 *       whole-heap collection 80% of the promoted ones go; the heap figures of each collection follow from the
 *       samples present (so the report's held figures and the heap's agree);</li>
 *   <li>three leaking sites (one sample in 25,000: about 50 MiB an hour) whose samples are never freed;</li>
 *   <li>direct buffers: 2% of the events, allocated and freed in pairs, some held.</li>
 * </ul>
 *
 * About two events per sample: 120 million events and 1.6 GB for a day. {@code DayRecording DIR/recording.msrec 24
 * 365 60} writes the same day as a chunked recording (format 1.6), a chunk every 60 minutes of recorded time, each
 * with its carried state: the input of a report's window over chunks.
 */
public final class DayRecording {
    private static final int SITES = 3000;
    private static final int STACKS_PER_SITE = 10;
    private static final int DEPTH = 16;
    private static final int THREADS = 32;
    private static final long INTERVAL = 512 * 1024;
    private static final long YOUNG_NANOS = 3_000_000_000L;
    private static final long OLD_NANOS = 600_000_000_000L;

    private DayRecording() {
    }

    public static void main(String[] args) {
        if (args.length < 1 || args.length > 4) {
            System.err.println("usage: DayRecording FILE [HOURS [RATE_MB_PER_S [CHUNK_MINUTES]]]");
            System.exit(2);
        }
        double hours = args.length > 1 ? Double.parseDouble(args[1]) : 24;
        double rateMb = args.length > 2 ? Double.parseDouble(args[2]) : 365;
        double chunkMinutes = args.length > 3 ? Double.parseDouble(args[3]) : 0;
        long t0 = System.nanoTime();
        long events = write(Path.of(args[0]), (long) (hours * 3600e9), rateMb * 1e6, (long) (chunkMinutes * 60e9));
        System.out.printf("%d events in %.1f s%n", events, (System.nanoTime() - t0) / 1e9);
    }

    /** A growable list of samples (id, site, stack, size, time) in parallel arrays. */
    private static final class Samples {
        long[] id = new long[4096];
        int[] site = new int[4096];
        int[] stack = new int[4096];
        long[] size = new long[4096];
        long[] time = new long[4096];
        int n;

        void add(long i, int s, int k, long sz, long t) {
            if (n == id.length) {
                int c = n * 2;
                id = java.util.Arrays.copyOf(id, c);
                site = java.util.Arrays.copyOf(site, c);
                stack = java.util.Arrays.copyOf(stack, c);
                size = java.util.Arrays.copyOf(size, c);
                time = java.util.Arrays.copyOf(time, c);
            }
            id[n] = i;
            site[n] = s;
            stack[n] = k;
            size[n] = sz;
            time[n] = t;
            n++;
        }

        void copy(int from, Samples to) {
            to.add(id[from], site[from], stack[from], size[from], time[from]);
        }
    }

    static long write(Path file, long spanNanos, double bytesPerSecond) {
        return write(file, spanNanos, bytesPerSecond, 0);
    }

    /**
     * @param chunkNanos with a positive value a chunked recording (format 1.6): a new chunk every {@code chunkNanos}
     *                   of the recorded time, in {@code file}'s folder ({@code recording.msrec} and its successors)
     */
    static long write(Path file, long spanNanos, double bytesPerSecond, long chunkNanos) {
        SplittableRandom r = new SplittableRandom(24);
        long start = 1_000_000_000L;
        long t = start;
        long end = start + spanNanos;
        double meanGapNanos = 1e9 * INTERVAL / bytesPerSecond;
        long events = 0;
        var builder = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, t).process(4343, 0);
        if (chunkNanos > 0) {
            builder.chunks(ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE));
        }
        long nextChunk = chunkNanos > 0 ? t + chunkNanos : Long.MAX_VALUE;
        RecordingWriter.ChunkDefinitions definitions = (writer, siteIds, stackIds, stacksDefined) -> {
            for (int s : siteIds) {
                defineSite(writer, s);
            }
            for (long k : stackIds) {
                writer.stack(k, frames((int) ((k - 1) / STACKS_PER_SITE), (int) ((k - 1) % STACKS_PER_SITE)));
            }
        };
        try (RecordingWriter w = builder.open()) {
            w.metadata("mode", "sample");
            w.metadata("intervalBytes", Long.toString(INTERVAL));
            w.metadata("startNanos", Long.toString(t));
            w.metadata("pid", "4343");
            w.metadata("sampler", "jvmti");
            int[] threadNames = new int[THREADS];
            for (int i = 0; i < THREADS; i++) {
                threadNames[i] = w.strings().intern("worker-" + i);
            }
            String[] types = {"byte[]", "char[]", "java.lang.String", "java.util.HashMap$Node", "long[]",
                "java.lang.Object[]", "com.example.Order", "com.example.Item", "java.util.ArrayList",
                "com.example.Session"};
            int[] typeIds = new int[types.length];
            for (int i = 0; i < types.length; i++) {
                typeIds[i] = w.strings().intern(types[i]);
            }
            int directType = w.strings().intern("native:direct-buffer");
            for (int s = 1; s <= SITES; s++) {
                defineSite(w, s);
                for (int k = 0; k < STACKS_PER_SITE; k++) {
                    w.stack(stackId(s, k), frames(s, k));
                }
            }
            Samples young = new Samples();
            Samples old = new Samples();
            Samples nextOld = new Samples();
            long[] direct = new long[1 << 16];
            int[] directSite = new int[1 << 16];
            long[] directSize = new long[1 << 16];
            int directCount = 0;
            long directAddr = 0x7f00_0000_0000L;
            long nextId = 1;
            long nextGc = t + YOUNG_NANOS;
            long nextWholeHeap = t + OLD_NANOS;
            long heapAfter = 256L << 20;
            int thread = 0;
            while (t < end) {
                t += (long) (-Math.log(1 - r.nextDouble()) * meanGapNanos) + 1;
                if (t >= nextGc) {
                    boolean whole = nextGc >= nextWholeHeap;
                    long duration = whole ? 120_000_000L : 4_000_000L + r.nextInt(8_000_000);
                    long gcEnd = nextGc + duration;
                    long before = (64L << 20) + (young.n + old.n) * INTERVAL;
                    for (int i = 0; i < young.n; i++) {
                        if (leaks(young.site[i]) || r.nextInt(1000) < 3) {
                            young.copy(i, old);
                        } else {
                            events += free(w, young, i, gcEnd, threadNames);
                        }
                    }
                    young.n = 0;
                    if (whole) {
                        nextOld.n = 0;
                        for (int i = 0; i < old.n; i++) {
                            if (leaks(old.site[i]) || r.nextInt(100) < 20) {
                                old.copy(i, nextOld);
                            } else {
                                events += free(w, old, i, gcEnd, threadNames);
                            }
                        }
                        Samples swap = old;
                        old = nextOld;
                        nextOld = swap;
                        nextWholeHeap += OLD_NANOS;
                    }
                    heapAfter = (64L << 20) + old.n * INTERVAL;
                    // after its frees, as the agent writes a collection after it ended
                    w.gc(nextGc, duration, whole ? "G1 Old Generation" : "G1 Young Generation",
                            whole ? "G1 Compaction Pause" : "G1 Evacuation Pause", before, heapAfter, 4L << 30,
                            whole ? "end of major GC" : "end of minor GC");
                    events++;
                    nextGc += YOUNG_NANOS - 1_000_000_000L + r.nextInt(2_000_000_000);
                    if (t < gcEnd) {
                        t = gcEnd + 1;
                    }
                }
                if (t >= nextChunk) {
                    w.flush();
                    w.rotate(definitions);
                    nextChunk += chunkNanos;
                }
                if (r.nextInt(64) == 0) {
                    thread = r.nextInt(THREADS);
                }
                if (r.nextInt(50) == 0) {
                    // a direct buffer: allocated, or one freed
                    if (directCount > 0 && (directCount == direct.length || r.nextInt(100) < 49)) {
                        int i = r.nextInt(directCount);
                        w.accept(t, MemoryEventType.DEALLOCATE, direct[i], directSize[i], 0, thread + 1,
                                threadNames[thread], 0, 0, 0, directSite[i]);
                        directCount--;
                        direct[i] = direct[directCount];
                        directSite[i] = directSite[directCount];
                        directSize[i] = directSize[directCount];
                    } else {
                        int s = 100 * (1 + r.nextInt(SITES / 100));
                        long size = 4096L << r.nextInt(5);
                        directAddr += size;
                        direct[directCount] = directAddr;
                        directSize[directCount] = size;
                        directSite[directCount++] = s;
                        w.accept(t, MemoryEventType.ALLOCATE, directAddr, size, 0, thread + 1, threadNames[thread], 0,
                                directType, stackId(s, r.nextInt(STACKS_PER_SITE)), s);
                    }
                    events++;
                    continue;
                }
                int s = r.nextInt(25_000) == 0 ? SITES - 1 - r.nextInt(3) // the leaking sites
                        : 1 + (int) Math.min(SITES - 6, Math.floor(Math.pow(r.nextDouble(), 3) * SITES));
                if (s % 100 == 0) {
                    s++;
                }
                long size = 16 + r.nextInt(1 << (4 + r.nextInt(14)));
                int stack = stackId(s, r.nextInt(STACKS_PER_SITE));
                long id = nextId++;
                w.accept(t, MemoryEventType.ALLOCATE, id, size, 0, thread + 1, threadNames[thread], 0,
                        typeIds[s % types.length], stack, s);
                young.add(id, s, stack, size, t);
                events++;
            }
            w.metadata("endNanos", Long.toString(t));
        }
        return events;
    }

    private static final String[] TYPES = {"byte[]", "char[]", "java.lang.String", "java.util.HashMap$Node",
        "long[]", "java.lang.Object[]", "com.example.Order", "com.example.Item", "java.util.ArrayList",
        "com.example.Session"};

    private static void defineSite(RecordingWriter w, int s) {
        boolean nat = s % 100 == 0;
        w.site(s, "com.example.pkg" + (s % 60) + ".Service" + (s % 500), "call" + (s % 23),
                "Service" + (s % 500) + ".java", 10 + s % 700, nat ? "native:direct-buffer" : TYPES[s % TYPES.length]);
    }

    private static List<String> frames(int s, int k) {
        List<String> frames = new ArrayList<>(DEPTH);
        frames.add("com.example.pkg" + (s % 60) + ".Service" + (s % 500) + ".call" + (s % 23)
                + "(Service" + (s % 500) + ".java:" + (10 + s % 700) + ")");
        for (int d = 1; d < DEPTH; d++) {
            int h = (s * 131 + k * 17 + d * 7) % 211;
            frames.add("com.example.layer" + d + ".Handler" + h + ".handle(Handler" + h + ".java:"
                    + (20 + d + k % 3) + ")");
        }
        return frames;
    }

    private static boolean leaks(int site) {
        return site >= SITES - 4;
    }

    private static int stackId(int site, int k) {
        return site * STACKS_PER_SITE + k + 1;
    }

    private static int free(RecordingWriter w, Samples s, int i, long at, int[] threadNames) {
        int th = (int) (s.id[i] % THREADS);
        w.accept(at, MemoryEventType.DEALLOCATE, s.id[i], s.size[i], at - s.time[i], th + 1, threadNames[th], 0, 0,
                0, s.site[i]);
        return 1;
    }
}
