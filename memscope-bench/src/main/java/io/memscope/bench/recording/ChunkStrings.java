package io.memscope.bench.recording;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.ChunkPolicy;
import io.memscope.internal.recording.RecordingWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Bytes per chunk of a long chunked recording with many names: an always-on service that keeps making new code
 * (a new class with its own handler and lambda every 20 events: two new frames and a new site, as generated proxies,
 * lambdas and per-request classes do), whose allocations come 70% from the 200 newest classes and 30% from 50 common
 * stacks, 16 threads, a live set of 4,096 samples, 40 metadata keys. Written through the agent's writer in chunks of
 * {@code args[2]} bytes (default 256 KiB) until {@code args[1]} chunks (default 50) are written into the folder
 * {@code args[0]}; then prints, per chunk and on average, its bytes and the bytes of its STRINGS blocks, and the
 * strings the writer's tables hold at the end.
 *
 * <pre>
 *   java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.recording.ChunkStrings /tmp/chunks 50
 * </pre>
 */
public final class ChunkStrings {
    private static final String[] COMMON = {
        "org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)",
        "jakarta.servlet.http.HttpServlet.service(HttpServlet.java:658)",
        "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:166)",
        "org.apache.catalina.core.StandardWrapperValve.invoke(StandardWrapperValve.java:201)",
        "org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1191)",
        "java.lang.Thread.run(Thread.java:1583)",
    };
    private static final String[] TYPES = {"byte[]", "char[]", "java.lang.String", "java.lang.Object[]",
        "java.util.HashMap$Node", "java.util.ArrayList", "int[]", "long[]"};

