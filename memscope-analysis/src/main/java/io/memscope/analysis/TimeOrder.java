package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;

/**
 * Puts a stream of events that is only close to time order into time order with bounded memory: events are held
 * until the stream has shown an event {@code window} nanoseconds later (or until {@code capacity} events are held),
 * then released oldest first (ties in arrival order). An event older than one already released is passed on at
 * once, out of order, and counted in {@link #late()}.
 *
 * <p>Why the stream is close to time order: the agent writes its recording drain by drain; the next drain can start
 * with events older than the last one of the previous drain (a thread read the clock before the first drain's cut
 * and published its event after it, or its buffer was drained later than another thread's). So an event is behind
 * later ones by microseconds, at most by a drain period (1 s by default); the window of 10 s covers that many times
 * over.
 *
 * <p>Cost: an event that arrives in order (not older than the newest held) is appended to a ring of columns already
 * in time order, O(1); one that arrives behind goes into a binary heap over columns of its own, O(log n). Releasing
 * takes the older of the ring's first and the heap's top. So a stream whose drains interleave whole buffers of
 * several threads (every event of a buffer behind the previous buffer's) costs O(log n) an event, never a shift of
 * the events held.
 *
 * <pre>
 *  ring (events that arrived in order: time order is ring order)      heap (events that arrived behind)
 *   column[ (head + i) &amp; (length - 1) ], i = 0 .. ringCount-1          column[slot], slots from a free stack
 *   +------+------+------+-----+------+                                 heap[] = slots ordered by (time, arrival)
 *   | head | ...  | ...  | ... | tail |  --&gt; released as runs
 *   +------+------+------+-----+------+
 * </pre>
 *
 * <p>Most events arrive in order, so they are written and read at consecutive positions of the ring's twelve
 * columns (sequential memory, not a slot anywhere in a megabyte), and a sink that takes columns ({@link RunSink})
 * gets each run of ring events released together as one copy per column.
 *
 * <p>Memory: the held events in primitive columns (about 90 bytes an event with the indexes), at most
 * {@code capacity} of them.
 */
final class TimeOrder implements EventSink {
    /** How far behind later events an event may arrive and still be put in order: 10 s (ten default drains). */
    static final long WINDOW_NANOS = 10_000_000_000L;
    /** Most events held (about 23 MiB): a faster stream has a shorter window, counted in {@link #late()} if short. */
    static final int CAPACITY = 1 << 18;
    private static final MemoryEventType[] TYPES = MemoryEventType.values();

    /**
     * A sink that also takes events as runs of columns: {@code n} events from index {@code from} of each array, in
     * order, as if each had been passed to {@link #accept} in turn.
     */
    interface RunSink extends EventSink {
        void run(long[] ts, byte[] type, long[] address, long[] size, long[] previous, long[] thread,
                 int[] threadName, int[] variable, int[] typeName, long[] stack, int[] site, int from, int n);
    }

    private final long window;
    private final int capacity;
    private final EventSink out;
    /** {@link #out} when it takes runs, else null. */
    private final RunSink runs;
    /** The view the released events are handed on through. */
    private final EventView view = new EventView();
    private long newest = Long.MIN_VALUE;
    private long released = Long.MIN_VALUE;
    private long late;
    private long arrivals;

    /** The events that arrived in order, oldest first, in ring order (columns indexed by ring position). */
    private final Columns ring;
    private int ringHead;
    private int ringCount;
    /** The events that arrived behind, in slots; free slots on a stack. */
    private final Columns behind;
    private int[] free;
    private int freeCount;
    /** The slots of {@link #behind}'s events: a binary heap by (time, arrival). */
    private int[] heap;
    private int heapCount;

