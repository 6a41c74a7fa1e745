package io.memscope.agent.capture;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The frame text of a capture's stacks by stack id, bounded: at most {@link #limit} stacks. The recording needs a
 * stack's text once, when its first event is written ({@link RecordingStream} then calls {@link #written}); after
 * that the text lives in the file, and the agent keeps it only to answer live queries and the push. So the table
 * keeps two generations: new and used stacks go into the current one; when it holds half the limit it becomes the
 * previous one and the stacks still in the previous one are dropped, those already written counted as evicted
 * ({@link #evicted}), those not yet written kept (moved into the new current generation). A stack of the previous
 * generation that is used again moves back into the current one, so stacks in use stay (a second-chance cache).
 * When every stack held is still unwritten and the table is full, a new stack is refused ({@link #refused}): its
 * samples are recorded without a stack, never with frames the recording cannot resolve.
 *
 * <pre>
 *   add/use ──► current (≤ limit/2) ──full──► previous ──next rotation──► dropped (written: evicted)
 *                  ▲                            │                       kept    (not written yet)
 *                  └──────── used again ────────┘
 * </pre>
 *
 * <p>Thread-safe: lookups are lock-free; adding a stack and rotating take the table's lock, and a lookup that
 * misses both generations looks again under the lock (a rotation may have been moving the stack).
 */
final class StackFrames {
    /** A stack's frames and whether the recording has them. */
    private static final class Entry {
        final List<String> frames;
        volatile boolean written;

        Entry(List<String> frames) {
            this.frames = frames;
        }
    }

    /** Stacks the agent keeps the text of at most unless told otherwise (option {@code maxStacks}). */
    static final int DEFAULT_LIMIT = 65_536;

    private volatile int limit = DEFAULT_LIMIT;
    private volatile Map<Long, Entry> current = new ConcurrentHashMap<>();
    /** Stacks added and their estimated bytes ({@link #bytes}); under this object's lock. */
    private long added;
    private long addedBytes;
    private volatile Map<Long, Entry> previous = new ConcurrentHashMap<>();
    private volatile long evicted;
    private volatile long refused;
    private volatile long lost;
    private volatile int highest;
    /** Stacks marked written so far, and their number at the last rotation. */
    private volatile long writes;
    private long writesAtRotation;
    /** Written stacks in the previous generation when it became the previous one. */
    private long previousWritten;

    /** Sets the most stacks held (at least 2); applies from the next stack added. */
    void limit(int max) {
        if (max < 2) {
            throw new IllegalArgumentException("maxStacks must be at least 2, not " + max);
        }
        limit = max;
    }

    int limit() {
        return limit;
    }

    /** @return whether the text of {@code id} is held (a use: a stack of the previous generation moves back) */
    boolean contains(long id) {
        return entry(id) != null;
    }

    /**
     * Adds a stack's text unless held.
     *
     * @return false when refused: the table is full of stacks the recording has not written yet
     */
    boolean add(long id, List<String> frames) {
        if (entry(id) != null) {
            return true;
        }
        synchronized (this) {
            if (entry(id) != null) {
                return true;
            }
            if (current.size() >= Math.max(1, limit / 2) && (previous.isEmpty() || previousWritten > 0
                    || writes != writesAtRotation)) {
                rotate(); // only when it makes room: a full table of unwritten stacks refuses without copying
            }
            if (current.size() + previous.size() >= limit && previousWritten > 0) {
                rotate(); // the stacks used again since the last rotation filled the current generation
            }
            if (current.size() + previous.size() >= limit) {
                refused++;
                return false;
            }
            current.put(id, new Entry(frames));
            added++;
            addedBytes += textBytes(frames);
            highest = Math.max(highest, current.size() + previous.size());
            return true;
        }
    }

    /**
     * Heap bytes of the stacks held, estimated: the stacks held times the mean size of the stacks added (each its
     * frame strings at their length, as if none were shared with another stack, its list and its map entry).
     */
    synchronized long bytes() {
        return added == 0 ? 0 : size() * (addedBytes / added);
    }

    private static long textBytes(List<String> frames) {
        long b = 96 + 16 + 4L * frames.size(); // map node, key and entry; the list
        for (String f : frames) {
            b += 40 + f.length(); // a String and its Latin-1 bytes
        }
        return b;
    }

    /** @return the frames of {@code id}, empty when not held */
    List<String> frames(long id) {
        Entry e = entry(id);
        if (e == null) {
            synchronized (this) {
                e = entry(id);
            }
        }
        return e == null ? List.of() : e.frames;
    }

    /**
     * The recording wrote the stack {@code id}: from now on it may be evicted.
     *
     * @return whether its text was held (false: the recording could not write its frames, counted in {@link #lost})
     */
    boolean written(long id) {
        Entry e = entry(id);
        if (e == null) {
            synchronized (this) {
                e = entry(id);
                if (e == null) {
                    lost++;
                    return false;
                }
            }
        }
        if (!e.written) {
            e.written = true;
            writes++; // racy increments may be lost: the count only tells whether there were any
        }
        return true;
    }

    /**
     * The recording starts over with no stack written (a new file or chunk whose dictionary restarts): every stack
     * held is unwritten again, so none is evicted before the new file has it.
     */
    synchronized void unwriteAll() {
        for (Entry e : current.values()) {
            e.written = false;
        }
        for (Entry e : previous.values()) {
            e.written = false;
        }
        previousWritten = 0;
        writesAtRotation = writes;
    }

    private Entry entry(long id) {
        Entry e = current.get(id);
        if (e != null) {
            return e;
        }
        Map<Long, Entry> p = previous;
        e = p.get(id);
        if (e != null && current.putIfAbsent(id, e) == null) {
            p.remove(id, e); // used again: into the current generation (racing rotations: see rotate)
        }
        return e;
    }

    /** Under the lock: the previous generation's written stacks go, its unwritten ones move into the new current. */
    private void rotate() {
        Map<Long, Entry> next = new ConcurrentHashMap<>();
        long dropped = 0;
        for (Map.Entry<Long, Entry> e : previous.entrySet()) {
            if (e.getValue().written) {
                dropped++;
            } else {
                next.put(e.getKey(), e.getValue());
            }
        }
        // A lock-free reader between these two writes sees neither the old current nor its entries in next; it
        // looks again under this lock (frames, written) or adds the stack again (add takes the lock too).
        Map<Long, Entry> old = current;
        long oldWritten = 0;
        for (Entry e : old.values()) {
            if (e.written) {
                oldWritten++;
            }
        }
        current = next;
        previous = old;
        evicted += dropped;
        previousWritten = oldWritten;
        writesAtRotation = writes;
    }

    /** @return stacks held now */
    int size() {
        return current.size() + previous.size();
    }

    /** @return the most stacks held at once */
    int highest() {
        return highest;
    }

    /** @return written stacks whose text was dropped to stay within the limit */
    long evicted() {
        return evicted;
    }

    /** @return new stacks refused because the table was full of unwritten ones (their samples have no stack) */
    long refused() {
        return refused;
    }

    /** A stack to write whose text is not held (see {@link #lost}); {@link #found} when it is written after all. */
    synchronized void missing() {
        lost++;
    }

    /** A stack counted {@link #missing} was written after all (its text came back). */
    synchronized void found() {
        lost--;
    }

    /** @return stacks the recording was to write but whose text was not held (recorded without frames) */
    long lost() {
        return lost;
    }

    /** Empties the table (the capture ended). */
    synchronized void clear() {
        current = new ConcurrentHashMap<>();
        previous = new ConcurrentHashMap<>();
    }
}
