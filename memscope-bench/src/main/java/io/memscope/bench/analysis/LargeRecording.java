package io.memscope.bench.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The scale benchmark's input and its decoding floor (docs/benchmarks.md, "Report of a 10-million-event
 * recording"): {@code write FILE EVENTS} writes a recording shaped like a long sample-mode capture (2 000 sites with
 * Zipf-like popularity, 20 000 stacks, 8 threads, a heap that grows and churns, 5% native memory, a young collection
 * every 100 ms of recorded time and an old one every 20 s, metadata like the agent's); {@code decode FILE} streams it
 * and only counts events: the least any report must spend reading it.
 *
 * <p>{@code write FILE EVENTS scopes} also gives every thread nested scopes (four paths: {@code request},
 * {@code request/parse}, {@code request/handle}, {@code request/handle/db}; an edge every 20 events of its thread on
 * average, so nearly every sample falls in a scope) and a function profile whose pattern matches a frame of every
 * stack ({@code com.example.layer3.**}, with statistics for each of its 97 functions): the API sections' worst case,
 * where every heap sample counts for a scope and a function.
 */
public final class LargeRecording {
    private LargeRecording() {
    }

    public static void main(String[] args) {
        if ((args.length == 3 || args.length == 4 && args[3].equals("scopes")) && args[0].equals("write")) {
            write(Path.of(args[1]), Long.parseLong(args[2]), args.length == 4);
        } else if (args.length == 2 && args[0].equals("decode")) {
            long t0 = System.nanoTime();
            long[] n = {0};
            RecordingReader.stream(Path.of(args[1]), new RecordingVisitor() {
                @Override
                public void accept(io.memscope.recording.EventView e) {
                    n[0] += e.size() & 1;
                }
            });
            System.out.printf("decoded in %.2f s (%d)%n", (System.nanoTime() - t0) / 1e9, n[0]);
        } else {
            System.err.println("usage: LargeRecording write FILE EVENTS [scopes] | decode FILE");
            System.exit(2);
        }
    }

