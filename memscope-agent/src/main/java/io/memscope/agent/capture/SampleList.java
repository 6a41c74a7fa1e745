package io.memscope.agent.capture;

import java.util.function.Consumer;

/**
 * The sample references one thread is tracking: appended only by the owning thread on the sample path (no lock,
 * no atomic, no hashing: one array store), so that each {@link SampleRef} stays strongly reachable until its
 * object's collection has been settled. Settled references are dropped when the array is full (compaction into a
 * fresh array, which then has at least half of its slots free, else twice the room).
 *
 * <p>Memory: at most {@code 2 * max(MIN_CAPACITY, live)} slots, where {@code live} is the number of references not
 * yet settled at the last compaction (4 bytes per slot with compressed oops).
 *
 * <p>Other threads only read ({@link #forEach}, the end-of-capture sweep, and {@link Liveness#orphan} once the owner
 * has ended): a reader racing with the owner may miss the newest references or see one twice ({@link
 * SampleRef#settle} makes the second sighting harmless).
 */
final class SampleList {
    static final int MIN_CAPACITY = 64;

    /** The capture the references belong to. */
    final int generation;
    private SampleRef[] refs = new SampleRef[MIN_CAPACITY];
    private int size;

    SampleList(int generation) {
        this.generation = generation;
    }

    /** Owner thread only. */
    void add(SampleRef r) {
        SampleRef[] a = refs;
        int n = size;
        if (n == a.length) {
            a = compact(a, n);
            n = size;
        }
        a[n] = r;
        size = n + 1;
    }

    private SampleRef[] compact(SampleRef[] a, int n) {
        int live = 0;
        for (int i = 0; i < n; i++) {
            if (!a[i].settled()) {
                live++;
            }
        }
        int capacity = live + 1 > a.length / 2 ? a.length * 2 : a.length;
        if (capacity < MIN_CAPACITY) {
            capacity = MIN_CAPACITY;
        }
        SampleRef[] b = new SampleRef[capacity];
        int j = 0;
        for (int i = 0; i < n; i++) {
            SampleRef r = a[i];
            if (!r.settled()) {
                b[j++] = r;
            }
        }
        refs = b;
        size = j;
        return b;
    }

    /** Calls {@code action} for each reference not yet settled (any thread; see the class comment). */
    void forEach(Consumer<SampleRef> action) {
        SampleRef[] a = refs;
        int n = Math.min(size, a.length);
        for (int i = 0; i < n; i++) {
            SampleRef r = a[i];
            if (r != null && !r.settled()) {
                action.accept(r);
            }
        }
    }

    /** @return the number of slots in use (settled references not yet dropped included) */
    int size() {
        return size;
    }

    /** @return the number of slots */
    int capacity() {
        return refs.length;
    }
}
