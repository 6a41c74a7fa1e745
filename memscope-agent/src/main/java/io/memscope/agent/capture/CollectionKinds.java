package io.memscope.agent.capture;

import io.memscope.recording.GcRecord.Examined;

/**
 * What each collection of a JVM examined, from the names of the JVM's GC beans (the collectors memscope knows on
 * JDK 17, 21 and 25), and, for G1's concurrent marking, from the order of the pauses.
 *
 * <table>
 * <caption>The mapping</caption>
 * <tr><th>collector</th><th>young only</th><th>whole heap</th></tr>
 * <tr><td>Serial</td><td>{@code Copy}</td><td>{@code MarkSweepCompact}</td></tr>
 * <tr><td>Parallel</td><td>{@code PS Scavenge}</td><td>{@code PS MarkSweep}</td></tr>
 * <tr><td>G1</td><td>{@code G1 Young Generation} (young, concurrent start, prepare mixed and mixed pauses)</td>
 *     <td>{@code G1 Old Generation} (full); the end of a concurrent marking: the Remark and Cleanup pauses
 *     ({@code G1 Concurrent GC} from JDK 20, pauses without a notification before)</td></tr>
 * <tr><td>ZGC (JDK 17, 21 without {@code -XX:+ZGenerational})</td><td></td><td>{@code ZGC Cycles}</td></tr>
 * <tr><td>ZGC generational (JDK 21 with {@code -XX:+ZGenerational}, 23 and later)</td>
 *     <td>{@code ZGC Minor Cycles}</td><td>{@code ZGC Major Cycles} (an explicit one judges every object allocated
 *     before its start; another only those allocated before the {@value #ZGC_MAX_YOUNG_AGE}th young collection before
 *     it: see {@code CollectionLog}'s cycle snapshot)</td></tr>
 * <tr><td>Shenandoah</td><td></td><td>{@code Shenandoah Cycles} (concurrent, degenerated and full cycles)</td></tr>
 * </table>
 * The {@code ... Pauses} beans of ZGC and Shenandoah report the pauses inside a cycle: they examine nothing by
 * themselves ({@link Examined#UNKNOWN}), their cycle does. Any other name is {@link Examined#UNKNOWN}, which
 * confirms nothing.
 *
 * <p><b>G1's marking.</b> A G1 marking judges the objects that were allocated before the pause that started it
 * (concurrent start, a young pause the JVM reports like any other: neither its notification nor JVMTI tells it apart);
 * objects allocated since are kept whatever they are. Its Remark pause clears the weak references of what it found
 * unreachable; its Cleanup pause follows. JDK 20 and later count both in the bean {@code G1 Concurrent GC}; before,
 * no bean counts them. A marking-end pause confirms anything only when the heap sampler saw it free a sampled object:
 * proof that the marking completed there (a Cleanup frees nothing; nor does a Remark whose marking restarts because
 * its mark stack overflowed; and a pause no bean counts may be another of the JVM's pauses that collected nothing).
 * A completed marking that freed no sampled object confirms nothing: sound, and the end-of-capture check judges later.
 *
 * <p>memscope does not know which young pause started the marking, so it takes as its snapshot a time that cannot be
 * later: the latest of the first young pause (or pause of unknown kind) after the previous completed marking and after
 * the last full collection (the marking started after both), and the allocation of the latest-allocated sampled object
 * the Remark freed (what a marking frees was allocated before it started), or after the start of the capture when memscope saw the JVM from its start. A marking whose start
 * memscope cannot bound (an attach during a marking) judges nothing memscope sampled. So samples allocated between
 * that pause and the marking's real start stay unconfirmed until the next whole-heap collection: held figures lag,
 * never overstate.
 *
 * <p>Not thread-safe: one owner (the collection log, under its lock; or the GC listener).
 */
final class CollectionKinds {
    /** The snapshot when no sample can have been judged: before every sample of the capture. */
    static final long NOTHING_JUDGED = Long.MIN_VALUE;

