package io.memscope.bench.agent.workload;

import java.lang.management.ManagementFactory;

/**
 * The measured program of {@code io.memscope.bench.agent.AgentOverhead} (compiled for Java 17 so that it runs on
 * JDK 17, where every peer works): an allocation-heavy loop whose allocations all happen in this
 * class (small objects, byte, int and long arrays of mixed sizes, a ring keeping the last 4096 alive so that escape
 * analysis cannot remove them). Runs {@code warmup + measured} rounds and prints the median measured round time (wall clock and the main thread's CPU time),
 * the main thread's allocated bytes (ThreadMXBean, exact) and the number of allocations it made.
 *
 * <p>Usage: {@code AllocationWorkload [warmupRounds] [measuredRounds] [iterationsPerRound]}. With the system
 * property {@code bench.countingSampler=true} it registers a counting sampler with Google's
 * java-allocation-instrumenter (which must be the JVM's agent).
 */
public final class AllocationWorkload {
    static final Object[] RING = new Object[4096];
    static long checksum;

    /** A small object: header plus two ints and a reference. */
    static final class Node {
        final int a;
        final int b;
        final Object next;

        Node(int a, int b, Object next) {
            this.a = a;
            this.b = b;
            this.next = next;
        }
    }

    private AllocationWorkload() {
    }

    static long round(int iterations, int salt) {
        long allocations = 0;
        for (int i = 0; i < iterations; i++) {
            int slot = (i + salt) & (RING.length - 1);
            Node n = new Node(i, salt, RING[slot]);
            RING[slot] = n;
            allocations++;
            if ((i & 3) == 0) {
                RING[(slot + 1) & (RING.length - 1)] = new byte[16 + (i & 255)];
                allocations++;
            }
            if ((i & 15) == 0) {
                RING[(slot + 2) & (RING.length - 1)] = new int[8 + (i & 63)];
                allocations++;
            }
            if ((i & 1023) == 0) {
                RING[(slot + 3) & (RING.length - 1)] = new long[1024 + (i & 4095)];
                allocations++;
            }
            checksum += n.a;
        }
        return allocations;
    }

    @SuppressWarnings("deprecation")
    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
        Object sampler = null;
        if (Boolean.getBoolean("bench.countingSampler")) {
            sampler = CountingSampler.install();
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        long allocations = 0;
        long[] times = new long[measured];
        long[] cpu = new long[measured];
        for (int r = 0; r < warmup + measured; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            allocations += round(iterations, r);
            long t = System.nanoTime() - t0;
            long c = mx.getCurrentThreadCpuTime() - c0;
            if (r >= warmup) {
                times[r - warmup] = t;
                cpu[r - warmup] = c;
            }
        }
        java.util.Arrays.sort(cpu);
        System.out.println("MEDIAN_ROUND_CPU_MS " + cpu[measured / 2] / 1e6);
        System.out.println("MIN_ROUND_CPU_MS " + cpu[0] / 1e6);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        java.util.Arrays.sort(times);
        System.out.println("MEDIAN_ROUND_MS " + times[measured / 2] / 1e6);
        System.out.println("THREAD_ALLOCATED_BYTES " + allocated);
        AllThreadsAllocated.print();
        System.out.println("ALLOCATIONS " + allocations);
        if (sampler != null) {
            System.out.println("SAMPLER_COUNT " + CountingSampler.count());
        }
        System.out.println("CHECKSUM " + checksum);
    }
}
