package io.memscope.bench.agent.workload;

import java.lang.management.ManagementFactory;

/** ThreadMXBean's allocated bytes summed over all live threads, each since its start (threads already ended are missing). */
final class AllThreadsAllocated {
    private AllThreadsAllocated() {
    }

    /** Prints {@code ALL_THREADS_ALLOCATED_BYTES n}: what a whole-JVM allocation profile should add up to. */
    static void print() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long b : mx.getThreadAllocatedBytes(mx.getAllThreadIds())) {
            if (b > 0) {
                sum += b;
            }
        }
        System.out.println("ALL_THREADS_ALLOCATED_BYTES " + sum);
    }
}
