package io.memscope.events.jvm;

import io.memscope.events.Counter;
import io.memscope.events.EventsProducer;
import io.memscope.events.Lifecycle;
import io.memscope.events.Span;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;

import java.time.Instant;
import java.util.Map;

/**
 * The JFR bridge's mapping of JVM events to ring events, for one {@link JvmRuntimeEvents} bridge: writes each JFR
 * event as the ring events in {@link JvmRuntimeEvents}' table, names generic pauses from their collection
 * ({@link #pauseName}) and writes each event once whichever path delivered it. The bridge owns the JFR stream and
 * the chunk reads; this class owns what they deliver.
 *
 * <p>An event can reach it twice: through the stream and through a chunk file read
 * at start ({@link #EARLY_CHUNKS}: the recording's finished chunks, events before {@link #horizon}) or at exit
 * ({@link #EXIT_CHUNKS}: what the stream did not deliver before JFR's shutdown hook stopped it). Every event is
 * written once, keyed by a 64-bit hash of its type, gcId, name, duration, thread and heap-summary side:
 * <ul>
 *   <li>start: the keys of events before the horizon are kept in a set, dropped once the stream is past it;</li>
 *   <li>exit: the keys and end times of the last {@link #RECENT} events delivered are kept in two fixed arrays;
 *       a chunk event at exit is written if it ends after {@link #floor} (the end of the newest event that left
 *       those arrays) and its key is not in them.</li>
 * </ul>
 * In between, stream events are not looked up at all, and nothing per event is retained: the bridge's memory is
 * constant and it adds no old-to-young references for the collector to track on a GC-heavy workload.
 */
final class JfrEventMapper {
    static final java.util.List<String> NAMES = java.util.List.of("jdk.GCPhasePause", "jdk.GCPhasePauseLevel1",
            "jdk.GarbageCollection", "jdk.G1GarbageCollection", "jdk.GCHeapSummary", "jdk.ThreadStart",
            "jdk.ThreadEnd");
    static final int STREAM = 0;
    static final int EARLY_CHUNKS = 1;
    static final int EXIT_CHUNKS = 2;
    /** Delivered events remembered for the exit read. */
    static final int RECENT = 1024;
    /** Collections remembered for naming pauses (indexed by gcId modulo this). */
    static final int COLLECTIONS = 256;
    static final int MAX_PENDING = 256;
    /** The generic name JDK 17+ gives young and full pauses in jdk.GCPhasePause. */
    static final String GENERIC_PAUSE = "GC Pause";

    final Counter used;
    final Counter committed;
    final Counter sumOfPauses;
    final Lifecycle threadStart;
    final Lifecycle threadEnd;
    final EventsProducer producer;
    final Lifecycle firstObserved;
    long firstGcId = Long.MAX_VALUE;
    /** Per source (stream, early chunks, exit chunks): events written, duplicates skipped (MEMSCOPE_DEBUG). */
    final long[] counts = new long[6];
    volatile Instant horizon = Instant.MAX;
    /** Keys of events before the horizon; null once the stream delivered events well past it. */
    java.util.Set<Long> early = new java.util.HashSet<>();
    final long[] recentKey = new long[RECENT];
    final long[] recentEnd = new long[RECENT];
    long recentCount;
    /** Exit reads skip events ending at or before this (epoch ns): the stream delivered them. */
    long floor = Long.MIN_VALUE;
    /** Pauses named {@link #GENERIC_PAUSE}, held until their collection's name and cause are known. */
    final java.util.List<PendingPause> pending = new java.util.ArrayList<>();
    /** Per gcId modulo {@link #COLLECTIONS}: the gcId, its jdk.GarbageCollection name and cause, its G1 type. */
    final long[] collectionId = new long[COLLECTIONS];
    final String[][] collection = new String[COLLECTIONS][];
    final long[] g1TypeId = new long[COLLECTIONS];
    final String[] g1Type = new String[COLLECTIONS];
    /** Spans by JFR name, per category (no string concatenation per event). */
    final Map<String, Span> pauseSpans = new java.util.HashMap<>();
    final Map<String, Span> phaseSpans = new java.util.HashMap<>();
    final Map<String, Span> collectionSpans = new java.util.HashMap<>();

    JfrEventMapper(EventsProducer producer, Counter used, Counter committed, Counter sumOfPauses, Lifecycle threadStart,
             Lifecycle threadEnd) {
        this.producer = producer;
        this.firstObserved = producer.lifecycle("gc.firstObservedId");
        this.used = used;
        this.committed = committed;
        this.sumOfPauses = sumOfPauses;
        this.threadStart = threadStart;
        this.threadEnd = threadEnd;
        java.util.Arrays.fill(collectionId, -1);
        java.util.Arrays.fill(g1TypeId, -1);
    }

    /** No finished chunk was there to read at start: stream events need no start-up de-duplication. */
    synchronized void noEarlyChunks() {
        early = null;
    }

    /** @return true if a chunk read at exit should offer {@code e} (the stream may not have delivered it) */
    synchronized boolean isCandidateAtExit(RecordedEvent e) {
        return NAMES.contains(e.getEventType().getName()) && epochNanos(e.getEndTime()) > floor;
    }