    TimeOrder(long windowNanos, int capacity, EventSink out) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.window = windowNanos;
        this.capacity = capacity;
        this.out = out;
        this.runs = out instanceof RunSink r ? r : null;
        int n = Math.min(capacity, 4096);
        ring = new Columns(n);
        behind = new Columns(Math.min(capacity, 256));
        free = new int[behind.ts.length];
        for (int s = free.length - 1; s >= 0; s--) {
            free[freeCount++] = s;
        }
        heap = new int[behind.ts.length];
    }

    TimeOrder(EventSink out) {
        this(WINDOW_NANOS, CAPACITY, out);
    }

    @Override
    public void accept(EventView e) {
        if (held() == capacity) {
            releaseOne();
        }
        long t = e.timestampNanos();
        if (t < released) {
            late++;
            out.accept(e);
            return;
        }
        if (t < newest) {
            if (freeCount == 0) {
                growBehind();
            }
            int slot = free[--freeCount];
            behind.set(slot, e, arrivals++);
            heapPush(slot);
            return;
        }
        if (ringCount == ring.ts.length) {
            growRing();
        }
        ring.set((ringHead + ringCount) & (ring.ts.length - 1), e, arrivals++);
        ringCount++;
        if (t > newest) {
            newest = t;
            releaseUpTo(newest - window);
        }
    }

    /** Releases everything still held: the stream has ended. */
    void finish() {
        releaseUpTo(Long.MAX_VALUE);
    }

    /** @return events that arrived behind an event already released and were passed on out of order */
    long late() {
        return late;
    }

    private int held() {
        return ringCount + heapCount;
    }

    /**
     * Releases, oldest first, every held event at or before {@code cutoff}: the heap's one at a time, the ring's in
     * runs (each run ends before the heap's top, which stays put while the run is released).
     */
    private void releaseUpTo(long cutoff) {
        while (held() > 0) {
            if (heapCount > 0 && (ringCount == 0 || heapFirst())) {
                if (behind.ts[heap[0]] > cutoff) {
                    return;
                }
                releaseBehind();
                continue;
            }
            long[] ts = ring.ts;
            int mask = ts.length - 1;
            long limit = cutoff;
            long topTime = Long.MAX_VALUE;
            long topOrder = Long.MAX_VALUE;
            if (heapCount > 0) {
                topTime = behind.ts[heap[0]];
                topOrder = behind.order[heap[0]];
            }
            int n = 0;
            while (n < ringCount) {
                int p = (ringHead + n) & mask;
                long t = ts[p];
                if (t > limit || t > topTime || (t == topTime && ring.order[p] > topOrder)) {
                    break;
                }
                n++;
            }
            if (n == 0) {
                return;
            }
            releaseRing(n);
        }
    }

    /** @return whether the heap's top is before the ring's first (both hold events) */
    private boolean heapFirst() {
        int h = heap[0];
        long ht = behind.ts[h];
        long rt = ring.ts[ringHead];
        return ht < rt || (ht == rt && behind.order[h] < ring.order[ringHead]);
    }

    private void releaseOne() {
        if (heapCount > 0 && (ringCount == 0 || heapFirst())) {
            releaseBehind();
        } else {
            releaseRing(1);
        }
    }

    private void releaseBehind() {
        int slot = heapPop();
        free[freeCount++] = slot;
        Columns c = behind;
        released = Math.max(released, c.ts[slot]);
        out.accept(c.view(slot, view));
    }

    /** Releases the ring's first {@code n} events, oldest first. */
    private void releaseRing(int n) {
        Columns c = ring;
        int mask = c.ts.length - 1;
        int head = ringHead;
        released = Math.max(released, c.ts[(head + n - 1) & mask]);
        ringHead = (head + n) & mask;
        ringCount -= n;
        if (runs != null) {
            int first = Math.min(n, c.ts.length - head);
            c.run(runs, head, first);
            if (first < n) {
                c.run(runs, 0, n - first);
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            out.accept(c.view((head + i) & mask, view));
        }
    }

    private boolean before(int a, int b) {
        long[] ts = behind.ts;
        return ts[a] < ts[b] || (ts[a] == ts[b] && behind.order[a] < behind.order[b]);
    }

    private void heapPush(int slot) {
        int i = heapCount++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(slot, heap[parent])) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = slot;
    }

    private int heapPop() {
        int top = heap[0];
        int last = heap[--heapCount];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= heapCount) {
                break;
            }
            if (child + 1 < heapCount && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], last)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        if (heapCount > 0) {
            heap[i] = last;
        }
        return top;
    }

    /** Doubles the ring, its events moved to positions 0 .. ringCount-1 in order. */
    private void growRing() {
        int n = ring.ts.length;
        int first = Math.min(ringCount, n - ringHead);
        ring.unwrap(ringHead, first, ringCount - first, n * 2);
        ringHead = 0;
    }

    /** Doubles the heap's columns; the new slots go on the free stack. */
    private void growBehind() {
        int old = behind.ts.length;
        int n = old * 2;
        behind.resize(n);
        int[] f = new int[n];
        System.arraycopy(free, 0, f, 0, freeCount);
        for (int s = n - 1; s >= old; s--) {
            f[freeCount++] = s;
        }
        free = f;
        heap = java.util.Arrays.copyOf(heap, n);
    }

    @Override
    public String toString() {
        return "TimeOrder[" + held() + " held (" + heapCount + " behind), " + late + " late, newest " + newest
                + ", released " + released + "]";
    }

    /** Held events' fields, one array each, and their arrival numbers (ties in time leave in arrival order). */
    private static final class Columns {
        long[] ts;
        long[] order;
        byte[] type;
        long[] address;
        long[] size;
        long[] previous;
        long[] thread;
        int[] threadName;
        int[] variable;
        int[] typeName;
        long[] stack;
        int[] site;

        Columns(int n) {
            ts = new long[n];
            order = new long[n];
            type = new byte[n];
            address = new long[n];
            size = new long[n];
            previous = new long[n];
            thread = new long[n];
            threadName = new int[n];
            variable = new int[n];
            typeName = new int[n];
            stack = new long[n];
            site = new int[n];
        }

        void set(int i, EventView e, long arrival) {
            ts[i] = e.timestampNanos();
            order[i] = arrival;
            type[i] = (byte) e.type().code();
            address[i] = e.address();
            size[i] = e.size();
            previous[i] = e.previousSize();
            thread[i] = e.threadId();
            threadName[i] = e.threadNameId();
            variable[i] = e.variableNameId();
            typeName[i] = e.typeNameId();
            stack[i] = e.stackId();
            site[i] = e.siteId();
        }

        EventView view(int i, EventView v) {
            return v.set(ts[i], TYPES[type[i]], address[i], size[i], previous[i], thread[i], threadName[i],
                    variable[i], typeName[i], stack[i], site[i]);
        }

        void run(RunSink sink, int from, int n) {
            sink.run(ts, type, address, size, previous, thread, threadName, variable, typeName, stack, site, from, n);
        }

        /** Grows to {@code n}, keeping slots where they are. */
        void resize(int n) {
            Columns c = new Columns(n);
            copy(this, 0, c, 0, ts.length);
            take(c);
        }

        /** Grows to {@code n}, the {@code a} events from {@code head} then {@code b} from 0 moved to 0 .. a+b-1. */
        void unwrap(int head, int a, int b, int n) {
            Columns c = new Columns(n);
            copy(this, head, c, 0, a);
            copy(this, 0, c, a, b);
            take(c);
        }

        private void take(Columns c) {
            ts = c.ts;
            order = c.order;
            type = c.type;
            address = c.address;
            size = c.size;
            previous = c.previous;
            thread = c.thread;
            threadName = c.threadName;
            variable = c.variable;
            typeName = c.typeName;
            stack = c.stack;
            site = c.site;
        }

        private static void copy(Columns s, int from, Columns d, int to, int n) {
            System.arraycopy(s.ts, from, d.ts, to, n);
            System.arraycopy(s.order, from, d.order, to, n);
            System.arraycopy(s.type, from, d.type, to, n);
            System.arraycopy(s.address, from, d.address, to, n);
            System.arraycopy(s.size, from, d.size, to, n);
            System.arraycopy(s.previous, from, d.previous, to, n);
            System.arraycopy(s.thread, from, d.thread, to, n);
            System.arraycopy(s.threadName, from, d.threadName, to, n);
            System.arraycopy(s.variable, from, d.variable, to, n);
            System.arraycopy(s.typeName, from, d.typeName, to, n);
            System.arraycopy(s.stack, from, d.stack, to, n);
            System.arraycopy(s.site, from, d.site, to, n);
        }
    }
}
