package io.memscope.bench.agent.workload;

/**
 * A program that holds a live heap of a given size in objects of a given size until it exits: the workload of the
 * reachability check's cost (memscope-bench/scripts/end-check-cost.sh). The check at the end of a capture is a
 * collection of the whole heap, whose pause grows with what is live (bytes to copy or compact, objects to mark).
 *
 * <p>Arguments: live MiB, bytes per object (a {@code byte[]} of that size including its 16-byte header).
 */
public final class LiveHeap {
    static Object[] kept;

    private LiveHeap() {
    }

    public static void main(String[] args) {
        long bytes = Long.parseLong(args[0]) << 20;
        int size = Integer.parseInt(args[1]);
        int n = (int) (bytes / (size + 8)); // each object and its slot in the array
        Object[] k = new Object[n];
        for (int i = 0; i < n; i++) {
            k[i] = new byte[size - 16];
        }
        kept = k;
        System.out.println("objects " + n);
    }
}