    /** @return the event's identity: equal for the same event read through the stream or a chunk file */
    private static long key(RecordedEvent e, int type) {
        // not the start time: the stream and a chunk file convert ticks to time slightly differently
        long h = type;
        if (type <= 4) {
            h = h * 0x9E3779B97F4A7C15L + e.getLong("gcId");
        }
        if (type <= 2) {
            h = h * 0x9E3779B97F4A7C15L + java.util.Objects.toString(e.getString("name")).hashCode();
        } else if (type == 4) {
            h = h * 0x9E3779B97F4A7C15L + java.util.Objects.toString(e.getValue("when")).hashCode();
        } else if (type >= 5) {
            h = h * 0x9E3779B97F4A7C15L + threadId(e);
        }
        h = h * 0x9E3779B97F4A7C15L + e.getDuration().toNanos();
        h ^= h >>> 31;
        return h * 0xBF58476D1CE4E5B9L;
    }

    /** @return true if the event was delivered already (and remembers it otherwise) */
    private boolean duplicate(RecordedEvent e, int type, int source) {
        long end = epochNanos(e.getEndTime());
        java.util.Set<Long> early = this.early;
        boolean beforeHorizon = e.getStartTime().isBefore(horizon);
        long key = 0;
        if (source == EXIT_CHUNKS) {
            if (end <= floor) {
                return true;
            }
            key = key(e, type);
            int n = (int) Math.min(recentCount, RECENT);
            for (int i = 0; i < n; i++) {
                if (recentKey[i] == key) {
                    return true;
                }
            }
            if (early != null && early.contains(key)) {
                return true;
            }
        } else if (early != null && beforeHorizon) {
            key = key(e, type);
            if (!early.add(key)) {
                return true;
            }
        } else if (early != null && source == STREAM
                && e.getStartTime().isAfter(horizon.plusSeconds(10))) {
            // the stream delivers in time order: everything before the horizon is behind it
            this.early = null;
            floor = Math.max(floor, epochNanos(horizon));
        }
        int i = (int) (recentCount++ % RECENT);
        if (recentCount > RECENT) {
            floor = Math.max(floor, recentEnd[i]);
        }
        recentKey[i] = key != 0 ? key : key(e, type);
        recentEnd[i] = end;
        return false;
    }

    synchronized void accept(RecordedEvent e, int source) {
        String type = e.getEventType().getName();
        int typeIndex = NAMES.indexOf(type);
        if (typeIndex < 0 || duplicate(e, typeIndex, source)) {
            counts[source * 2 + 1]++;
            return;
        }
        counts[source * 2]++;
        long gcId = typeIndex <= 4 ? e.getLong("gcId") : -1;
        switch (type) {
            case "jdk.GCPhasePause": {
                if (gcId < firstGcId) {
                    firstGcId = gcId;
                    firstObserved.emit(gcId, toMono(e.getStartTime()));
                }
                String name = e.getString("name");
                long begin = toMono(e.getStartTime());
                long stop = toMono(e.getEndTime());
                if (GENERIC_PAUSE.equals(name)) {
                    pending.add(new PendingPause(gcId, begin, stop));
                    resolve(gcId);
                } else {
                    span(producer, pauseSpans, "gc.pause/", name, begin, stop);
                }
                break;
            }
            case "jdk.GCPhasePauseLevel1":
                span(producer, phaseSpans, "gc.phase/", e.getString("name"), toMono(e.getStartTime()),
                        toMono(e.getEndTime()));
                break;
            case "jdk.GarbageCollection": {
                String name = e.getString("name");
                String cause = e.getString("cause");
                int i = (int) (gcId & (COLLECTIONS - 1));
                collectionId[i] = gcId;
                String[] c = collection[i];
                if (c == null || !java.util.Objects.equals(c[0], name) || !java.util.Objects.equals(c[1], cause)) {
                    collection[i] = new String[] {name, cause}; // the same few pairs recur: rarely replaced
                }
                resolve(gcId);
                span(producer, collectionSpans, "gc.collection/", name + " (" + cause + ")", toMono(e.getStartTime()),
                        toMono(e.getEndTime()));
                sumOfPauses.set(e.getDuration("sumOfPauses").toNanos(), toMono(e.getEndTime()));
                break;
            }
            case "jdk.G1GarbageCollection": {
                int i = (int) (gcId & (COLLECTIONS - 1));
                g1TypeId[i] = gcId;
                g1Type[i] = e.getString("type");
                resolve(gcId);
                break;
            }
            case "jdk.GCHeapSummary": {
                long ts = toMono(e.getStartTime());
                used.set(e.getLong("heapUsed"), ts);
                committed.set(e.getLong("heapSpace.committedSize"), ts);
                break;
            }
            case "jdk.ThreadStart":
                threadStart.emit(threadId(e), toMono(e.getStartTime()));
                break;
            case "jdk.ThreadEnd":
                threadEnd.emit(threadId(e), toMono(e.getStartTime()));
                break;
            default:
        }
    }

