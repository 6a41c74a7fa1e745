package io.memscope.agent.capture;

import io.memscope.agent.boot.SamplerNatives;
import io.memscope.recording.RetentionWalk;
import java.util.ArrayList;
import java.util.List;

/**
 * Why sampled objects are held: a walk of the heap from the GC roots by the sampler library (heap_walk.h, JVMTI
 * {@code FollowReferences}), turned into a {@link RetentionWalk} for the recording.
 *
 * <p><b>Why a walk in the JVM, not a heap dump.</b> A heap dump stops the application for as long as it takes to
 * write the whole heap (not interruptible once started), needs that much free disk, and leaves the analysis to
 * identify memscope's sampled objects among all others. The walk stops the application once, for at most its time
 * budget (it aborts itself past it, like JFR's cutoff for its own path search), writes nothing but the paths of the
 * sampled objects (a few bytes per sample and per object on their paths), and can run at any moment of a capture
 * ({@code memscope paths <pid>}). Its costs: memory in the JVM for a node per object that can hold references (leaves
 * such as primitive arrays have none unless sampled) and an address table, about 32 bytes an object, bounded by the
 * memory budget, which is checked against the memory free on the machine and in the process's cgroup before the walk
 * starts; in the Java heap, its answer only (the paths' nodes and the samples, and the objects and recording bytes made
 * of them), which may take a quarter of the heap's free room ({@link #answerBytes}), checked before the walk starts
 * (the shortest paths go in first, those past the room are left out, their samples still reached); and time: the
 * JVM reports each reference through a callback, several times slower per object than JFR's own path search
 * (docs/benchmarks.md, "Paths from GC roots"), so the default budget covers heaps of a few million objects and stops on
 * larger ones, saying so.
 *
 * <p><b>As a reachability check.</b> A walk that completed ({@link RetentionWalk.Outcome#COMPLETE}) visited every
 * object reachable from the roots: a tracked sample it did not reach was unreachable at its safepoint, one it reached
 * was reachable, whatever generation it is in and whatever the last collection examined.
 *
 * <p>Runs with the drain thread excluded ({@link JvmtiHeapSampler#walkHeap}): no weak reference of the live table is
 * deleted meanwhile. Never throws.
 */
final class HeapWalk {
    /** What a walk may cost: its pause, and its memory in the JVM (the walk's nodes and the JVM's tags). */
    record Budget(long timeNanos, long memoryBytes) {
        /** The defaults: 2 s of pause, 256 MiB. */
        static final Budget DEFAULT = new Budget(2_000_000_000L, 256L << 20);
    }

    /** Indexes of the library's stats used here (heap_walk.h, HW_STAT_*: the full layout). */
    static final int OUTCOME = 0;
    static final int ERROR = 1;
    static final int PAUSE = 2;
    static final int NODES = 5;
    static final int TRACKED = 7;
    static final int REFERENCES = 6;
    static final int REACHED = 8;
    static final int MEMORY = 10;
    static final int OUTPUT_NODES = 13;
    static final int BUDGET = 14;
    static final int AVAILABLE = 15;
    static final int ANSWER_LIMIT = 17;
    static final int LEFT_OUT = 18;
    static final int STATS = 19;
    /** Longs per node and per sample in the library's answer. */
    private static final int NODE_LONGS = 5;
    private static final int SAMPLE_LONGS = 4;

    private HeapWalk() {
    }

