package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import java.util.Arrays;

/**
 * Puts a stream of events that is only close to time order into time order with bounded memory: events are held
 * until the stream has shown an event {@code window} nanoseconds later (or until {@code capacity} events are held),
 * then released oldest first (ties in arrival order). An event older than one already released is passed on at
 * once, out of order, and counted in {@link #late()}.
 *
 * <p>Why the stream is close to time order: the agent writes its recording drain by drain, each drain in time
 * order; the next drain can only start with events a little older than the last one of the previous drain (a thread
 * read the clock before the first drain's cut and published its event after it). So an event is behind later ones
 * by microseconds, rarely by a drain period (1 s by default); the window of 10 s covers that many times over.
 *
 * <p>Memory: the held events in primitive columns (about 73 bytes an event), at most {@code capacity} of them;
 * inserting is a comparison with the newest held event, and a short shift for the few events that arrive behind.
 */
final class TimeOrder implements EventSink {
    /** How far behind later events an event may arrive and still be put in order: 10 s (ten default drains). */
    static final long WINDOW_NANOS = 10_000_000_000L;
    /** Most events held (about 19 MiB): a faster stream has a shorter window, counted in {@link #late()} if short. */
    static final int CAPACITY = 1 << 18;
    private static final MemoryEventType[] TYPES = MemoryEventType.values();

    private final long window;
    private final int capacity;
    private final EventSink out;
    private int mask;
    private int head;
    private int count;
    private long newest = Long.MIN_VALUE;
    private long released = Long.MIN_VALUE;
    private long late;

    private long[] ts;
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

    TimeOrder(long windowNanos, int capacity, EventSink out) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.window = windowNanos;
        this.capacity = capacity;
        this.out = out;
        allocate(Math.min(capacity, 4096));
    }

    TimeOrder(EventSink out) {
        this(WINDOW_NANOS, CAPACITY, out);
    }

    @Override
    public void accept(long t, MemoryEventType ty, long addr, long sz, long prev, long tid, int tname, int var,
                       int tyname, long stk, int st) {
        if (count == capacity) {
            releaseOne();
        }
        if (t < released) {
            late++;
            out.accept(t, ty, addr, sz, prev, tid, tname, var, tyname, stk, st);
            return;
        }
        if (count == mask + 1) {
            allocate((mask + 1) * 2);
        }
        int pos = count;
        while (pos > 0 && ts[(head + pos - 1) & mask] > t) {
            pos--;
        }
        for (int i = count; i > pos; i--) {
            move((head + i - 1) & mask, (head + i) & mask);
        }
        int at = (head + pos) & mask;
        ts[at] = t;
        type[at] = (byte) ty.code();
        address[at] = addr;
        size[at] = sz;
        previous[at] = prev;
        thread[at] = tid;
        threadName[at] = tname;
        variable[at] = var;
        typeName[at] = tyname;
        stack[at] = stk;
        site[at] = st;
        count++;
        if (t > newest) {
            newest = t;
            while (count > 0 && ts[head] <= newest - window) {
                releaseOne();
            }
        }
    }

    /** Releases everything still held: the stream has ended. */
    void finish() {
        while (count > 0) {
            releaseOne();
        }
    }

    /** @return events that arrived behind an event already released and were passed on out of order */
    long late() {
        return late;
    }

    private void releaseOne() {
        int at = head;
        head = (head + 1) & mask;
        count--;
        released = Math.max(released, ts[at]);
        out.accept(ts[at], TYPES[type[at]], address[at], size[at], previous[at], thread[at], threadName[at],
                variable[at], typeName[at], stack[at], site[at]);
    }

    private void move(int from, int to) {
        ts[to] = ts[from];
        type[to] = type[from];
        address[to] = address[from];
        size[to] = size[from];
        previous[to] = previous[from];
        thread[to] = thread[from];
        threadName[to] = threadName[from];
        variable[to] = variable[from];
        typeName[to] = typeName[from];
        stack[to] = stack[from];
        site[to] = site[from];
    }

    /** (Re)allocates the ring with {@code n} slots, the held events first and in order. */
    private void allocate(int n) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = (head + i) & mask;
        }
        ts = grow(ts, order, n);
        address = grow(address, order, n);
        size = grow(size, order, n);
        previous = grow(previous, order, n);
        thread = grow(thread, order, n);
        stack = grow(stack, order, n);
        threadName = grow(threadName, order, n);
        variable = grow(variable, order, n);
        typeName = grow(typeName, order, n);
        site = grow(site, order, n);
        byte[] t = new byte[n];
        for (int i = 0; i < order.length; i++) {
            t[i] = type[order[i]];
        }
        type = t;
        head = 0;
        mask = n - 1;
    }

    private static long[] grow(long[] a, int[] order, int n) {
        long[] b = new long[n];
        for (int i = 0; i < order.length; i++) {
            b[i] = a[order[i]];
        }
        return b;
    }

    private static int[] grow(int[] a, int[] order, int n) {
        int[] b = new int[n];
        for (int i = 0; i < order.length; i++) {
            b[i] = a[order[i]];
        }
        return b;
    }

    @Override
    public String toString() {
        return "TimeOrder[" + count + " held, " + late + " late, " + Arrays.toString(new long[] {newest, released})
                + "]";
    }
}
