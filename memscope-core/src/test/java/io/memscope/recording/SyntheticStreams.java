package io.memscope.recording;

import io.memscope.MemoryEventType;
import io.memscope.store.StringTable;

import java.util.SplittableRandom;

/**
 * Event streams for tests and measurements: a "typical allocation stream" as the agent produces it (mostly
 * increasing timestamps, a few threads, repeated sites with their sizes and types, sampled heap objects whose ids
 * increase, some collections, some native memory with real addresses).
 */
final class SyntheticStreams {
    private SyntheticStreams() {
    }

    /** Writes {@code n} events of a typical allocation stream; sites and stacks are defined first. */
    static void typical(RecordingWriter w, int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        StringTable t = w.strings();
        int siteCount = 200;
        String[] types = {"byte[]", "java.lang.String", "java.util.HashMap$Node", "int[]", "java.lang.Object[]",
            "com.example.Order", "java.util.ArrayList", "char[]"};
        long[] siteSize = new long[siteCount + 1];
        int[] siteType = new int[siteCount + 1];
        long[] siteStack = new long[siteCount + 1];
        for (int s = 1; s <= siteCount; s++) {
            String type = types[r.nextInt(types.length)];
            w.site(s, "com.example.pkg" + (s % 7) + ".Class" + (s % 23), "method" + (s % 11),
                    "Class" + (s % 23) + ".java", 10 + s, type);
            siteType[s] = t.intern(type);
            siteSize[s] = 16 + 8L * r.nextInt(64);
            siteStack[s] = r.nextLong();
            w.stack(siteStack[s], java.util.List.of("com.example.pkg.Class" + (s % 23) + ".method" + (s % 11)
                    + "(Class" + (s % 23) + ".java:" + (10 + s) + ")", "com.example.Main.main(Main.java:5)"));
        }
        int[] threadNames = new int[4];
        for (int i = 0; i < threadNames.length; i++) {
            threadNames[i] = t.intern("worker-" + i);
        }
        long ts = 1_000_000_000L;
        long sampleId = 1;
        long nativeBase = 0x7f3a_1000_0000L;
        int thread = 0;
        for (int i = 0; i < n; i++) {
            ts += 50 + r.nextInt(2000);
            if (r.nextInt(100) < 5) {
                thread = r.nextInt(threadNames.length);
            }
            // Zipf-like site popularity: a few hot sites.
            int site = 1 + (int) (Math.pow(r.nextDouble(), 3) * siteCount);
            int kind = r.nextInt(100);
            if (kind < 75) {
                w.accept(ts, MemoryEventType.ALLOCATE, sampleId++, siteSize[site], 0, 100 + thread,
                        threadNames[thread], 0, siteType[site], siteStack[site], site);
            } else if (kind < 93) {
                long victim = Math.max(1, sampleId - 1 - r.nextInt(2000));
                long lifetime = 1_000 + r.nextLong(50_000_000L);   // heap DEALLOCATE carries the lifetime
                w.accept(ts, MemoryEventType.DEALLOCATE, victim, siteSize[site], lifetime, 100 + thread,
                        threadNames[thread], 0, siteType[site], siteStack[site], site);
            } else {
                long addr = nativeBase + 4096L * r.nextInt(4096);
                w.accept(ts, r.nextBoolean() ? MemoryEventType.ALLOCATE : MemoryEventType.DEALLOCATE, addr,
                        4096, 0, 100 + thread, threadNames[thread], 0, 0, 0, 0);
            }
        }
    }
}
