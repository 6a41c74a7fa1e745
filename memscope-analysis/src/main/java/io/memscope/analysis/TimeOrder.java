package io.memscope.analysis;

import io.memscope.MemoryEvent;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Puts a stream of events that is only close to time order into time order with bounded memory: events are held
 * until the stream has shown an event {@code window} nanoseconds later, then released oldest first (ties in arrival
 * order). The agent writes its recording drain by drain, each drain in time order, so an event is behind later ones
 * by at most about one drain period (1 s by default); an event further behind than the window is released at once,
 * out of order, and counted in {@link #late()}.
 *
 * <p>Memory: the events of one window.
 */
final class TimeOrder {
    /** How far behind later events an event may arrive and still be put in order: 10 s (ten default drains). */
    static final long WINDOW_NANOS = 10_000_000_000L;

    private final long window;
    private final Consumer<MemoryEvent> out;
    private final PriorityQueue<Held> held = new PriorityQueue<>();
    private long newest = Long.MIN_VALUE;
    private long released = Long.MIN_VALUE;
    private long arrivals;
    private long late;

    TimeOrder(long windowNanos, Consumer<MemoryEvent> out) {
        this.window = windowNanos;
        this.out = out;
    }

    void add(MemoryEvent e) {
        long ts = e.timestampNanos();
        if (ts < released) {
            late++;
            out.accept(e);
            return;
        }
        held.add(new Held(e, arrivals++));
        newest = Math.max(newest, ts);
        while (!held.isEmpty() && held.peek().event.timestampNanos() <= newest - window) {
            release();
        }
    }

    /** Releases everything still held: the stream has ended. */
    void finish() {
        while (!held.isEmpty()) {
            release();
        }
    }

    /** @return events that arrived more than the window behind later ones and were released out of order */
    long late() {
        return late;
    }

    private void release() {
        MemoryEvent e = held.poll().event;
        released = Math.max(released, e.timestampNanos());
        out.accept(e);
    }

    private static final class Held implements Comparable<Held> {
        final MemoryEvent event;
        final long arrival;

        Held(MemoryEvent event, long arrival) {
            this.event = event;
            this.arrival = arrival;
        }

        @Override
        public int compareTo(Held o) {
            int c = Long.compare(event.timestampNanos(), o.event.timestampNanos());
            return c != 0 ? c : Long.compare(arrival, o.arrival);
        }
    }
}
