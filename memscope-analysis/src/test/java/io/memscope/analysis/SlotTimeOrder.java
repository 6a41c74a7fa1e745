package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;

/**
 * The time order as it was before its ring kept its events in ring order (every event in a slot from a free
 * stack): the reference {@link TimeOrder} is checked against, event for event and field for field.
 *
 * <p>Puts a stream of events that is only close to time order into time order with bounded memory: events are held
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
 * <p>Cost: an event that arrives in order (not older than the newest held) is appended to a ring already in time
 * order, O(1); one that arrives behind goes into a binary heap, O(log n). Releasing takes the older of the ring's
 * first and the heap's top. So a stream whose drains interleave whole buffers of several threads (every event of a
 * buffer behind the previous buffer's) costs O(log n) an event, never a shift of the events held.
 *
 * <p>Memory: the held events in primitive columns (about 90 bytes an event with the indexes), at most
 * {@code capacity} of them.
 */
final class SlotTimeOrder implements EventSink {
    /** How far behind later events an event may arrive and still be put in order: 10 s (ten default drains). */
    static final long WINDOW_NANOS = 10_000_000_000L;
    /** Most events held (about 23 MiB): a faster stream has a shorter window, counted in {@link #late()} if short. */
    static final int CAPACITY = 1 << 18;
    private static final MemoryEventType[] TYPES = MemoryEventType.values();

    private final long window;
    private final int capacity;
    private final EventSink out;
    /** The view the released events are handed on through. */
    private final EventView view = new EventView();
    private long newest = Long.MIN_VALUE;
    private long released = Long.MIN_VALUE;
    private long late;
    private long arrivals;

    // Event columns, indexed by slot; free slots on a stack.
    private long[] ts;
    private long[] order; // arrival number: ties in time are released in arrival order
    private byte[] type;
    private long[] address;
    private long[] size;
    private long[] previous;
    private long[] thread;
    private int[] threadName;
    private int[] variable;
    private int[] typeName;
    private long[] stack;
    private int[] site;
    private int[] free;
    private int freeCount;

    // The slots of events that arrived in order, oldest first: a ring.
    private int[] ring;
    private int ringHead;
    private int ringCount;
    // The slots of events that arrived behind: a binary heap by (time, arrival).
    private int[] heap;
    private int heapCount;

    SlotTimeOrder(long windowNanos, int capacity, EventSink out) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.window = windowNanos;
        this.capacity = capacity;
        this.out = out;
        allocate(Math.min(capacity, 4096));
    }

    SlotTimeOrder(EventSink out) {
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
        if (held() == ts.length) {
            allocate(ts.length * 2);
        }
        int slot = free[--freeCount];
        ts[slot] = t;
        order[slot] = arrivals++;
        type[slot] = (byte) e.type().code();
        address[slot] = e.address();
        size[slot] = e.size();
        previous[slot] = e.previousSize();
        thread[slot] = e.threadId();
        threadName[slot] = e.threadNameId();
        variable[slot] = e.variableNameId();
        typeName[slot] = e.typeNameId();
        stack[slot] = e.stackId();
        site[slot] = e.siteId();
        if (t < newest) {
            heapPush(slot);
            return;
        }
        ring[(ringHead + ringCount) & (ring.length - 1)] = slot;
        ringCount++;
        if (t > newest) {
            newest = t;
            while (held() > 0 && ts[oldest()] <= newest - window) {
                releaseOne();
            }
        }
    }

    /** Releases everything still held: the stream has ended. */
    void finish() {
        while (held() > 0) {
            releaseOne();
        }
    }

    /** @return events that arrived behind an event already released and were passed on out of order */
    long late() {
        return late;
    }

    private int held() {
        return ringCount + heapCount;
    }

    /** @return the slot of the oldest event held (there is one) */
    private int oldest() {
        if (heapCount == 0) {
            return ring[ringHead];
        }
        if (ringCount == 0) {
            return heap[0];
        }
        int r = ring[ringHead];
        return before(heap[0], r) ? heap[0] : r;
    }

    private void releaseOne() {
        int slot;
        if (heapCount > 0 && (ringCount == 0 || before(heap[0], ring[ringHead]))) {
            slot = heapPop();
        } else {
            slot = ring[ringHead];
            ringHead = (ringHead + 1) & (ring.length - 1);
            ringCount--;
        }
        free[freeCount++] = slot;
        released = Math.max(released, ts[slot]);
        out.accept(view.set(ts[slot], TYPES[type[slot]], address[slot], size[slot], previous[slot], thread[slot],
                threadName[slot], variable[slot], typeName[slot], stack[slot], site[slot]));
    }

    private boolean before(int a, int b) {
        return ts[a] < ts[b] || (ts[a] == ts[b] && order[a] < order[b]);
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

    /** (Re)allocates room for {@code n} events; the slots and both indexes keep what they hold. */
    private void allocate(int n) {
        int old = ts == null ? 0 : ts.length;
        ts = grow(ts, n);
        order = grow(order, n);
        address = grow(address, n);
        size = grow(size, n);
        previous = grow(previous, n);
        thread = grow(thread, n);
        stack = grow(stack, n);
        threadName = grow(threadName, n);
        variable = grow(variable, n);
        typeName = grow(typeName, n);
        site = grow(site, n);
        byte[] t = new byte[n];
        if (type != null) {
            System.arraycopy(type, 0, t, 0, old);
        }
        type = t;
        int[] f = new int[n];
        System.arraycopy(free == null ? f : free, 0, f, 0, freeCount);
        for (int s = n - 1; s >= old; s--) {
            f[freeCount++] = s;
        }
        free = f;
        int[] r = new int[n];
        for (int i = 0; i < ringCount; i++) {
            r[i] = ring[(ringHead + i) & (ring.length - 1)];
        }
        ring = r;
        ringHead = 0;
        heap = heap == null ? new int[n] : java.util.Arrays.copyOf(heap, n);
    }

    private static long[] grow(long[] a, int n) {
        return a == null ? new long[n] : java.util.Arrays.copyOf(a, n);
    }

    private static int[] grow(int[] a, int n) {
        return a == null ? new int[n] : java.util.Arrays.copyOf(a, n);
    }

    @Override
    public String toString() {
        return "TimeOrder[" + held() + " held (" + heapCount + " behind), " + late + " late, newest " + newest
                + ", released " + released + "]";
    }
}