    /** Whether a G1 pause no bean counts is a Remark or Cleanup (JDK 17 to 19). */
    private final boolean unnamedMarkingEnds;
    /** Whether the first marking's start is bounded by the capture's start (the JVM was seen from its start). */
    private final boolean seenFromStart;
    private final long captureStartNanos;
    /** End of the last marking-end pause that completed a marking, of the last full collection; MIN_VALUE: none. */
    private long markingEndLast = Long.MIN_VALUE;
    private int markingEnds;
    private long lastFullEnd = Long.MIN_VALUE;
    /** Starts of recent pauses that may have started a marking (young ones, unknown ones), a ring. */
    private final long[] pauseStarts = new long[1024];
    private int pauseCount;

    /**
     * @param unnamedMarkingEnds the JVM runs G1 and no bean counts its marking-end pauses
                                 ({@link #unnamedPausesEndMarkings})
     * @param seenFromStart     the capture started with the JVM (no marking can be in progress at its start)
     * @param captureStartNanos the capture's start ({@link System#nanoTime()})
     */
    CollectionKinds(boolean unnamedMarkingEnds, boolean seenFromStart, long captureStartNanos) {
        this.unnamedMarkingEnds = unnamedMarkingEnds;
        this.seenFromStart = seenFromStart;
        this.captureStartNanos = captureStartNanos;
    }

    /**
     * @return whether a pause no bean counts may be the end of a marking: the JVM's GC beans are G1's and none of them
     *         counts the marking-end pauses (JDK 17 to 19). From JDK 20 {@code G1 Concurrent GC} counts them, so a pause
     *         no bean counts is something else (a pause of a collection whose bean collections were matched with
     *         another pause of the same cut): it examined nothing memscope can tell
     */
    static boolean unnamedPausesEndMarkings(Iterable<String> beanNames) {
        boolean g1 = false;
        for (String n : beanNames) {
            if (isMarkingEndBean(n)) {
                return false;
            }
            g1 |= n.startsWith("G1 ");
        }
        return g1;
    }

    /** @return what a collection reported by the bean of this name examined ({@link Examined#ofCollector}) */
    static Examined ofBean(String name) {
        return Examined.ofCollector(name);
    }

    /**
     * Young collections after which generational ZGC has promoted every object still alive (its page ages: eden,
     * 14 survivor ages, old), with one to spare.
     */
    static final int ZGC_MAX_YOUNG_AGE = 16;

    /** @return whether a bean's collections are generational ZGC's cycles (each begins with a young collection) */
    static boolean isGenerationalZgcCycle(String name) {
        return "ZGC Minor Cycles".equals(name) || "ZGC Major Cycles".equals(name);
    }

    /**
     * @return whether a generational ZGC major cycle of this cause promotes every young object before it marks the old
     *         generation (an explicit request: {@code System.gc()}, {@code jcmd GC.run}, a heap dump or inspection,
     *         JVMTI's {@code ForceGarbageCollection}, WhiteBox), so that it judges every object
     */
    static boolean promotesAll(String cause) {
        return cause != null && switch (cause) {
            case "System.gc()", "Diagnostic Command", "Heap Dump Initiated GC", "Heap Inspection Initiated GC",
                 "JvmtiEnv ForceGarbageCollection", "WhiteBox Full GC" -> true;
            default -> false;
        };
    }

    /** @return whether a bean's collections are concurrent cycles (not pauses): records of their own */
    static boolean isCycleBean(String name) {
        return name != null && name.contains("Cycles");
    }

    /** @return whether a bean is G1's marking-end bean (Remark and Cleanup pauses, JDK 20 and later) */
    static boolean isMarkingEndBean(String name) {
        return "G1 Concurrent GC".equals(name);
    }