    static void write(Path file, long events, boolean scopes) {
        SplittableRandom r = new SplittableRandom(42);
        int sites = 2000;
        int stacks = 20_000;
        long interval = 512 * 1024;
        long t = 1_000_000_000L;
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, t)
                .process(4242, 0).open()) {
            w.metadata("mode", "sample");
            w.metadata("intervalBytes", Long.toString(interval));
            w.metadata("startNanos", Long.toString(t));
            w.metadata("pid", "4242");
            int[] threadNames = new int[8];
            for (int i = 0; i < threadNames.length; i++) {
                threadNames[i] = w.strings().intern("worker-" + i);
            }
            String[] types = {"byte[]", "char[]", "java.lang.String", "java.util.HashMap$Node", "long[]",
                "java.lang.Object[]", "com.example.Order", "com.example.Item"};
            int[] typeIds = new int[types.length];
            for (int i = 0; i < types.length; i++) {
                typeIds[i] = w.strings().intern(types[i]);
            }
            for (int s = 1; s <= sites; s++) {
                boolean nat = s % 40 == 0;
                w.site(s, "com.example.pkg" + (s % 50) + ".Service" + (s % 300), "method" + (s % 17),
                        "Service" + (s % 300) + ".java", 10 + s % 400, nat ? "native:direct-buffer"
                                : types[s % types.length]);
            }
            for (int k = 1; k <= stacks; k++) {
                int s = 1 + k % sites;
                List<String> frames = new ArrayList<>();
                frames.add("com.example.pkg" + (s % 50) + ".Service" + (s % 300) + ".method" + (s % 17) + "(Service"
                        + (s % 300) + ".java:" + (10 + s % 400) + ")");
                for (int d = 0; d < 12; d++) {
                    frames.add("com.example.layer" + d + ".Handler" + ((k * 31 + d) % 97) + ".handle(Handler"
                            + ((k * 31 + d) % 97) + ".java:" + (20 + d) + ")");
                }
                w.stack(k, frames);
            }
            // live samples: id -> (site, stack, size, time); a ring of candidates to free
            int cap = 1 << 20;
            long[] liveId = new long[cap];
            int[] liveSite = new int[cap];
            long[] liveSize = new long[cap];
            long[] liveTime = new long[cap];
            int liveCount = 0;
            long nextId = 1;
            long nextYoung = t + 100_000_000L;
            long nextOld = t + 20_000_000_000L;
            long heap = 64L << 20;
            long nativeAddr = 0x7f00_0000_0000L;
            List<long[]> natives = new ArrayList<>();
            long written = 0;
            int thread = 0;
            // scopes: each thread's open path ids, innermost last (paths: 1 request, 2 parse, 3 handle, 4 db)
            int[][] open = new int[threadNames.length][4];
            int[] depth = new int[threadNames.length];
            if (scopes) {
                w.metadata(io.memscope.recording.MetadataKeys.OPTION_FUNCTIONS, "com.example.layer3.**");
                w.scopePath(1, 0, "request");
                w.scopePath(2, 1, "parse");
                w.scopePath(3, 1, "handle");
                w.scopePath(4, 3, "db");
            }
            while (written < events) {
                t += 500 + r.nextInt(3000);
                if (t >= nextYoung) {
                    boolean old = t >= nextOld;
                    long before = heap + (256L << 20);
                    heap = Math.max(32L << 20, heap + (r.nextBoolean() ? 1 : -1) * (r.nextInt(8) << 20));
                    w.gc(nextYoung, old ? 80_000_000L : 5_000_000L, old ? "G1 Old Generation" : "G1 Young Generation",
                            old ? "G1 Compaction Pause" : "G1 Evacuation Pause", before, heap, 1L << 30,
                            old ? "end of major GC" : "end of minor GC");
                    if (old) {
                        nextOld += 20_000_000_000L;
                    }
                    nextYoung += 100_000_000L;
                }
                if (r.nextInt(50) == 0) {
                    thread = r.nextInt(threadNames.length);
                }
                if (scopes && r.nextInt(20) == 0) {
                    int d = depth[thread];
                    int top = d == 0 ? 0 : open[thread][d - 1];
                    boolean enter = d == 0 || (top == 1 || top == 3) && r.nextBoolean();
                    if (enter) {
                        int path = top == 0 ? 1 : top == 1 ? 2 + r.nextInt(2) : 4;
                        open[thread][depth[thread]++] = path;
                        w.scopeEdge(t, thread + 1, threadNames[thread], false, path, 0, -1);
                    } else {
                        depth[thread]--;
                        w.scopeEdge(t, thread + 1, threadNames[thread], true, top, 0, r.nextInt(1 << 20));
                    }
                }
                int roll = r.nextInt(100);
                if (roll < 5) {
                    int s = 40 * (1 + r.nextInt(sites / 40));
                    if (!natives.isEmpty() && r.nextBoolean()) {
                        long[] b = natives.remove(natives.size() - 1);
                        w.accept(t, MemoryEventType.DEALLOCATE, b[0], b[1], 0, thread + 1, threadNames[thread], 0, 0,
                                0, (int) b[2]);
                    } else {
                        long size = 4096L << r.nextInt(4);
                        nativeAddr += size;
                        natives.add(new long[] {nativeAddr, size, s});
                        w.accept(t, MemoryEventType.ALLOCATE, nativeAddr, size, 0, thread + 1, threadNames[thread], 0,
                                w.strings().intern("native:direct-buffer"), 1 + (s * 10) % stacks, s);
                    }
                } else if (roll < 45 && liveCount > 0) {
                    int i = r.nextInt(liveCount);
                    long size = liveSize[i];
                    w.accept(t, MemoryEventType.DEALLOCATE, liveId[i], size, t - liveTime[i], thread + 1,
                            threadNames[thread], 0, 0, 0, liveSite[i]);
                    liveCount--;
                    liveId[i] = liveId[liveCount];
                    liveSite[i] = liveSite[liveCount];
                    liveSize[i] = liveSize[liveCount];
                    liveTime[i] = liveTime[liveCount];
                } else {
                    // Zipf-like: a few sites allocate most
                    int s = 1 + (int) Math.min(sites - 1, Math.floor(Math.pow(r.nextDouble(), 3) * sites));
                    if (s % 40 == 0) {
                        s++;
                    }
                    long size = 16 + r.nextInt(1 << (4 + r.nextInt(14)));
                    long id = nextId++;
                    int stack = 1 + (s + 2000 * r.nextInt(10)) % stacks;
                    w.accept(t, MemoryEventType.ALLOCATE, id, size, 0, thread + 1, threadNames[thread], 0,
                            typeIds[s % types.length], stack, s);
                    if (liveCount < cap) {
                        liveId[liveCount] = id;
                        liveSite[liveCount] = s;
                        liveSize[liveCount] = size;
                        liveTime[liveCount] = t;
                        liveCount++;
                    }
                }
                written++;
            }
            if (scopes) {
                for (int j = 0; j < 97; j++) {
                    int caller = (j + 1) % 97;
                    w.functionStats("com.example.layer3.Handler" + j + ".handle", "()V", "com.example.layer4.Handler"
                            + caller + ".handle(Handler" + caller + ".java:24)", 1000 + j, 0, 5_000_000L * (j + 1),
                            200_000L, 1L << 20, 0);
                }
            }
            w.metadata("endNanos", Long.toString(t));
        }
    }
}
