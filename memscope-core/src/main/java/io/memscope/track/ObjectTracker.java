package io.memscope.track;

import io.memscope.internal.error.Failures;
import io.memscope.internal.link.AgentLink;
import io.memscope.internal.scope.OwnAllocations;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/**
 * Named objects (memscope-rs's {@code track_var}): {@link #track} remembers an object's name, type, shallow size and
 * when it was tracked, and notices when the garbage collector reclaims it. It holds only a weak reference: tracking
 * never keeps an object alive.
 *
 * <p>Collections are noticed without a thread of its own: each call of this tracker (tracking another object,
 * reading) first takes the references the collector cleared. With the memscope agent, tracked objects are also
 * handed to it: it measures their size exactly, follows them from its own background thread and records their
 * allocation and collection as events named after them.
 *
 * <p>Bounded: at most {@code capacity} objects are followed at once (more are counted in {@link #dropped()} and
 * not tracked); of the collected ones the last {@value #KEPT_COLLECTED} are kept for {@link #objects()}, all are
 * counted. Never throws into the application.
 */
public final class ObjectTracker {
    /** Objects followed at once by default. */
    public static final int DEFAULT_CAPACITY = 10_000;
    /** Collected objects kept for {@link #objects()}. */
    public static final int KEPT_COLLECTED = 1000;
    private static volatile ObjectTracker global;

    private final int capacity;
    private final boolean linked;
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    private final Object lock = new Object();
    /** Live entries, a doubly linked list through {@link Ref#prev}/{@link Ref#next} (guarded by lock). */
    private Ref head;
    private int live;
    private final Tracked[] collected = new Tracked[KEPT_COLLECTED];
    private long tracked;
    private long collectedCount;
    private long dropped;
    private long invalid;

    private ObjectTracker(int capacity, boolean linked) {
        if (capacity < 1) {
            throw TrackText.badCapacity(capacity);
        }
        this.capacity = capacity;
        this.linked = linked;
    }

    /** A tracker of its own, not connected to the agent. */
    public static ObjectTracker create(int capacity) {
        return new ObjectTracker(capacity, false);
    }

    /** The tracker behind {@code Memscope.track}; it hands objects to the agent when one captures. */
    public static ObjectTracker global() {
        ObjectTracker t = global;
        if (t == null) {
            synchronized (ObjectTracker.class) {
                t = global;
                if (t == null) {
                    t = new ObjectTracker(DEFAULT_CAPACITY, true);
                    global = t;
                }
            }
        }
        return t;
    }

    /**
     * Starts following {@code object} under {@code name}. A null object, or a null or empty name, is counted
     * ({@link #invalid()}) and not tracked; the same object tracked twice is two entries. Never throws.
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    public void track(String name, Object object) {
        long token = OwnAllocations.begin();
        try {
            if (object == null || name == null || name.isEmpty()) {
                synchronized (lock) {
                    invalid++;
                }
                return;
            }
            long now = System.nanoTime();
            poll(now);
            if (linked && AgentLink.active()) {
                AgentLink.track(object, name);
            }
            Thread t = Thread.currentThread();
            Ref r = new Ref(object, queue, name, object.getClass().getTypeName(), ShallowSize.of(object),
                    ShallowSize.exact(object), now, t.getId(), t.getName());
            synchronized (lock) {
                if (live >= capacity) {
                    dropped++;
                    r.clear();
                    return;
                }
                tracked++;
                live++;
                r.next = head;
                if (head != null) {
                    head.prev = r;
                }
                head = r;
            }
        } catch (Throwable t) {
            Failures.report(TrackText.TRACK, t);
        } finally {
            OwnAllocations.end(token);
        }
    }

    /** Takes the entries whose objects were collected. */
    private void poll(long now) {
        Ref r = (Ref) queue.poll();
        if (r == null) {
            return;
        }
        synchronized (lock) {
            for (; r != null; r = (Ref) queue.poll()) {
                if (r.prev == null && head != r) {
                    continue; // dropped before it was linked
                }
                if (r.prev != null) {
                    r.prev.next = r.next;
                } else {
                    head = r.next;
                }
                if (r.next != null) {
                    r.next.prev = r.prev;
                }
                r.prev = null;
                r.next = null;
                live--;
                collected[(int) (collectedCount++ % KEPT_COLLECTED)] = r.record(now);
            }
        }
    }

    /**
     * @return the objects followed now (alive), then the last collected ones (newest first), after taking the
     *         collections noticed so far
     */
    public List<Tracked> objects() {
        poll(System.nanoTime());
        List<Tracked> out = new ArrayList<>();
        synchronized (lock) {
            for (Ref r = head; r != null; r = r.next) {
                out.add(r.record(-1));
            }
            long n = Math.min(collectedCount, KEPT_COLLECTED);
            for (long i = 1; i <= n; i++) {
                out.add(collected[(int) ((collectedCount - i) % KEPT_COLLECTED)]);
            }
        }
        return out;
    }

    /** @return objects tracked since start (not counting dropped or invalid calls) */
    public long tracked() {
        poll(System.nanoTime());
        synchronized (lock) {
            return tracked;
        }
    }

    /** @return tracked objects seen collected since start */
    public long collected() {
        poll(System.nanoTime());
        synchronized (lock) {
            return collectedCount;
        }
    }

    /** @return objects not tracked because {@code capacity} objects were followed already */
    public long dropped() {
        synchronized (lock) {
            return dropped;
        }
    }

    /** @return calls with a null object or a null or empty name */
    public long invalid() {
        synchronized (lock) {
            return invalid;
        }
    }

    /** A tracked object: a weak reference with what is known about it. */
    private static final class Ref extends WeakReference<Object> {
        final String name;
        final String type;
        final long size;
        final boolean exact;
        final long trackedAt;
        final long threadId;
        final String threadName;
        Ref prev;
        Ref next;

        Ref(Object o, ReferenceQueue<Object> q, String name, String type, long size, boolean exact, long trackedAt,
            long threadId, String threadName) {
            super(o, q);
            this.name = name;
            this.type = type;
            this.size = size;
            this.exact = exact;
            this.trackedAt = trackedAt;
            this.threadId = threadId;
            this.threadName = threadName;
        }

        Tracked record(long collectedAt) {
            return new Tracked(name, type, size, exact, trackedAt, collectedAt, threadId, threadName);
        }
    }

    /**
     * One object the application named with {@code Memscope.track(name, object)} (memscope-rs's {@code track_var}).
     *
     * @param name             the name the application gave (a variable, a cache, ...)
     * @param type             the object's class, as {@link Class#getTypeName()} ({@code byte[]}, {@code java.util.HashMap})
     * @param shallowBytes     the object's own size, header and fields, not what it refers to
     * @param sizeExact        false when {@code shallowBytes} is an estimate (instances measured without the agent)
     * @param trackedAtNanos   {@link System#nanoTime()} when it was tracked (taken as its allocation)
     * @param collectedAtNanos when memscope saw it collected, -1 while it is alive: the first look after the garbage
     *                         collector cleared it (any call of the tracker)
     * @param threadId         the thread that tracked it
     * @param threadName       that thread's name
     */
    public record Tracked(String name, String type, long shallowBytes, boolean sizeExact, long trackedAtNanos,
                                long collectedAtNanos, long threadId, String threadName) {

        /** @return true while the object has not been seen collected */
        public boolean alive() {
            return collectedAtNanos < 0;
        }

        /** @return nanoseconds from tracking to collection, or to {@code nowNanos} while alive */
        public long ageNanos(long nowNanos) {
            return (alive() ? nowNanos : collectedAtNanos) - trackedAtNanos;
        }
    }
}