    /**
     * A pause, in the order they happened, with what is known of it: the names of the beans that reported a
     * collection inside it (none: G1's Remark and Cleanup before JDK 20), or unknown.
     *
     * @param beans  the beans that counted a collection in this pause; null when not known (the pause's beans could
     *               not be told)
     * @param freed  sampled objects the pause was seen to free (0 when not known: a marking end then confirms nothing)
     * @param latestFreedAllocation the allocation time of the latest-allocated of them ({@link Long#MIN_VALUE}: none)
     * @return what it examined and, when the whole heap, its snapshot (else its start): {@code long[] {examined
     *         code, snapshot}}
     */
    long[] pause(long startNanos, long endNanos, String[] beans, int freed, long latestFreedAllocation) {
        Examined examined = Examined.UNKNOWN;
        boolean markingEnd = false;
        boolean full = false;
        if (beans != null) {
            if (beans.length == 0) {
                markingEnd = unnamedMarkingEnds; // a G1 pause no bean counts: Remark or Cleanup (JDK 17 to 19)
            }
            for (String b : beans) {
                Examined e = ofBean(b);
                if (isMarkingEndBean(b)) {
                    markingEnd = true;
                } else if (e == Examined.WHOLE_HEAP) {
                    full = true;
                } else if (e == Examined.YOUNG && examined == Examined.UNKNOWN) {
                    examined = Examined.YOUNG;
                }
            }
        }
        if (markingEnd && examined == Examined.YOUNG && !full) {
            // the marking-end bean and a young one both placed in this pause (a cut of several pauses, matched
            // ambiguously): a pause is one or the other, which is not known; neither a young collection's label nor
            // a marking's verdict (what it freed may be young garbage)
            markingEnd = false;
            examined = Examined.UNKNOWN;
        }
        long snapshot = startNanos;
        // a marking end that freed nothing proves nothing: a Cleanup, a Remark whose marking restarts (mark stack
        // overflow), or (no bean counts it) another pause of the JVM's that did no collecting
        boolean completedMarking = markingEnd && freed > 0;
        if (full) {
            examined = Examined.WHOLE_HEAP;
        } else if (completedMarking) {
            examined = Examined.WHOLE_HEAP;
            long bound = Math.max(markingEndLast, lastFullEnd);
            if (bound == Long.MIN_VALUE) {
                // no marking completed since the capture started: the capture's start bounds this one, if no marking
                // can have been running then
                snapshot = seenFromStart ? firstPauseAfter(captureStartNanos) : NOTHING_JUDGED;
            } else {
                snapshot = firstPauseAfter(bound);
            }
            // A Remark frees only what its marking found unreachable, all of it allocated before the marking started
            // (objects allocated since are kept): the latest of them bounds the start as well, often more tightly.
            if (snapshot != NOTHING_JUDGED && latestFreedAllocation != Long.MIN_VALUE) {
                snapshot = Math.max(snapshot, Math.min(startNanos, latestFreedAllocation + 1));
            }
        }
        if (beans == null || examinedYoung(beans)) {
            remember(startNanos); // a pause that may have started a marking: a young one, or one not known
        }
        if (full) {
            lastFullEnd = endNanos;
        } else if (completedMarking) {
            markingEndLast = endNanos;
            markingEnds++;
        }
        return new long[] {examined.code, examined == Examined.WHOLE_HEAP ? snapshot : startNanos};
    }

    private static boolean examinedYoung(String[] beans) {
        for (String b : beans) {
            if (ofBean(b) == Examined.YOUNG) {
                return true;
            }
        }
        return false;
    }

    private void remember(long startNanos) {
        pauseStarts[pauseCount % pauseStarts.length] = startNanos;
        pauseCount++;
    }

    /**
     * @return the start of the first pause remembered that started after {@code bound}, or {@link #NOTHING_JUDGED}
     *         when there is none (the pause that started the marking was not seen) or the ring no longer reaches that
     *         far back (a marking longer than the last 1024 pauses)
     */
    private long firstPauseAfter(long bound) {
        int kept = Math.min(pauseCount, pauseStarts.length);
        long first = Long.MAX_VALUE;
        boolean older = false;
        for (int i = pauseCount - kept; i < pauseCount; i++) {
            long s = pauseStarts[i % pauseStarts.length];
            if (s > bound) {
                first = Math.min(first, s);
            } else {
                older = true;
            }
        }
        if (first == Long.MAX_VALUE || !older && pauseCount > kept) {
            return NOTHING_JUDGED;
        }
        return first;
    }

    /** @return marking-end pauses seen */
    int markingEnds() {
        return markingEnds;
    }
}
