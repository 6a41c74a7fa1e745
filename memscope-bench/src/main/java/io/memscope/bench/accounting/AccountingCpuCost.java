package io.memscope.bench.accounting;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;

/**
 * A companion to {@link AccountingBenchmark} for a shared machine: the CPU time each thread spends per alloc+free
 * pair ({@code ThreadMXBean.getCurrentThreadCpuTime}), for memscope and the naive design, with 1 and with 2
 * threads on the same instrument, in interleaved rounds (so that background load hits every variant alike).
 *
 * <p>CPU time excludes the time a thread waits for a core, so it does not depend on how the scheduler shares the
 * machine; it grows when a thread stalls on a cache line that another core wrote, which is how contention between
 * the two threads shows. But contention can only show while both threads really run at the same time, which on
 * a loaded machine is rare. So each thread works in batches of {@value #BATCH} pairs and classifies every batch:
 * <ul>
 *   <li><b>concurrent</b>: the other thread completed a batch meanwhile, and this thread was not preempted during
 *       it (wall time &le; 1.2 x its CPU time): both threads ran on two cores at once for the whole batch;</li>
 *   <li><b>solo</b>: the other thread made no progress and this one was not preempted;</li>
 *   <li>mixed (preempted during the batch): not used.</li>
 * </ul>
 * The CPU-time scaling estimate is {@code 2 x cpu(1 thread) / cpu(2 threads, concurrent batches)}: the 2-thread
 * throughput relative to 1 thread on two otherwise idle cores, if nothing but the code's own memory traffic slows
 * the threads. The naive design (shared atomics) is the positive control: its concurrent batches must get slower.
 *
 * <pre>java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.accounting.AccountingCpuCost [pairs] [rounds]</pre>
 */
public final class AccountingCpuCost {
    static final int BATCH = 10_000;
    private static final long SIZE = AccountingBenchmark.SIZE;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static volatile long sink;

    private AccountingCpuCost() {
    }

    /** CPU ns per pair of batches by kind. */
    static final class Batches {
        final List<Double> solo = new ArrayList<>();
        final List<Double> concurrent = new ArrayList<>();
        int mixed;

        void addAll(Batches other) {
            solo.addAll(other.solo);
            concurrent.addAll(other.concurrent);
            mixed += other.mixed;
        }
    }

