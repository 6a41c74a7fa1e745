package io.memscope.internal.store;

import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.error.ErrorCategory;
import io.memscope.error.MemscopeException;
import io.memscope.error.Severity;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;

/**
 * An immutable, timestamp-ordered view of events taken from an {@link EventStore}. The events are held once, in
 * compact primitive columns (32 bytes per event plus the per-thread context tables), never as one object per
 * event; read them with {@link #forEach(EventSink)}, a flyweight {@link #cursor()}, {@link #get(int)}, or for
 * small snapshots {@link #asList()}.
 *
 * <p>Queries ({@link #between}, {@link #ofType}, {@link #onThread}, {@link #atAddress}, {@link #atSite}) return
 * further views over the same columns: a time range is a binary search (no copy), the other filters build an
 * index of the matching rows (4 bytes per match). Views compose: {@code s.ofType(ALLOCATE).between(t0, t1)}.
 *
 * <p>String-valued fields are ids in {@link #strings()}, the store's interning table.
 */
public final class Snapshot {
    /** The largest number of events one snapshot holds; larger stores are read with {@code drainTo}. */
    public static final int MAX_EVENTS = Integer.MAX_VALUE - 16;
    /** The largest snapshot {@link #asList()} accepts: a list view makes one object per event read. */
    public static final int MAX_LIST_EVENTS = 1_000_000;

    private final EventColumns columns;
    /** Row numbers in the columns, ascending; null means rows lo..hi-1 directly. */
    private final int[] rows;
    private final int lo;
    private final int hi;

    Snapshot(EventColumns columns) {
        this(columns, null, 0, columns.count);
    }

    private Snapshot(EventColumns columns, int[] rows, int lo, int hi) {
        this.columns = columns;
        this.rows = rows;
        this.lo = lo;
        this.hi = hi;
    }

    /** @return the number of events in this view */
    public int size() {
        return hi - lo;
    }

    public boolean isEmpty() {
        return hi == lo;
    }

    /**
     * @return how many events the store had dropped (bounded mode) when this snapshot was taken, since the store
     *         was created or last cleared; the same for every view of the snapshot
     */
    public long dropped() {
        return columns.dropped;
    }

    /** @return the store's string table: thread, type and variable name ids resolve here */
    public StringTable strings() {
        return columns.strings;
    }

    /** @return the store's wall-clock time at creation, nanoseconds since the Unix epoch */
    public long wallClockEpochNanos() {
        return columns.wallClockEpochNanos;
    }

    /** @return the store clock's reading taken together with {@link #wallClockEpochNanos()} */
    public long nanoTimeAtEpoch() {
        return columns.nanoTimeAtEpoch;
    }

    /** @return the wall-clock time of an event timestamp, nanoseconds since the Unix epoch */
    public long toEpochNanos(long timestampNanos) {
        return columns.wallClockEpochNanos + (timestampNanos - columns.nanoTimeAtEpoch);
    }

    int row(int index) {
        if (index < 0 || index >= hi - lo) {
            throw new IndexOutOfBoundsException("event " + index + " of " + (hi - lo));
        }
        return rows == null ? lo + index : rows[lo + index];
    }

    EventColumns columns() {
        return columns;
    }

    /** @return the event at {@code index} (0 = oldest) as an object; prefer {@link #cursor()} in loops */
    public MemoryEvent get(int index) {
        return columns.event(row(index));
    }

    /** @return the timestamp of the event at {@code index}, in clock nanoseconds */
    public long timestampAt(int index) {
        return columns.timestamps[row(index)];
    }

    /** Hands every event to {@code sink}, oldest first, without creating objects. */
    public void forEach(EventSink sink) {
        EventView view = new EventView();
        for (int i = lo; i < hi; i++) {
            columns.emit(rows == null ? i : rows[i], sink, view);
        }
    }

    /** @return a new flyweight cursor positioned before the first event */
    public SnapshotCursor cursor() {
        return new SnapshotCursor(this);
    }

