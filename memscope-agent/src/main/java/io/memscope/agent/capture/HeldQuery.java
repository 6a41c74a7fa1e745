package io.memscope.agent.capture;

import io.memscope.jmx.AgentClient.HeldGroup;
import io.memscope.recording.Site;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a window of time left behind in a capture, grouped by site and stack: sampled heap objects allocated in the
 * window and still there ({@link #heap}), native blocks allocated in the window and not freed
 * ({@link #nativeBlocks}).
 * Asked by a test (the JUnit extension, over the agent's MXBean) after the test ended and a full GC ran. A heap
 * object counts as held when a collection that examined the whole heap judged it and it is still there (reachable at
 * that collection: {@link LiveSites}); one still there that no such collection judged yet is unconfirmed, counted
 * apart: it may be garbage a young collection did not look at.
 *
 * <p>Heap figures are estimates from the samples (Horvitz-Thompson weights, as {@link LiveSites}); native figures
 * are exact. Each group is core's {@link HeldGroup}: the agent's MXBean returns it as it is.
 */
public final class HeldQuery {
    /** A group: one site and one stack. */
    private record Key(int site, long stack) {
    }

    private HeldQuery() {
    }

    /**
     * @param fromNanos first {@link System#nanoTime()} of the window (inclusive)
     * @param toNanos   end of the window (exclusive); objects allocated later are not judged
     * @param threadIds   allocating threads to include ({@code Thread.getId()})
     * @param threadsFrom also include every thread whose id is at least this: thread ids grow in creation order, so
     *                    these are the threads created after the window began ({@code 0}: every thread;
     *                    {@link Long#MAX_VALUE}: none)
     * @param max       groups to return at most, largest first
     * @return sampled objects allocated in the window by these threads still there now: held (a whole-heap
     *         collection judged them reachable) and unconfirmed, apart
     */
    public static List<HeldGroup> heap(CaptureSession session, long fromNanos, long toNanos, long[] threadIds,
                                        long threadsFrom, int max) {
        long[] threads = sorted(threadIds);
        Map<Key, double[]> sums = new HashMap<>(); // {bytes, objects, samples, unconfirmed bytes, samples}
        JvmtiHeapSampler jvm = session.jvmHeapSampler();
        Liveness liveness = session.liveness();
        session.awaitJudged(toNanos); // a whole-heap collection after the window, reported: its verdict first
        if (jvm != null) {
            // the JVM sampler's samples are tracked by its library, which judges reachability now
            long[] found = jvm.reachable(fromNanos, toNanos, threads, threadsFrom);
            if (found == null) {
                return List.of();
            }
            int n = JvmtiHeapSampler.HELD_LONGS;
            for (int i = 0; i + n - 1 < found.length; i += n) {
                long size = found[i + 2];
                add(sums, (int) found[i], found[i + 1], size, LiveSites.weight(size, jvm.mean()),
                        JvmtiLiveness.state(found[i + 3]) == LiveSites.CONFIRMED);
            }
        } else if (liveness != null) {
            liveness.forEachTracked(s -> {
                if (s.allocatedNanos - fromNanos < 0 || s.allocatedNanos - toNanos >= 0
                        || !wanted(threads, threadsFrom, s.threadId) || s.refersTo(null)) {
                    return;
                }
                add(sums, s.site, s.stack, s.size, s.weight, s.state == LiveSites.CONFIRMED);
            });
        }
        List<HeldGroup> out = new ArrayList<>();
        for (Map.Entry<Key, double[]> e : sums.entrySet()) {
            Key k = e.getKey();
            double[] a = e.getValue();
            SiteTable.Info i = SiteTable.get(k.site());
            out.add(new HeldGroup(name(i, k.site()), i == null || i.type == null ? "" : i.type, Math.round(a[0]),
                    Math.round(a[1]), (long) a[2], session.stackTable().frames(k.stack()), Math.round(a[3]),
                    (long) a[4]));
        }
        return top(out, max);
    }

    /**
     * @return native blocks allocated in the window by these threads (same parameters as {@link #heap}) that are
     *         still outstanding; empty when native memory is not tracked
     */
    public static List<HeldGroup> nativeBlocks(CaptureSession session, long fromNanos, long toNanos, long[] threadIds,
                                               long threadsFrom, int max) {
        NativeTracker nt = session.nativeTrackerIfEnabled();
        if (nt == null) {
            return List.of();
        }
        long[] threads = sorted(threadIds);
        Map<Key, long[]> sums = new HashMap<>(); // {bytes, blocks}
        nt.forEachOutstanding(b -> {
            if (b.allocatedNanos - fromNanos < 0 || b.allocatedNanos - toNanos >= 0 || !wanted(threads, threadsFrom, b.threadId)) {
                return;
            }
            long[] a = sums.computeIfAbsent(new Key(b.site, b.stack), k -> new long[2]);
            a[0] += b.size;
            a[1]++;
        });
        List<HeldGroup> out = new ArrayList<>();
        for (Map.Entry<Key, long[]> e : sums.entrySet()) {
            Key k = e.getKey();
            long[] a = e.getValue();
            SiteTable.Info i = SiteTable.get(k.site());
            out.add(new HeldGroup(name(i, k.site()), i == null || i.type == null ? "" : i.type, a[0], a[1], a[1],
                    session.stackTable().frames(k.stack())));
        }
        return top(out, max);
    }

    private static void add(Map<Key, double[]> sums, int site, long stack, long size, double weight,
                            boolean confirmed) {
        double[] a = sums.computeIfAbsent(new Key(site, stack), k -> new double[5]);
        if (confirmed) {
            a[0] += size * weight;
            a[1] += weight;
            a[2]++;
        } else {
            a[3] += size * weight;
            a[4]++;
        }
    }

    private static String name(SiteTable.Info i, int site) {
        return i == null ? "site#" + site : Site.frame(i.className, i.method, i.file, i.line);
    }

    private static long[] sorted(long[] ids) {
        long[] t = ids == null ? new long[0] : ids.clone();
        Arrays.sort(t);
        return t;
    }

    private static boolean wanted(long[] sortedThreads, long threadsFrom, long thread) {
        return thread >= threadsFrom || Arrays.binarySearch(sortedThreads, thread) >= 0;
    }

    private static List<HeldGroup> top(List<HeldGroup> all, int max) {
        all.sort((a, b) -> a.bytes() != b.bytes() ? Long.compare(b.bytes(), a.bytes())
                : a.unconfirmedBytes() != b.unconfirmedBytes() ? Long.compare(b.unconfirmedBytes(), a.unconfirmedBytes())
                : a.site().compareTo(b.site()));
        return all.size() > max ? new ArrayList<>(all.subList(0, Math.max(0, max))) : all;
    }
}