    public static void main(String[] args) throws Exception {
        long pairs = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        System.out.println("pairs per thread per run: " + pairs + ", rounds: " + rounds + " (+1 warm-up), batch "
                + BATCH + ", JVM " + System.getProperty("java.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores");
        String[] designs = {"memscope", "naive"};
        Batches[][] all = new Batches[designs.length][2];
        double[][] overlap = new double[designs.length][rounds];
        for (Batches[] b : all) {
            b[0] = new Batches();
            b[1] = new Batches();
        }
        for (int round = -1; round < rounds; round++) {
            for (int d = 0; d < designs.length; d++) {
                for (int threads = 1; threads <= 2; threads++) {
                    Batches b = new Batches();
                    double o = run(designs[d], threads, pairs, b);
                    if (round >= 0) {
                        all[d][threads - 1].addAll(b);
                        if (threads == 2) {
                            overlap[d][round] = o;
                        }
                    }
                }
            }
        }
        System.out.println();
        System.out.println("| design | threads | batches | CPU ns per pair, median (p10 - p90) |");
        System.out.println("|---|---|---|---|");
        double[][] cpu = new double[designs.length][3];
        for (int d = 0; d < designs.length; d++) {
            Batches one = all[d][0];
            Batches two = all[d][1];
            one.solo.addAll(one.concurrent);   // a 1-thread run has no other thread: every unpreempted batch
            cpu[d][0] = line(designs[d], "1", one.solo);
            cpu[d][1] = line(designs[d], "2, solo batches", two.solo);
            cpu[d][2] = line(designs[d], "2, concurrent batches", two.concurrent);
            System.out.printf(Locale.ROOT, "|   | (2 threads: %d mixed batches not used; CPU/wall overlap median %.2f) | | |%n",
                    two.mixed, median(overlap[d]));
        }
        System.out.println();
        for (int d = 0; d < designs.length; d++) {
            System.out.printf(Locale.ROOT, "%s: 2 threads / 1 thread, CPU-time estimate from concurrent batches %.2fx%n",
                    designs[d], 2 * cpu[d][0] / cpu[d][2]);
        }
        System.out.printf(Locale.ROOT, "naive / memscope CPU per pair: %.2fx (1 thread), %.2fx (2 threads, concurrent)%n",
                cpu[1][0] / cpu[0][0], cpu[1][2] / cpu[0][2]);
    }

    private static double line(String design, String threads, List<Double> batches) {
        double[] v = batches.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) {
            System.out.printf(Locale.ROOT, "| %s | %s | 0 | - |%n", design, threads);
            return Double.NaN;
        }
        double m = median(v);
        System.out.printf(Locale.ROOT, "| %s | %s | %d | %.2f (%.2f - %.2f) |%n", design, threads, v.length, m,
                v[v.length / 10], v[v.length * 9 / 10]);
        return m;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** @return CPU time of all threads / wall time */
    private static double run(String design, int threads, long pairs, Batches into) throws Exception {
        MemoryAccounting acct = new MemoryAccounting();
        Instrument inst = acct.instrument("memory/bench/blocks");
        AccountingBenchmark.Naive naive = new AccountingBenchmark.Naive();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        long[] progress = new long[64];   // batches done by thread t at [16 + 32 t]: separate cache lines
        long[] cpu = new long[threads];
        Batches[] batches = new Batches[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int slot = t;
            batches[t] = new Batches();
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                int mine = 16 + 32 * slot;
                int other = 16 + 32 * (1 - slot);
                long acc = 0;
                long total = 0;
                for (long done = 0; done < pairs; done += BATCH) {
                    long o0 = (long) LONGS.getOpaque(progress, other);
                    long w0 = System.nanoTime();
                    long c0 = mx.getCurrentThreadCpuTime();
                    acc += design.equals("memscope") ? memscopePairs(acct, inst, BATCH) : naivePairs(naive, BATCH);
                    long c = mx.getCurrentThreadCpuTime() - c0;
                    long w = System.nanoTime() - w0;
                    long o1 = (long) LONGS.getOpaque(progress, other);
                    LONGS.setOpaque(progress, mine, done / BATCH + 1);
                    total += c;
                    double perPair = (double) c / BATCH;
                    if (w > 1.2 * c) {
                        batches[slot].mixed++;
                    } else if (o1 != o0) {
                        batches[slot].concurrent.add(perPair);
                    } else {
                        batches[slot].solo.add(perPair);
                    }
                }
                cpu[slot] = total;
                sink += acc;
            }, design + "-" + t);
            ts[t].start();
        }
        start.await();
        long wall0 = System.nanoTime();
        for (Thread th : ts) {
            th.join();
        }
        long wall = System.nanoTime() - wall0;
        long cpuSum = 0;
        for (int t = 0; t < threads; t++) {
            cpuSum += cpu[t];
            into.addAll(batches[t]);
        }
        return (double) cpuSum / wall;
    }

    private static long memscopePairs(MemoryAccounting acct, Instrument inst, long pairs) {
        long acc = 0;
        for (long i = 0; i < pairs; i++) {
            Owner o = acct.alloc(inst, SIZE);
            acct.free(inst, SIZE, o);
            acc += o.threadId();
        }
        return acc;
    }

    private static long naivePairs(AccountingBenchmark.Naive naive, long pairs) {
        long acc = 0;
        for (long i = 0; i < pairs; i++) {
            acc += naive.pair();
        }
        return acc;
    }
}
