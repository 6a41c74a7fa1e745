package io.memscope.recording;

/**
 * One garbage collection, as the recorded JVM reported it ({@code GarbageCollectionNotificationInfo} for the
 * agent), and what it examined.
 *
 * <p><b>What a collection examined.</b> A sampled object is known to be reachable only at a collection that looked
 * at it. A young collection looks at the young generation only: objects promoted into the old generation may have
 * become garbage since and stay in the heap until a collection that examines the old generation. A collection
 * that examined the whole heap ({@link Examined#WHOLE_HEAP}) judged every object allocated before its
 * {@link #snapshotNanos()}: those still present after its {@link #verdictNanos()} were reachable at that snapshot.
 * For a stop-the-world full collection the snapshot is its start; for a concurrent cycle (ZGC, Shenandoah, G1's
 * marking ended by Remark) it is the cycle's start, as objects allocated while it marks are kept whatever they are.
 *
 * @param startNanos        when it started, {@link System#nanoTime()} ns of the recorded JVM (the agent's
 *                          precision: about 1 ms, the JVM reports start times in milliseconds)
 * @param durationNanos     how long it took, ns (the agent's precision: 1 ms); for a stop-the-world collector the
 *                          pause
 * @param name              collector or collection name, for example {@code G1 Young Generation}; null if unknown
 * @param cause             cause, for example {@code G1 Evacuation Pause} or {@code System.gc()}; null if unknown
 * @param heapUsedBefore    heap bytes in use before the collection (all heap pools); 0 with heapUsedAfter and
 *                          heapCommitted when unknown
 * @param heapUsedAfter     heap bytes in use after the collection (all heap pools)
 * @param heapCommitted     heap bytes committed after the collection
 * @param action            the JVM's action text, for example {@code end of minor GC} or {@code end of major GC};
 *                          null if unknown (recordings of format 1.0 do not store it: GC_DETAILS block, format 1.1)
 * @param examined          what it examined ({@link Examined#UNKNOWN} in recordings before format 1.4: GC_SCOPE
 *                          block)
 * @param snapshotNanos     {@link Examined#WHOLE_HEAP}: objects allocated before this time were judged (at most
 *                          {@code startNanos}); otherwise {@code startNanos}
 * @param verdictNanos      from this time on the collection's verdict holds: what it freed has been cleared
 *                          (its start for a pause, its end for a concurrent cycle); at least {@code startNanos}
 */
public record GcRecord(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                       long heapUsedAfter, long heapCommitted, String action, Examined examined, long snapshotNanos,
                       long verdictNanos) {

    /** What a collection examined. */
    public enum Examined {
        /** Not known (a recording before format 1.4, a collector memscope does not know): treated as young. */
        UNKNOWN(0),
        /** The young generation only: it frees young garbage and proves nothing about older objects. */
        YOUNG(1),
        /** The whole heap: every object allocated before its snapshot was judged. */
        WHOLE_HEAP(2);

        /** The code in the recording (GC_SCOPE block). */
        public final int code;

        Examined(int code) {
            this.code = code;
        }

        /**
         * What a collection examined, from the name of the JVM's GC bean that reported it (HotSpot, JDK 17 to 25):
         * {@code Copy}, {@code PS Scavenge}, {@code G1 Young Generation} (young, mixed and concurrent-start pauses) and
         * {@code ZGC Minor Cycles} examine the young generation; {@code MarkSweepCompact}, {@code PS MarkSweep},
         * {@code G1 Old Generation} (full collections), {@code G1 Concurrent GC} (the Remark and Cleanup pauses that
         * end a G1 marking, JDK 20 and later), {@code ZGC Cycles} (non-generational), {@code ZGC Major Cycles} and
         * {@code Shenandoah Cycles} the whole heap (for the marking-end pauses, what their marking judged: see the
         * agent's documentation); anything else ({@code ... Pauses} beans, unknown collectors) is unknown.
         *
         * @return what a collection of that bean examined
         */
        public static Examined ofCollector(String name) {
            if (name == null) {
                return UNKNOWN;
            }
            switch (name) {
                case "Copy":
                case "PS Scavenge":
                case "ParNew":
                case "G1 Young Generation":
                case "ZGC Minor Cycles":
                    return YOUNG;
                case "MarkSweepCompact":
                case "PS MarkSweep":
                case "ConcurrentMarkSweep":
                case "G1 Old Generation":
                case "G1 Concurrent GC":
                case "ZGC Cycles":
                case "ZGC Major Cycles":
                case "Shenandoah Cycles":
                    return WHOLE_HEAP;
                default:
                    return UNKNOWN;
            }
        }

        /** @return the value of a code, or null for an unknown one */
        public static Examined ofCode(int code) {
            for (Examined e : values()) {
                if (e.code == code) {
                    return e;
                }
            }
            return null;
        }
    }

    public GcRecord {
        if (examined == null) {
            examined = Examined.UNKNOWN;
        }
    }

    /** A record without what it examined (before format 1.4): snapshot and verdict at its start. */
    public GcRecord(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                    long heapUsedAfter, long heapCommitted, String action) {
        this(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted, action,
                Examined.UNKNOWN, startNanos, startNanos);
    }

    /** A record without the action text (format 1.0). */
    public GcRecord(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                    long heapUsedAfter, long heapCommitted) {
        this(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted, null);
    }

    /** @return this record with what it examined */
    public GcRecord withExamined(Examined examined, long snapshotNanos, long verdictNanos) {
        return new GcRecord(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted,
                action, examined, snapshotNanos, verdictNanos);
    }

    /** @return this record with another action text */
    public GcRecord withAction(String action) {
        return new GcRecord(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted,
                action, examined, snapshotNanos, verdictNanos);
    }

    /** @return whether it examined the whole heap (its survivors allocated before its snapshot were reachable) */
    public boolean wholeHeap() {
        return examined == Examined.WHOLE_HEAP;
    }

    /** @return whether the JVM's heap figures are known (a collection without a notification has them all 0) */
    public boolean hasHeapFigures() {
        return heapUsedAfter != 0 || heapUsedBefore != 0 || heapCommitted != 0;
    }

    /**
     * @return true if this collection stopped the application for its whole duration; false for the concurrent
     *     cycles some collectors report as separate collections (names containing {@code Cycles}: {@code ZGC Cycles},
     *     {@code ZGC Major Cycles}, {@code Shenandoah Cycles}). {@code G1 Concurrent GC} (JDK 20 and later) reports
     *     G1's Remark and Cleanup pauses: pauses
     */
    public boolean isPause() {
        return name == null || !name.contains("Cycles");
    }
}
