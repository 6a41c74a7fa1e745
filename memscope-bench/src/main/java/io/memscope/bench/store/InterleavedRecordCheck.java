package io.memscope.bench.store;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.store.ClockSource;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.OverflowPolicy;
import jdk.jfr.Recording;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * A load-tolerant cross-check of {@link RecordBenchmark} for a shared machine: runs the single-thread variants
 * in interleaved rounds in one JVM (so background load hits them alike) and reports the median of thread CPU
 * time per operation, which a busy machine inflates much less than wall time. Not a JMH benchmark: use it for
 * ratios, JMH for the absolute numbers.
 *
 * <p>With 2 threads, each variant runs on two threads at once (each doing the operations); cpu ns/op is the two
 * threads' CPU time over all operations, wall ns/op the elapsed time over the operations of one thread (as JMH's
 * average time per operation with {@code @Threads(2)}).
 *
 * <pre>java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.store.InterleavedRecordCheck [rounds]
 * [threads]</pre>
 */
public final class InterleavedRecordCheck {
    private static final int OPS = 2_000_000;
    private static long sink;

    private InterleavedRecordCheck() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        EventStore bounded = EventStore.builder().capacityEvents(1_000_000).overflow(OverflowPolicy.DROP_OLDEST)
                .build();
        EventStore coarse = EventStore.builder().capacityEvents(1_000_000).overflow(OverflowPolicy.DROP_OLDEST)
                .clock(ClockSource.COARSE).build();
        MemscopeRsEventStore rs = new MemscopeRsEventStore();
        Recording recording = new Recording();
        recording.enable(AllocationJfrEvent.class).withoutStackTrace();
        recording.setToDisk(false);
        recording.start();
        long tid = 1;
        String[] names = {"memscope", "memscopeCoarseClock", "memscopeRs", "jfr", "nanoTime"};
        Runnable[] variants = {
            () -> {
                for (long a = 1; a <= OPS; a++) {
                    bounded.record(MemoryEventType.ALLOCATE, a, 64, 0, (int) (a & 15) + 1, a & 3, 0, 0);
                }
            },
            () -> {
                for (long a = 1; a <= OPS; a++) {
                    coarse.record(MemoryEventType.ALLOCATE, a, 64, 0, (int) (a & 15) + 1, a & 3, 0, 0);
                }
            },
            () -> {
                for (long a = 1; a <= OPS; a++) {
                    rs.record(MemoryEvent.allocate(a, 64, tid).withSiteId((int) (a & 15) + 1)
                            .withCallStackHash(a & 3));
                }
            },
            () -> {
                for (long a = 1; a <= OPS; a++) {
                    AllocationJfrEvent e = new AllocationJfrEvent();
                    e.address = a;
                    e.size = 64;
                    e.siteId = (int) (a & 15) + 1;
                    e.stackId = a & 3;
                    e.commit();
                }
            },
            () -> {
                long s = 0;
                for (long a = 1; a <= OPS; a++) {
                    s += System.nanoTime();
                }
                sink += s;
            },
        };
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[][] cpu = new double[variants.length][rounds];
        double[][] wall = new double[variants.length][rounds];
        for (int w = 0; w < 3; w++) { // warm-up rounds, not reported
            for (Runnable v : variants) {
                runOn(threads, v, mx, new double[2]);
                rs.clear();
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int v = 0; v < variants.length; v++) {
                double[] result = new double[2];
                runOn(threads, variants[v], mx, result);
                rs.clear(); // outside the measurement
                cpu[v][r] = result[0];
                wall[v][r] = result[1];
            }
        }
        recording.stop();
        recording.close();
        System.out.printf("%-22s %14s %14s%n", "variant (" + threads + " thread(s))", "cpu ns/op", "wall ns/op");
        for (int v = 0; v < variants.length; v++) {
            System.out.printf("%-22s %14.1f %14.1f%n", names[v], median(cpu[v]), median(wall[v]));
        }
        System.out.println("(medians of " + rounds + " interleaved rounds of " + OPS + " ops; sink " + (sink & 1)
                + ")");
    }

    /** Runs {@code v} on {@code n} new threads at once. result[0] = CPU ns/op, result[1] = wall ns/op. */
    private static void runOn(int n, Runnable v, ThreadMXBean mx, double[] result) {
        long[] cpuNanos = new long[n];
        Thread[] ts = new Thread[n];
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(n + 1);
        for (int i = 0; i < n; i++) {
            int k = i;
            ts[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                long c0 = mx.getCurrentThreadCpuTime();
                v.run();
                cpuNanos[k] = mx.getCurrentThreadCpuTime() - c0;
            });
            ts[i].start();
        }
        long w0;
        try {
            start.await();
            w0 = System.nanoTime();
            for (Thread t : ts) {
                t.join();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        result[1] = (System.nanoTime() - w0) / (double) OPS;
        result[0] = Arrays.stream(cpuNanos).sum() / (double) (OPS * (long) n);
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