    /**
     * @return a read-only list view making a {@link MemoryEvent} per {@code get}
     * @throws MemscopeException (analysis, recoverable) if this view holds more than {@value #MAX_LIST_EVENTS}
     *                           events: use {@link #cursor()} or {@link #forEach(EventSink)} for those
     */
    public List<MemoryEvent> asList() {
        int n = size();
        if (n > MAX_LIST_EVENTS) {
            throw new MemscopeException(ErrorCategory.ANALYSIS, Severity.MEDIUM, true, "snapshot has " + n
                    + " events; asList() makes one object per event and is limited to " + MAX_LIST_EVENTS
                    + ": use cursor() or forEach(EventSink), or narrow it with a query first");
        }
        return new EventList();
    }

    private final class EventList extends AbstractList<MemoryEvent> implements RandomAccess {
        @Override
        public MemoryEvent get(int index) {
            return Snapshot.this.get(index);
        }

        @Override
        public int size() {
            return Snapshot.this.size();
        }
    }

    // ------------------------------------------------------------------------------------------ queries

    /** @return the events with {@code fromNanos <= timestamp < toNanos} (clock nanoseconds) */
    public Snapshot between(long fromNanos, long toNanos) {
        if (toNanos <= fromNanos) {
            return new Snapshot(columns, rows, lo, lo);
        }
        int a = firstAtOrAfter(fromNanos);
        int b = firstAtOrAfter(toNanos);
        return new Snapshot(columns, rows, a, Math.max(a, b));
    }

    /** Binary search: the first position in [lo, hi) whose timestamp is >= t, or hi. */
    private int firstAtOrAfter(long t) {
        int a = lo;
        int b = hi;
        long[] ts = columns.timestamps;
        while (a < b) {
            int m = (a + b) >>> 1;
            long v = ts[rows == null ? m : rows[m]];
            if (v < t) {
                a = m + 1;
            } else {
                b = m;
            }
        }
        return a;
    }

    /** @return the events of any of these types */
    public Snapshot ofType(MemoryEventType... types) {
        int mask = 0;
        for (MemoryEventType t : types) {
            mask |= 1 << t.code();
        }
        int[] out = new int[Math.min(size(), 1024)];
        int n = 0;
        for (int i = lo; i < hi; i++) {
            int r = rows == null ? i : rows[i];
            if ((mask & (1 << columns.typeCode(r))) != 0) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, Math.min(size(), out.length * 2));
                }
                out[n++] = r;
            }
        }
        return new Snapshot(columns, out, 0, n);
    }

    /** @return the events recorded on (or attributed to) the thread with this id */
    public Snapshot onThread(long threadId) {
        boolean[] match = new boolean[columns.ctxThreadIds.length];
        for (int c = 0; c < match.length; c++) {
            match[c] = columns.ctxThreadIds[c] == threadId;
        }
        return byContext(match);
    }

    /** @return the events at this site id */
    public Snapshot atSite(int siteId) {
        boolean[] match = new boolean[columns.ctxSites.length];
        for (int c = 0; c < match.length; c++) {
            match[c] = columns.ctxSites[c] == siteId;
        }
        return byContext(match);
    }

    private Snapshot byContext(boolean[] match) {
        int[] out = new int[Math.min(size(), 1024)];
        int n = 0;
        for (int i = lo; i < hi; i++) {
            int r = rows == null ? i : rows[i];
            if (match[columns.context(r)]) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, Math.min(size(), out.length * 2));
                }
                out[n++] = r;
            }
        }
        return new Snapshot(columns, out, 0, n);
    }

    /** @return the events with this address (native address or heap sample id) */
    public Snapshot atAddress(long address) {
        int[] out = new int[Math.min(size(), 64)];
        int n = 0;
        long[] addresses = columns.addresses;
        for (int i = lo; i < hi; i++) {
            int r = rows == null ? i : rows[i];
            if (addresses[r] == address) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, Math.min(size(), out.length * 2));
                }
                out[n++] = r;
            }
        }
        return new Snapshot(columns, out, 0, n);
    }

    /** @return bytes held by the columns shared by this snapshot and its views (array payloads) */
    public long retainedBytes() {
        return (long) columns.count * Chunk.BYTES_PER_EVENT + (long) columns.ctxSites.length * 40
                + (rows == null ? 0 : 4L * rows.length);
    }

    @Override
    public String toString() {
        return "Snapshot[" + size() + " events, " + dropped() + " dropped]";
    }
}
