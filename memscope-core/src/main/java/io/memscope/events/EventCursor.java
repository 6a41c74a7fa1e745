package io.memscope.events;

import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.memscope.events.RingLayout.*;

/**
 * Reads the events of a ring file, in this process or another one, while the producer runs, after it exited
 * (preserved file) or after it was killed. The file is mapped read-only: a cursor never writes, so any number
 * of cursors read without disturbing each other or the producer.
 *
 * <p>{@link #poll(Callbacks)} reads, for each thread ring in slot order, the records between the cursor's
 * position and the ring's tail, and calls the callback of each record's kind. Each record is copied, then the
 * ring's head is re-read: if the writer overwrote the record meanwhile, it is discarded. When the writer lapped
 * the cursor, the cursor jumps to the head and reports the exact number of overwritten events through
 * {@link Callbacks#lost(long, long)} (the head's event sequence number minus the cursor's). A new cursor
 * starts at each ring's oldest record and reports the events already overwritten before it first looked as lost,
 * so that for every ring, events delivered plus events reported lost equals events written.
 *
 * <p>A file that is truncated, corrupted, of another version or not a ring file raises
 * {@link CorruptFileException} with the offset of the damage, from {@link #open(Path)} or from {@code poll}.
 * Not thread-safe: one cursor per reading thread.
 */
public final class EventCursor implements AutoCloseable {
    private final String path;
    private final Path file;
    private final ByteBuffer buf;
    private final long pid;
    private final long startEpoch;
    private final long startMono;
    private final int slotCount;
    private final int ringSize;
    private final int mask;
    private final int shift;
    private final long slotsOffset;
    private final SlotState[] slots;
    private final byte[] scratch = new byte[MAX_RECORD_BYTES];
    private final ByteBuffer payloadView = ByteBuffer.wrap(scratch).order(ByteOrder.LITTLE_ENDIAN).asReadOnlyBuffer();
    private final Map<String, CustomHandler<?>> handlers = new HashMap<>();
    private final Map<Long, String> threadNames = new ConcurrentHashMap<>();
    /** The event and type names, read from the names region as the producer adds them. */
    private final RingNames names;
    private long lost;
    private long firstLost;

    private EventCursor(Path file, ByteBuffer buf) {
        this.file = file;
        this.path = file.toString();
        this.buf = buf;
        RingHeader h = RingHeader.read(buf, path);
        pid = h.pid();
        startEpoch = h.startEpoch();
        startMono = h.startMono();
        slotCount = h.slotCount();
        ringSize = h.ringSize();
        slotsOffset = h.slotsOffset();
        names = new RingNames(buf, path, h.namesCapacity());
        mask = ringSize - 1;
        shift = Integer.numberOfTrailingZeros(ringSize);
        slots = new SlotState[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new SlotState();
        }
        names.refresh();
    }

