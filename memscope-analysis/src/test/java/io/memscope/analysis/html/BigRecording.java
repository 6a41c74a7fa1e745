package io.memscope.analysis.html;

import io.memscope.MemoryEventType;
import io.memscope.analysis.RecordedRun;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Writes a large recording the way the agent writes one, for measuring report.html at scale (a measuring tool, not
 * a test): {@code EVENTS} events over 60 s of a synthetic application with {@code STACKS} distinct allocation stacks
 * (random walks through a call tree of about 6,000 frames, 12 to 40 deep), sampled objects of log-normal sizes,
 * most collected after an exponential lifetime, some kept (a leak), and a young collection every 200 ms. Then it
 * builds the report and the page and prints their sizes and times.
 *
 * <pre>
 * java ... io.memscope.analysis.html.BigRecording OUT_DIR EVENTS STACKS
 * </pre>
 */
public final class BigRecording {
    private BigRecording() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createDirectories(Path.of(args[0]));
        long events = Long.parseLong(args[1]);
        int stackCount = Integer.parseInt(args[2]);
        Path file = dir.resolve("recording.msrec");
        long t0 = System.nanoTime();
        write(file, events, stackCount, new Random(7));
        long t1 = System.nanoTime();
        Report report = ReportBuilder.build(RecordedRun.open(file));
        long t2 = System.nanoTime();
        Path page = dir.resolve("report.html");
        for (int i = 0; i < 3; i++) { // the first is cold (as in the CLI, which writes one page), then warmer
            long a = System.nanoTime();
            String json = ReportPageData.of(report);
            long b = System.nanoTime();
            String html = new PageTemplate().render(json);
            long c = System.nanoTime();
            System.out.printf(Locale.ROOT, "page data %.0f ms, page %.0f ms (%,d chars)%n", (b - a) / 1e6,
                    (c - b) / 1e6, html.length());
        }
        long t2b = System.nanoTime();
        HtmlReport.write(report, page);
        long t3 = System.nanoTime();
        System.out.printf(Locale.ROOT, "recording %,d bytes (%,d events, %,d stacks in the report) written in %.1f s;"
                        + " report built in %.1f s; report.html %,d bytes written in %.2f s%n", Files.size(file),
                report.recording().events(), report.stacks().size(), (t1 - t0) / 1e9, (t2 - t1) / 1e9,
                Files.size(page), (t3 - t2b) / 1e9);
    }

    static void write(Path file, long events, int stackCount, Random r) {
        long second = 1_000_000_000L;
        long duration = 60 * second;
        String[] pkgs = {"com.example.big.", "org.apache.kafka.clients.", "java.util.", "io.netty.buffer.",
                "com.fasterxml.jackson.databind.", "java.lang."};
        String[] typeNames = {"byte[]", "char[]", "java.lang.String", "java.util.HashMap$Node", "long[]",
                "java.lang.Object[]", "com.example.big.Order", "io.netty.buffer.PooledByteBuf"};
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 0)
                .process(4242, 1_767_225_600_000L).open()) {
            w.metadata(MetadataKeys.MODE, "sample");
            w.metadata(MetadataKeys.INTERVAL_BYTES, "524288");
            w.metadata(MetadataKeys.START_NANOS, "0");
            w.metadata(MetadataKeys.PID, "4242");
            w.metadata(MetadataKeys.JAVA_VERSION, "25");
            w.metadata(MetadataKeys.COMMAND, "com.example.big.Main --events " + events);
            int thread = w.strings().intern("main");
            int[] types = new int[typeNames.length];
            for (int i = 0; i < types.length; i++) {
                types[i] = w.strings().intern(typeNames[i]);
            }
            // stacks: a site (its innermost frame) and a type each; sites numbered by distinct innermost frame
            List<String> siteFrames = new ArrayList<>();
            int[] stackSite = new int[stackCount];
            int[] stackType = new int[stackCount];
            double[] weight = new double[stackCount];
            double total = 0;
            for (int s = 0; s < stackCount; s++) {
                int depth = 12 + r.nextInt(29);
                List<String> frames = new ArrayList<>();
                long node = 1;
                for (int d = 0; d < depth; d++) {
                    node = (node * 3 + r.nextInt(3)) % 400_009;
                    long code = node % 6007;
                    String pkg = pkgs[(int) (code % pkgs.length)];
                    frames.add(0, pkg + "Class" + (code % 499) + ".method" + (code % 13) + "(Class" + (code % 499)
                            + ".java:" + (10 + code % 400) + ")");
                }
                String inner = frames.get(0);
                int site = siteFrames.indexOf(inner);
                if (site < 0) {
                    siteFrames.add(inner);
                    site = siteFrames.size() - 1;
                    String cls = inner.substring(0, inner.indexOf('('));
                    int dot = cls.lastIndexOf('.');
                    stackType[s] = r.nextInt(typeNames.length);
                    w.site(site + 1, cls.substring(0, dot), cls.substring(dot + 1), "Class.java",
                            10 + (int) (node % 400), typeNames[stackType[s]]);
                }
                stackSite[s] = site + 1;
                stackType[s] = r.nextInt(typeNames.length);
                w.stack(s + 1, frames);
                weight[s] = Math.exp(r.nextGaussian() * 1.5);
                total += weight[s];
            }
            double[] cumulative = new double[stackCount];
            double c = 0;
            for (int s = 0; s < stackCount; s++) {
                c += weight[s] / total;
                cumulative[s] = c;
            }
            // events: allocations spread over the run; each sample collected after an exponential lifetime (mean
            // 50 ms), 2% never (kept to the end): a free is emitted when its time comes
            long allocations = events / 2 + events / 100;
            PriorityQueue<long[]> pending = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
            ArrayDeque<long[]> unused = new ArrayDeque<>();
            long written = 0;
            long nextGc = 200_000_000L;
            long heap = 64L << 20;
            for (long i = 0; i < allocations && written < events; i++) {
                long t = i * duration / allocations;
                while (!pending.isEmpty() && pending.peek()[0] <= t && written < events) {
                    long[] f = pending.poll();
                    w.accept(f[0], MemoryEventType.DEALLOCATE, f[1], f[2], f[3], 1, thread, 0, types[(int) f[5]],
                            f[4], (int) f[6]);
                    written++;
                    unused.push(f);
                }
                while (t >= nextGc) {
                    w.gc(new GcRecord(nextGc, 3_000_000L + r.nextInt(8_000_000), "G1 Young Generation",
                            "G1 Evacuation Pause", heap + (300L << 20), heap, 1L << 30, "end of minor GC"));
                    heap += 256 << 10;
                    nextGc += 200_000_000L;
                }
                int s = pick(cumulative, r.nextDouble());
                long size = Math.max(16, Math.min(64L << 20, (long) Math.exp(r.nextGaussian() * 2 + 8)));
                w.accept(t, MemoryEventType.ALLOCATE, i + 1, size, 0, 1, thread, 0, types[stackType[s]], s + 1,
                        stackSite[s]);
                written++;
                if (r.nextInt(50) != 0) {
                    long life = (long) (-Math.log(1 - r.nextDouble()) * 50_000_000L);
                    long[] f = unused.isEmpty() ? new long[7] : unused.pop();
                    f[0] = t + life;
                    f[1] = i + 1;
                    f[2] = size;
                    f[3] = life;
                    f[4] = s + 1;
                    f[5] = stackType[s];
                    f[6] = stackSite[s];
                    pending.add(f);
                }
            }
            w.metadata(MetadataKeys.END_NANOS, Long.toString(duration));
        }
    }

    private static int pick(double[] cumulative, double x) {
        int i = java.util.Arrays.binarySearch(cumulative, x);
        return Math.min(cumulative.length - 1, i < 0 ? -i - 1 : i);
    }
}