    private ChunkStrings() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "chunk-strings");
        int chunks = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        long chunkBytes = args.length > 2 ? Long.parseLong(args[2]) : 256 * 1024;
        Files.createDirectories(dir);
        try (var old = Files.list(dir)) {
            for (Path f : (Iterable<Path>) old::iterator) {
                Files.delete(f);
            }
        }
        RecordingWriter w = RecordingWriter.builder(dir.resolve("recording.msrec"))
                .chunks(ChunkPolicy.of(0, 0, chunkBytes, Long.MAX_VALUE)).open();
        Set<Integer> sitesWritten = new HashSet<>();
        Set<Long> stacksWritten = new HashSet<>();
        int[] threads = new int[16];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = w.strings().intern("http-nio-8080-exec-" + (i + 1));
        }
        int[] types = new int[TYPES.length];
        for (int i = 0; i < TYPES.length; i++) {
            types[i] = w.strings().intern(TYPES[i]);
        }
        for (int i = 0; i < 40; i++) {
            w.metadata("service.setting." + i, "value-" + i);
        }
        Random r = new Random(1);
        long[] live = new long[4096];
        long t = 0;
        long address = 1;
        long events = 0;
        int classes = 1;
        while (w.chunkIndex() <= chunks) {
            if (events % 20 == 0) {
                classes++;
            }
            boolean common = r.nextInt(10) < 3;
            int cls = common ? -(1 + r.nextInt(50)) : Math.max(1, classes - r.nextInt(200));
            long stack = cls;                       // negative: a common stack, positive: a generated class's
            int site = common ? 1_000_000 + -cls : cls;
            if (sitesWritten.add(site)) {
                defineSite(w, site);
            }
            if (stacksWritten.add(stack)) {
                defineStack(w, stack);
            }
            t += 1_000 + r.nextInt(1_000);
            int slot = r.nextInt(live.length);
            if (live[slot] != 0) {
                w.accept(t, MemoryEventType.DEALLOCATE, live[slot], 0, 0, 1, threads[0], 0, 0, 0, 0);
            }
            live[slot] = address;
            w.accept(t, MemoryEventType.ALLOCATE, address++, 16 + r.nextInt(4096), 0, 1 + r.nextInt(16),
                    threads[r.nextInt(threads.length)], 0, types[r.nextInt(types.length)], stack, site);
            events++;
            if (events % 2_000 == 0) {   // the agent's drain: a rotation point
                w.flush();
                w.rotateIfDue(Definitions.of(sitesWritten, stacksWritten));
            }
        }
        w.close();
        report(dir, events, w);
    }

    private static void defineSite(RecordingWriter w, int site) {
        int cls = site > 1_000_000 ? site - 1_000_000 : site;
        w.site(site, "com.example.gen.Handler" + cls, "handle", "Handler" + cls + ".java", 10 + cls % 90, null);
    }

    private static void defineStack(RecordingWriter w, long stack) {
        List<String> frames = new ArrayList<>();
        if (stack < 0) {
            frames.add("com.example.Common" + -stack + ".work(Common" + -stack + ".java:12)");
        } else {
            frames.add("com.example.gen.Handler" + stack + ".handle(Handler" + stack + ".java:" + (10 + stack % 90)
                    + ")");
            frames.add("com.example.gen.Handler" + stack + ".lambda$route$" + stack + "(Handler" + stack + ".java:7)");
        }
        frames.addAll(List.of(COMMON));
        w.stack(stack, frames);
    }

    /** The producer's part of a rotation: forgets what the last chunk had, defines what the new one carries. */
    private static final class Definitions implements RecordingWriter.ChunkDefinitions {
        private final Set<Integer> sites;
        private final Set<Long> stacks;

        private Definitions(Set<Integer> sites, Set<Long> stacks) {
            this.sites = sites;
            this.stacks = stacks;
        }

        static Definitions of(Set<Integer> sites, Set<Long> stacks) {
            return new Definitions(sites, stacks);
        }

        @Override
        public void define(RecordingWriter writer, List<Integer> siteIds, List<Long> stackIds,
                           List<Long> stacksDefined) {
            sites.clear();
            stacks.clear();
            stacks.addAll(stacksDefined);
            for (int id : siteIds) {
                sites.add(id);
                defineSite(writer, id);
            }
            for (long id : stackIds) {
                stacks.add(id);
                defineStack(writer, id);
            }
        }
    }

    private static void report(Path dir, long events, RecordingWriter w) throws IOException {
        List<Path> files = new ArrayList<>();
        try (var l = Files.list(dir)) {
            l.filter(f -> ChunkPolicy.chunkIndex(f.getFileName().toString(), "recording") > 0)
                    .sorted(java.util.Comparator.comparingInt(f -> ChunkPolicy.chunkIndex(f.getFileName().toString(),
                            "recording"))).forEach(files::add);
        }
        long total = 0;
        long strings = 0;
        long laterTotal = 0;
        long laterStrings = 0;
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < files.size(); i++) {
            byte[] b = Files.readAllBytes(files.get(i));
            ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            long s = 0;
            for (int off = 52; off + 12 <= b.length; ) {
                int type = b[off] & 0xFF;
                int length = buf.getInt(off + 4);
                if (type == 1) {
                    s += 12 + length;
                }
                off += 12 + length;
            }
            total += b.length;
            strings += s;
            if (i > 0) {
                laterTotal += b.length;
                laterStrings += s;
            }
            if (i < 3 || (i + 1) % 10 == 0 || i == files.size() - 1) {
                rows.append(String.format("chunk %3d: %,10d bytes, STRINGS %,10d bytes%n", i + 1, b.length, s));
            }
        }
        int n = files.size();
        System.out.printf("%,d events in %d chunks, %,d bytes (%.2f bytes/event)%n", events, n, total,
                (double) total / events);
        System.out.print(rows);
        System.out.printf("chunks 2..%d: mean %,d bytes, of which STRINGS %,d bytes (%.1f%%)%n", n,
                laterTotal / Math.max(1, n - 1), laterStrings / Math.max(1, n - 1),
                100.0 * laterStrings / Math.max(1, laterTotal));
        System.out.printf("strings held at the end: the writer's string table %,d%s%n", w.strings().size() - 1,
                fileStrings(w));
    }

    private static String fileStrings(RecordingWriter w) {
        return ", the last chunk's " + (w.fileStrings() - 1);
    }
}