    /** Opens a ring file by path. */
    public static EventCursor open(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE) {
                throw new CorruptFileException(file.toString(), 0, "file of " + size + " bytes is too large");
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            m.order(ByteOrder.LITTLE_ENDIAN);
            return new EventCursor(file, m);
        } catch (NoSuchFileException e) {
            throw MemscopeException.system("no events file " + file
                    + " (is the process running with runtime events started?)", e);
        } catch (IOException e) {
            throw MemscopeException.system("cannot read events file " + file + ": " + e, e);
        }
    }

    /** Reads a ring file image already in memory (tests, or bytes copied from elsewhere); {@code name} names it in errors. */
    static EventCursor of(Path name, ByteBuffer image) {
        ByteBuffer direct = ByteBuffer.allocateDirect(image.remaining()); // atomic views need a direct buffer
        direct.put(image.duplicate()).flip();
        return new EventCursor(name, direct.order(ByteOrder.LITTLE_ENDIAN));
    }

    /** Opens the ring file of process {@code pid} in the events directory ({@code MEMSCOPE_EVENTS_DIR} or default). */
    public static EventCursor open(long pid) {
        return open(fileOf(pid));
    }

    /** @return the path the ring file of {@code pid} has under the environment's settings */
    public static Path fileOf(long pid) {
        return EventsSettings.fromEnvironment().directory().resolve(pid + ".events");
    }

    /** Opens this process's ring file. @throws MemscopeException if runtime events are not started */
    public static EventCursor openCurrent() {
        Path p = RuntimeEvents.file();
        if (p == null) {
            throw MemscopeException.configuration("runtime events are not started in this process");
        }
        return open(p);
    }

    /** Decodes custom events of {@code type} (matched by type name in the file) and passes them to {@code handler}. */
    public <T> EventCursor onCustom(EventType<T> type, CustomHandler<T> handler) {
        handlers.put(type.name(), handler);
        return this;
    }

    /** Reads every available event. @return the number of events delivered */
    public int poll(Callbacks callbacks) {
        return poll(callbacks, Integer.MAX_VALUE);
    }

    /** Reads at most {@code max} events. @return the number of events delivered */
    public int poll(Callbacks callbacks, int max) {
        if (names.grown()) {
            names.refresh();
        }
        int n = 0;
        for (int i = 0; i < slotCount && n < max; i++) {
            SlotState st = slots[i];
            if (st.damaged) {
                continue;
            }
            try {
                n += pollSlot(i, callbacks, max - n);
            } catch (CorruptFileException damage) {
                // throws, unless the reader goes on with the other rings
                callbacks.damaged(st.reportedTid(), damage);
                st.damaged = true;
            }
        }
        return n;
    }

    private int slotBase(int slot) {
        return (int) (slotsOffset + (long) slot * (SLOT_HEADER_BYTES + ringSize));
    }

    private int pollSlot(int slot, Callbacks cb, int max) {
        SlotState st = slots[slot];
        int base = slotBase(slot);
        long tail = -1;
        for (int attempt = 0; attempt < 1000 && tail < 0; attempt++) {
            if (!readSlotHeader(st, base)) {
                return 0;
            }
            tail = (long) LONG.getAcquire(buf, base + S_TAIL);
            // a tail read after the header may already cover records of a later owner (the slot was freed and
            // claimed in between): such a claim published its generation before the records, so the state word
            // read now shows it, and the header is read again
            if ((long) LONG.getAcquire(buf, base + S_STATE) >>> 8 != st.gen) {
                tail = -1;
            }
        }
        if (tail < 0) {
            return 0; // the slot changed owner at every look: read it at the next poll
        }
        if (firstLost > 0) {
            lost += firstLost;
            cb.lost(st.reportedTid(), firstLost);
            firstLost = 0;
        }
        int data = base + SLOT_HEADER_BYTES;
        int n = 0;
        long unattributed = 0;
        while (st.pos < tail && n < max) {
            st.switchAt(st.pos);
            long head = (long) LONG.getAcquire(buf, base + S_HEAD);
            if (st.pos < head) {
                lapped(st, base, cb);
                continue;
            }
            if (tail - st.pos > ringSize) {
                throw corrupt(base + S_TAIL, "slot " + slot + ": tail " + tail + " is more than a ring ahead of "
                        + st.pos);
            }
            int roff = (int) (st.pos & mask);
            int off = data + roff;
            long w = buf.getLong(off);
            int len = length(w);
            int kind = kind(w);
            int alen = align8(len);
            long ts = 0;
            long value = 0;
            boolean sane = len >= 8 && len <= MAX_RECORD_BYTES && roff + alen <= ringSize;
            if (sane && kind != KIND_PADDING && len >= RECORD_HEADER_BYTES) {
                ts = buf.getLong(off + 8);
                if (kind == KIND_CUSTOM) {
                    int pl = len - RECORD_HEADER_BYTES;
                    for (int k = 0; k < pl; k++) {
                        scratch[k] = buf.get(off + RECORD_HEADER_BYTES + k);
                    }
                } else if (len >= 24) {
                    value = buf.getLong(off + 16);
                }
            }
            VarHandle.acquireFence();
            if (st.pos < (long) LONG.getAcquire(buf, base + S_HEAD)) {
                continue; // overwritten while we copied it: discard, the lapped path counts it
            }
            validate(slot, off, w, st.pos, sane);
            st.pos += alen;
            if (kind == KIND_PADDING) {
                continue;
            }
            st.seq++;
            if (st.tid == UNKNOWN_THREAD) {
                unattributed++; // written by an owner of the slot this cursor never saw: counted, not misattributed
                continue;
            }
            n++;
            dispatch(cb, st.tid, kind, id(w), ts, value, len - RECORD_HEADER_BYTES);
        }
        if (unattributed > 0) {
            lost += unattributed;
            cb.lost(0, unattributed);
        }
        return n;
    }

    private void validate(int slot, int off, long w, long pos, boolean sane) {
        int len = length(w);
        int kind = kind(w);
        String what = null;
        if (lap(w) != (int) ((pos >>> shift) & LAP_MASK)) {
            what = "lap " + lap(w) + " where " + ((pos >>> shift) & LAP_MASK) + " was expected";
        } else if (!sane) {
            what = "record length " + len + " does not fit the ring";
        } else {
            switch (kind) {
                case KIND_PADDING:
                    if ((pos & mask) + len != ringSize || (len & 7) != 0) {
                        what = "padding of " + len + " bytes does not end at the ring's end";
                    }
                    break;
                case KIND_SPAN_BEGIN:
                case KIND_SPAN_END:
                    if (len != RECORD_HEADER_BYTES) {
                        what = "span record of " + len + " bytes (16 expected)";
                    }
                    break;
                case KIND_LIFECYCLE:
                case KIND_COUNTER:
                    if (len != 24) {
                        what = "lifecycle/counter record of " + len + " bytes (24 expected)";
                    }
                    break;
                case KIND_CUSTOM:
                    if (len < RECORD_HEADER_BYTES || len > MAX_RECORD_BYTES) {
                        what = "custom record of " + len + " bytes";
                    }
                    break;
                default:
                    what = "unknown record kind " + kind;
            }
        }
        if (what != null) {
            throw corrupt(off, "slot " + slot + " position " + pos + ": " + what);
        }
    }

    private void dispatch(Callbacks cb, long tid, int kind, int id, long ts, long value, int payloadLength) {
        String name = names.eventName(id);
        switch (kind) {
            case KIND_SPAN_BEGIN:
                cb.spanBegin(tid, ts, name);
                break;
            case KIND_SPAN_END:
                cb.spanEnd(tid, ts, name);
                break;
            case KIND_LIFECYCLE:
                cb.lifecycle(tid, ts, name, value);
                break;
            case KIND_COUNTER:
                cb.counter(tid, ts, name, value);
                break;
            default: {
                String typeName = names.typeName(names.eventType(id));
                payloadView.limit(payloadLength).position(0);
                cb.custom(tid, ts, name, typeName, payloadView);
                CustomHandler<?> h = handlers.get(typeName);
                if (h != null) {
                    deliver(h, tid, ts, name, typeName, payloadLength);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private <T> void deliver(CustomHandler<T> h, long tid, long ts, String name, String typeName, int len) {
        EventType<T> type = (EventType<T>) EventType.byName(typeName);
        if (type != null) {
            h.event(tid, ts, name, type.decode(scratch, len));
        }
    }

    private void lapped(SlotState st, int base, Callbacks cb) {
        long[] hs = readHead(base);
        long missed = hs[1] - st.seq;
        st.pos = hs[0];
        st.seq = hs[1];
        if (missed > 0) {
            lost += missed;
            cb.lost(st.reportedTid(), missed);
        }
    }

    /**
     * Consistent (head, head sequence) under the slot's seqlock. Waits (spinning, then yielding) while the writer
     * is mid-update; only a writer that stays mid-update for {@value #SEQLOCK_PATIENCE_MS} ms (it died there, for
     * example killed) makes the reader use the values as they are.
     */
    private long[] readHead(int base) {
        long h = 0;
        long s = 0;
        long deadline = 0;
        for (int i = 0; ; i++) {
            long v1 = (long) LONG.getAcquire(buf, base + S_HEAD_VERSION);
            h = (long) LONG.getAcquire(buf, base + S_HEAD);
            s = (long) LONG.getAcquire(buf, base + S_HEAD_SEQ);
            long v2 = (long) LONG.getAcquire(buf, base + S_HEAD_VERSION);
            if (v1 == v2 && (v1 & 1) == 0) {
                break;
            }
            if (i < 64) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + SEQLOCK_PATIENCE_MS * 1_000_000L;
            } else if (now - deadline > 0) {
                break;
            }
            Thread.yield();
        }
        return new long[] {h, s};
    }

    static final long SEQLOCK_PATIENCE_MS = 500;

    /**
     * Reads state, thread id, start position, name and the previous generation's thread id, start position and
     * name consistently; false if the slot has nothing to read. A new generation queues the positions where the
     * ring's records change owner: the previous generation's start (when this cursor missed that generation) and
     * the new one's. Records of generations before those, which the header no longer describes, are read as lost.
     */
    private boolean readSlotHeader(SlotState st, int base) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            long s1 = (long) LONG.getAcquire(buf, base + S_STATE);
            int state = (int) (s1 & 0xFF);
            if (state == STATE_CLAIMING) {
                Thread.onSpinWait();
                continue;
            }
            long gen = s1 >>> 8;
            if (gen == 0 || state > STATE_CLAIMING) {
                if (state > STATE_CLAIMING) {
                    throw corrupt(base + S_STATE, "slot state " + state);
                }
                return false; // never used
            }
            if (gen == st.gen) {
                return true;
            }
            long tid = buf.getLong(base + S_TID);
            long startPos = buf.getLong(base + S_START_POS);
            String name = utf8(base + S_NAME_LEN, base + S_NAME, MAX_THREAD_NAME_BYTES);
            long prevTid = buf.getLong(base + S_PREV_TID);
            long prevStart = buf.getLong(base + S_PREV_START_POS);
            String prevName = utf8(base + S_PREV_NAME_LEN, base + S_PREV_NAME, MAX_PREV_THREAD_NAME_BYTES);
            VarHandle.acquireFence();
            if ((long) LONG.getAcquire(buf, base + S_STATE) != s1) {
                continue;
            }
            threadNames.put(tid, name);
            // a producer that did not fill in the previous generation leaves 0: its records are not attributable
            boolean prevKnown = gen >= 2 && prevTid != 0 && prevStart <= startPos;
            if (prevKnown) {
                threadNames.putIfAbsent(prevTid, prevName);
            }
            if (st.gen < 0) {
                long[] hs = readHead(base);
                st.pos = hs[0];
                st.seq = hs[1];
                if (hs[1] > 0) {
                    firstLost = hs[1]; // overwritten before this cursor first saw the ring
                }
                // the ring may still hold records of earlier owners, below this generation's start
                st.tid = gen == 1 ? tid : UNKNOWN_THREAD;
                st.resetSwitches();
                if (gen > 1) {
                    if (prevKnown) {
                        st.addSwitch(prevStart, prevTid);
                    }
                    st.addSwitch(startPos, tid);
                }
                st.switchAt(st.pos);
            } else {
                if (gen != st.gen + 1 && !(gen == st.gen + 2 && prevKnown)) {
                    // generations between the last one this cursor saw and the previous one came and went unseen:
                    // where the last seen one ended is unknown, so its records not yet read and theirs are nobody's
                    // until the next start the header gives
                    st.forgetLastOwner();
                }
                if (gen != st.gen + 1 && prevKnown) {
                    st.addSwitch(prevStart, prevTid);
                }
                st.addSwitch(startPos, tid);
            }
            st.gen = gen;
            return true;
        }
        return false;
    }

    private String utf8(int lengthOffset, int bytesOffset, int max) {
        int len = Math.min(buf.getShort(lengthOffset) & 0xFFFF, max);
        byte[] b = new byte[len];
        for (int k = 0; k < len; k++) {
            b[k] = buf.get(bytesOffset + k);
        }
        return new String(b, StandardCharsets.UTF_8);
    }
    private CorruptFileException corrupt(long offset, String what) {
        return new CorruptFileException(path, offset, what);
    }

    /** @return the pid of the process that wrote the file */
    public long pid() {
        return pid;
    }

    /** @return the file this cursor reads */
    public Path path() {
        return file;
    }

    /** @return the producer's start time, ns since the Unix epoch */
    public long startEpochNanos() {
        return startEpoch;
    }

    /** @return the producer's monotonic clock (ns) at {@link #startEpochNanos()} */
    public long startMonotonicNanos() {
        return startMono;
    }

    /** @return an event timestamp converted to ns since the Unix epoch (through the header's clock pair) */
    public long toEpochNanos(long timestamp) {
        return startEpoch + (timestamp - startMono);
    }

    /** @return the name of a thread seen by this cursor (as of its first event), or null */
    public String threadName(long threadId) {
        return threadNames.get(threadId);
    }

    /** @return thread ids and names seen so far */
    public Map<Long, String> threadNames() {
        return Map.copyOf(threadNames);
    }

    /** @return true once the producer stopped cleanly (it may still be running without events) */
    public boolean producerClosed() {
        return (int) INT.getAcquire(buf, H_CLOSED) == 1;
    }

    /** @return events the producer could not write: no free thread slot, or a re-entrant write */
    public long producerDropped() {
        return (long) LONG.getAcquire(buf, H_DROPPED);
    }

    /** @return events this cursor lost to lapping, in total */
    public long lostEvents() {
        return lost;
    }

    @Override
    public void close() {
        // The mapping is released when the cursor becomes unreachable; nothing is locked or written.
    }

    /** Thread id of records whose writer this cursor cannot know; they are counted lost. */
    private static final long UNKNOWN_THREAD = Long.MIN_VALUE;

    /**
     * What the cursor knows of one ring: its position, the generation it last read the header of, the thread that
     * wrote the records at the position, and the positions ahead where the owner changes (queued in order).
     */
    private static final class SlotState {
        /** Beyond this many queued owner changes (a cursor far behind a slot reused that often) the oldest are
         * merged into "unknown": their records are counted lost. */
        private static final int MAX_SWITCHES = 64;

        boolean damaged;
        long gen = -1;
        long tid;
        long pos;
        long seq;
        private final long[] switchPos = new long[MAX_SWITCHES];
        private final long[] switchTid = new long[MAX_SWITCHES];
        private int first;
        private int count;

        void resetSwitches() {
            first = 0;
            count = 0;
        }

        /** From {@code position} on, records are {@code threadId}'s. */
        void addSwitch(long position, long threadId) {
            if (count == MAX_SWITCHES) {
                tid = UNKNOWN_THREAD; // up to the next owner change, whose position stays known
                first = (first + 1) % MAX_SWITCHES;
                count--;
            }
            int i = (first + count) % MAX_SWITCHES;
            switchPos[i] = position;
            switchTid[i] = threadId;
            count++;
        }

        /** The latest known owner's records may end anywhere: from its start on they are nobody's. */
        void forgetLastOwner() {
            if (count == 0) {
                tid = UNKNOWN_THREAD;
            } else {
                switchTid[(first + count - 1) % MAX_SWITCHES] = UNKNOWN_THREAD;
            }
        }

        /** @return the thread id of the records at the position, 0 when unknown */
        long reportedTid() {
            return tid == UNKNOWN_THREAD ? 0 : tid;
        }

        /** Applies the owner changes at or before {@code position}. */
        void switchAt(long position) {
            while (count > 0 && switchPos[first] <= position) {
                tid = switchTid[first];
                first = (first + 1) % MAX_SWITCHES;
                count--;
            }
        }
    }

    /**
     * Receives decoded custom events of one {@link EventType}; register with
     * {@link EventCursor#onCustom(EventType, CustomHandler)}.
     *
     * @param <T> the payload type
     */
    @FunctionalInterface
    public interface CustomHandler<T> {
        void event(long threadId, long timestamp, String name, T value);
    }

    /**
     * What {@link EventCursor#poll(Callbacks)} calls for each event read, per kind. Every method has an empty
     * default: implement the ones you need. Names are the strings stored in the file (the same String instance for
     * every event of a name). Timestamps are monotonic nanoseconds; {@link EventCursor#toEpochNanos(long)} converts.
     * Thread ids are Java thread ids of the writing thread.
     */
    public interface Callbacks {
        default void spanBegin(long threadId, long timestamp, String name) {
        }

        default void spanEnd(long threadId, long timestamp, String name) {
        }

        default void lifecycle(long threadId, long timestamp, String name, long data) {
        }

        default void counter(long threadId, long timestamp, String name, long value) {
        }

        /**
         * Any custom event, whether or not its type is registered in this process.
         *
         * @param typeName the payload type's name as stored in the file ("unit", "int", "long", "span" or custom)
         * @param payload the payload bytes, read-only, valid only during the call
         */
        default void custom(long threadId, long timestamp, String name, String typeName, ByteBuffer payload) {
        }

        /**
         * The reader was lapped on this thread's ring: exactly {@code count} events were overwritten unread. Thread
         * id 0: events whose writer is unknown to this cursor, still in a ring whose slot passed through two or more
         * threads it never saw (short-lived threads, a grace period shorter than the polling interval); they are
         * counted here rather than attributed to another thread.
         */
        default void lost(long threadId, long count) {
        }

        /**
         * One thread's ring is damaged (what a writer never writes: a record that does not fit, a wrong lap). By default
         * the damage is thrown and the poll stops; a reader that returns instead goes on with the other rings, and that
         * ring is not read again by this cursor.
         *
         * @param threadId the ring's thread, as last known
         */
        default void damaged(long threadId, io.memscope.error.CorruptFileException damage) {
            throw damage;
        }
    }
}