    /**
     * Writes the held pauses of collection {@code gcId} once it is known (for a G1 young collection also its
     * type). JFR commits a pause, its jdk.GarbageCollection and jdk.G1GarbageCollection together, in either
     * order, so they reach the bridge together through whichever path (stream or chunk file) delivers them;
     * the two paths are not ordered with each other, so nothing is concluded from gcIds of other collections.
     */
    private void resolve(long gcId) {
        String[] gc = collectionOf(gcId);
        if (gc == null || ("G1New".equals(gc[0]) && g1TypeOf(gcId) == null)) {
            return;
        }
        for (java.util.Iterator<PendingPause> it = pending.iterator(); it.hasNext(); ) {
            PendingPause p = it.next();
            if (p.gcId == gcId) {
                writePause(p);
                it.remove();
            }
        }
        if (pending.size() > MAX_PENDING) {
            flushPending(true); // collection events are not arriving (not enabled in the recording read)
        }
    }

    private String[] collectionOf(long gcId) {
        int i = (int) (gcId & (COLLECTIONS - 1));
        return collectionId[i] == gcId ? collection[i] : null;
    }

    private String g1TypeOf(long gcId) {
        int i = (int) (gcId & (COLLECTIONS - 1));
        return g1TypeId[i] == gcId ? g1Type[i] : null;
    }

    private void writePause(PendingPause p) {
        span(producer, pauseSpans, "gc.pause/", pauseName(collectionOf(p.gcId), g1TypeOf(p.gcId)), p.begin, p.end);
    }

    /**
     * Writes the held pauses with what is known of their collections: a pause still unnamed after two more
     * flushes of the stream and at least {@link #PENDING_NANOS} after it arrived ({@link #stale}), or every pause when
     * {@code force} (exit), is written as it is.
     */
    synchronized void flushPending(boolean force) {
        long now = System.nanoTime();
        for (java.util.Iterator<PendingPause> it = pending.iterator(); it.hasNext(); ) {
            PendingPause p = it.next();
            if (force || stale(++p.flushes, now - p.heldSince)) {
                writePause(p);
                it.remove();
            }
        }
    }

    /**
     * The pause name {@code -Xlog:gc} prints, from the collection a generic JFR pause belongs to: {@code Pause
     * Young (<G1 type>) (<cause>)} for G1 young collections, {@code Pause Young (<cause>)} for Serial/Parallel
     * young, {@code Pause Full (<cause>)} for full collections; otherwise the generic name.
     */
    static String pauseName(String[] collection, String g1Type) {
        if (collection == null) {
            return GENERIC_PAUSE;
        }
        String gc = collection[0];
        String cause = collection[1] == null ? "" : " (" + collection[1] + ")";
        switch (gc) {
            case "G1New":
                return "Pause Young" + (g1Type == null ? "" : " (" + g1Type + ")") + cause;
            case "DefNew":
            case "ParallelScavenge":
                return "Pause Young" + cause;
            case "G1Full":
            case "SerialOld":
            case "ParallelOld":
            case "PSMarkSweep":
                return "Pause Full" + cause;
            default:
                return GENERIC_PAUSE;
        }
    }

    /** How long a pause waits for its collection's name at least (with {@link #stale}'s two flushes). */
    static final long PENDING_NANOS = 2_000_000_000L;

    /**
     * @return whether a held pause is written unnamed: more than two flushes of the stream since it arrived, and at
     *         least {@link #PENDING_NANOS}. Flushes alone are not time: a stream behind, or the last chunk read at the
     *         JVM's exit, delivers several in a row, and a pause whose collection came one segment later was written
     *         unnamed before pauses named after it
     */
    static boolean stale(int flushesSince, long heldNanos) {
        return flushesSince > 2 && heldNanos >= PENDING_NANOS;
    }

    /** A pause waiting for its name. */
    private static final class PendingPause {
        final long gcId;
        final long begin;
        final long end;
        /** {@link System#nanoTime()} when it arrived. */
        final long heldSince = System.nanoTime();
        int flushes;

        PendingPause(long gcId, long begin, long end) {
            this.gcId = gcId;
            this.begin = begin;
            this.end = end;
        }
    }

    private static long epochNanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** Writes span {@code prefix + name} from begin to end; spans are looked up by the JFR name alone. */
    private static void span(EventsProducer producer, Map<String, Span> spans, String prefix, String name, long begin,
                             long end) {
        Span s = spans.get(name);
        if (s == null) {
            s = producer.span(prefix + name);
            spans.put(name, s);
        }
        s.record(begin, end); // both edges or neither, even when events stop at exit meanwhile
    }

    private static long threadId(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        return t == null ? -1 : t.getJavaThreadId();
    }

    private static final long EPOCH0;
    private static final long MONO0;

    static {
        long m = System.nanoTime();
        Instant now = Instant.now();
        EPOCH0 = epochNanos(now);
        MONO0 = m;
    }

    /** Converts a JFR instant to {@link System#nanoTime()} nanoseconds. */
    static long toMono(Instant t) {
        return MONO0 + (epochNanos(t) - EPOCH0);
    }
}