    /**
     * Runs one walk now. The caller excludes the sampler's drain thread.
     *
     * @param trigger {@code end} or {@code on demand}
     */
    static RetentionWalk run(Budget budget, String trigger) {
        long started = System.nanoTime();
        long[] stats = new long[STATS];
        Object[] answer;
        Runtime rt = Runtime.getRuntime();
        long room = javaHeapRoom(rt.maxMemory(), rt.totalMemory() - rt.freeMemory());
        try {
            answer = SamplerNatives.walk(budget.timeNanos(), budget.memoryBytes(), answerBytes(room), stats);
        } catch (Throwable t) {
            return failed(started, trigger, "the heap walk failed: " + t);
        }
        long total = System.nanoTime() - started;
        if (answer == null) {
            return failed(started, trigger, why(stats, budget, room));
        }
        List<RetentionWalk.Node> nodes = nodes((long[]) answer[0], (String[]) answer[1]);
        List<RetentionWalk.Sample> samples = samples((long[]) answer[2]);
        RetentionWalk.Outcome outcome = RetentionWalk.Outcome.ofCode((int) stats[OUTCOME]);
        if (outcome == null) {
            outcome = RetentionWalk.Outcome.FAILED;
        }
        if (stats[ERROR] == -8) {
            return new RetentionWalk(started, 0, total, RetentionWalk.Outcome.COMPLETE, trigger,
                    "no sampled object was tracked: nothing to walk for", 0, 0, 0, List.of(), List.of());
        }
        String detail = switch (outcome) {
            case TIME_BUDGET -> "stopped at its time budget of " + millis(budget.timeNanos()) + " after visiting "
                    + stats[NODES] + " objects (" + stats[REFERENCES] + " references)";
            case MEMORY_BUDGET -> "stopped at its memory budget of " + mebibytes(stats[BUDGET]) + " after visiting "
                    + stats[NODES] + " objects (" + stats[REFERENCES] + " references)";
            default -> null;
        };
        if (stats[LEFT_OUT] > 0) {
            String leftOut = "the paths of " + stats[LEFT_OUT] + " reached samples were left out (root \"path left "
                    + "out\"): an answer holds at most " + stats[ANSWER_LIMIT] + " path nodes (a recording block's "
                    + "limit, and a quarter of the Java heap's free room, " + mebibytes(room) + ")";
            detail = detail == null ? "complete, but " + leftOut : detail + "; " + leftOut;
        }
        return new RetentionWalk(started, stats[PAUSE], total, outcome, trigger, detail, stats[NODES],
                stats[REFERENCES], stats[MEMORY], nodes, samples);
    }

    private static RetentionWalk failed(long started, String trigger, String why) {
        return new RetentionWalk(started, 0, System.nanoTime() - started, RetentionWalk.Outcome.FAILED, trigger, why,
                0, 0, 0, List.of(), List.of());
    }

    /**
     * The Java heap free for the walk's answer: the heap's limit less what it holds now, garbage included (so an
     * under-estimate between collections), 0 when nothing is known.
     */
    static long javaHeapRoom(long max, long used) {
        if (max <= 0 || max == Long.MAX_VALUE) {
            return 0;
        }
        return Math.max(0, max - used);
    }

    /**
     * The Java heap the answer may take: a quarter of the room, so that the application keeps the rest (the answer,
     * the objects made of it and its bytes in the recording are all the walk allocates in the Java heap; its tables
     * are C heap).
     */
    static long answerBytes(long room) {
        return room / 4;
    }

    /** A one-line reason from the library's error code. */
    static String why(long[] stats, Budget budget, long room) {
        long code = stats[ERROR];
        if (code == -9) {
            return "not enough free Java heap for the walk's answer: " + mebibytes(room) + " free, the answer may "
                    + "take a quarter of it, and the paths of " + stats[TRACKED] + " tracked samples need more (the walk "
                    + "did not start: no pause)";
        }
        if (code == -6) {
            return "not enough free memory for the walk: its budget is " + mebibytes(budget.memoryBytes())
                    + ", the machine and its cgroup have " + (stats[AVAILABLE] < 0 ? "an unknown amount"
                    : mebibytes(stats[AVAILABLE])) + " free (the walk takes at most half of it)";
        }
        if (code == -7) {
            return "no capture is running";
        }
        if (code == -5) {
            return "out of memory while walking the heap";
        }
        if (code == -1) {
            return "no JVMTI environment";
        }
        if (code > 0) {
            return "the heap walk failed: JVMTI error " + code;
        }
        return "the heap walk failed";
    }

    private static List<RetentionWalk.Node> nodes(long[] raw, String[] strings) {
        int n = raw.length / NODE_LONGS;
        List<RetentionWalk.Node> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int r = i * NODE_LONGS;
            int kindWord = (int) raw[r + 1];
            RetentionWalk.Kind kind = RetentionWalk.Kind.ofCode(kindWord & 0xFF);
            if (kind == null) {
                kind = RetentionWalk.Kind.OTHER;
            }
            int className = (int) raw[r + 3];
            int label = (int) raw[r + 4];
            nodes.add(new RetentionWalk.Node((int) raw[r], kind, (kindWord & 0x100) != 0,
                    className >= 0 && className < strings.length ? strings[className] : "?",
                    label >= 0 && label < strings.length ? strings[label] : null, raw[r + 2]));
        }
        return nodes;
    }

    private static List<RetentionWalk.Sample> samples(long[] raw) {
        int n = raw.length / SAMPLE_LONGS;
        List<RetentionWalk.Sample> samples = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int r = i * SAMPLE_LONGS;
            samples.add(new RetentionWalk.Sample(raw[r], (int) raw[r + 1], raw[r + 2], (int) raw[r + 3]));
        }
        return samples;
    }

    private static String millis(long nanos) {
        return (nanos / 1_000_000) + " ms";
    }

    private static String mebibytes(long bytes) {
        return (bytes >> 20) + " MiB";
    }
}
