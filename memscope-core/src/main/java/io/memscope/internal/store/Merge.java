package io.memscope.internal.store;

/**
 * K-way merge of timestamp-sorted {@link Run}s with a binary min-heap keyed by (timestamp, run order): the
 * output is in timestamp order, and events with equal timestamps keep the order of their runs (thread
 * registration order, then recording order). O(n log k) for n events in k runs.
 */
final class Merge {
    /** Receives merged events one at a time. */
    interface Target {
        void take(Run run);
    }

    private Merge() {
    }

    static void merge(Run[] runs, Target target) {
        int k = runs.length;
        if (k == 0) {
            return;
        }
        if (k == 1) {
            Run r = runs[0];
            do {
                target.take(r);
            } while (r.advance());
            return;
        }
        int[] heap = new int[k];
        long[] keys = new long[k];
        for (int i = 0; i < k; i++) {
            heap[i] = i;
            keys[i] = runs[i].timestamp();
        }
        int n = k;
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(heap, keys, n, i);
        }
        while (n > 0) {
            int top = heap[0];
            Run r = runs[top];
            target.take(r);
            if (r.advance()) {
                keys[top] = r.timestamp();
            } else {
                heap[0] = heap[--n];
            }
            siftDown(heap, keys, n, 0);
        }
    }

    private static boolean less(long[] keys, int a, int b) {
        long ka = keys[a];
        long kb = keys[b];
        return ka < kb || (ka == kb && a < b);
    }

    private static void siftDown(int[] heap, long[] keys, int n, int i) {
        int x = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            int c = heap[child];
            if (child + 1 < n && less(keys, heap[child + 1], c)) {
                child++;
                c = heap[child];
            }
            if (!less(keys, c, x)) {
                break;
            }
            heap[i] = c;
            i = child;
        }
        heap[i] = x;
    }
}
