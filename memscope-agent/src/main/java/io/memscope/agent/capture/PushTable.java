package io.memscope.agent.capture;

import java.util.HashMap;
import java.util.Map;

/**
 * The allocations of one push interval ({@link ProfilePusher}), per stack and allocating thread: the estimated
 * objects and bytes ({@link LiveSites#weight}: a sample of {@code s} bytes stands for {@code 1/p} objects and
 * {@code s/p} bytes) of the heap samples the recording drain moved into the recording since the last {@link #take}.
 * Fed by {@link RecordingStream} (under its lock) for every ALLOCATE event of a heap sample; native blocks and the
 * application's accounting events are left out (native memory goes into the push from the {@link NativeTracker}).
 *
 * <p>With scope labels ({@link PushScopes}: the application uses memscope's scopes), a sample goes into the entry of
 * its (stack, site, thread, scope path) once the scope edges up to its time are known: at once when they are, else
 * at the end of the next recording drain ({@link #edgesDrained}); at most {@value #MAX_WAITING} wait (beyond, the
 * oldest gets an unknown scope, counted).
 *
 * <p>Memory: at most {@value #MAX_ENTRIES} entries an interval; the samples of further (stack, thread) pairs are
 * added to one entry without a stack (counted: {@link #overflowed}). Thread-safe (one lock, held for an update or a
 * swap).
 */
final class PushTable {
    /** Entries an interval at most. */
    static final int MAX_ENTRIES = 16_384;
    /** Samples waiting for their scope at most. */
    static final int MAX_WAITING = 65_536;
    /**
     * How long after the edges around it are known a sample may still arrive and find its scope: a drain hands
     * samples over up to a drain period after they were taken (the JVM sampler's ring, the store's buffers), and the
     * scope history is kept this much longer.
     */
    static final long LATE_SAMPLE_NANOS = 5_000_000_000L;

    /** One (stack, site, thread)'s estimates. Its key fields are final once it is in the map. */
    static final class Entry {
        long stackId;
        int siteId;
        int threadNameId;
        /** The scope path open when the sample was taken: {@link PushScopes#NONE}, an id, or unknown. */
        int scopePath;
        double objects;
        double bytes;

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.stackId == stackId && e.siteId == siteId
                    && e.threadNameId == threadNameId && e.scopePath == scopePath;
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(stackId * 31 + siteId) * 31 + threadNameId) * 31 + scopePath;
        }
    }

    private final SampleWeights weights;
    /** Native sites ({@code native:} types), and sites known to be heap sites, by site id. */
    private final java.util.BitSet nativeSites = new java.util.BitSet();
    private final java.util.BitSet heapSites = new java.util.BitSet();
    private final Entry probe = new Entry();
    private HashMap<Entry, Entry> entries = new HashMap<>();
    private Entry overflow;
    private long overflowed;
    /** The scopes samples are labelled with, or null (no labels, no waiting). */
    private final PushScopes scopes;
    /** Samples waiting for their scope: a ring of {@link #MAX_WAITING}, allocated at the first. */
    private long[] waitingTime;
    private long[] waitingThread;
    private long[] waitingStack;
    private int[] waitingSite;
    private int[] waitingName;
    private long[] waitingSize;
    private int waitingFirst;
    private int waiting;
    /** Samples labelled with an unknown scope (a bound of the wait or of the scopes' history), since the start. */
    private long scopeUnknown;

    /** @param scopes the scopes to label samples with, or null */
    PushTable(long intervalBytes, PushScopes scopes) {
        weights = new SampleWeights(intervalBytes);
        this.scopes = scopes;
    }

    /** An ALLOCATE event of the recording: counted when it is a heap sample. */
    synchronized void allocated(long nanos, long threadId, long size, long stackId, int siteId, int threadNameId,
                                String typeName) {
        if (isNative(siteId, typeName)) {
            return;
        }
        if (scopes == null || waiting == 0 && scopes.noPathsYet()) {
            add(size, stackId, siteId, threadNameId, PushScopes.NONE);
            return;
        }
        if (nanos <= scopes.knownUntil()) { // its scope's edges are in: labelled now
            add(size, stackId, siteId, threadNameId, labelOf(threadId, nanos));
            return;
        }
        if (waitingTime == null) {
            waitingTime = new long[MAX_WAITING];
            waitingThread = new long[MAX_WAITING];
            waitingStack = new long[MAX_WAITING];
            waitingSite = new int[MAX_WAITING];
            waitingName = new int[MAX_WAITING];
            waitingSize = new long[MAX_WAITING];
        }
        if (waiting == MAX_WAITING) {
            settleFirst();
        }
        int i = (waitingFirst + waiting) % MAX_WAITING;
        waitingTime[i] = nanos;
        waitingThread[i] = threadId;
        waitingStack[i] = stackId;
        waitingSite[i] = siteId;
        waitingName[i] = threadNameId;
        waitingSize[i] = size;
        waiting++;
    }

    /**
     * Labels the waiting samples whose scope edges are known and adds them to their entries; then lets the scopes
     * forget what no waiting sample needs.
     */
    private void settle() {
        long known = scopes.knownUntil();
        long oldestLeft = Long.MAX_VALUE;
        int left = 0;
        int n = waiting;
        for (int k = 0; k < n; k++) {
            int i = (waitingFirst + k) % MAX_WAITING;
            if (waitingTime[i] <= known) {
                label(i, true);
            } else { // drains hand samples over out of time order: keep this one, compacted to the front
                int j = (waitingFirst + left) % MAX_WAITING;
                move(i, j);
                left++;
                oldestLeft = Math.min(oldestLeft, waitingTime[j]);
            }
        }
        waiting = left;
        long needed = Math.min(oldestLeft, known);
        if (needed > Long.MIN_VALUE + LATE_SAMPLE_NANOS) { // nothing known yet: nothing to forget
            scopes.forgetBefore(needed - LATE_SAMPLE_NANOS);
        }
    }

    /** Labels the oldest waiting sample (the wait is full): unknown, its edges are not known yet. */
    private void settleFirst() {
        int i = waitingFirst;
        label(i, false);
        waitingFirst = (waitingFirst + 1) % MAX_WAITING;
        waiting--;
    }

    private void label(int i, boolean known) {
        int path = known ? labelOf(waitingThread[i], waitingTime[i]) : PushScopes.UNKNOWN;
        if (!known) {
            scopeUnknown++;
        }
        add(waitingSize[i], waitingStack[i], waitingSite[i], waitingName[i], path);
    }

    private int labelOf(long threadId, long nanos) {
        int path = scopes.openAt(threadId, nanos);
        if (path == PushScopes.UNKNOWN) {
            scopeUnknown++;
        }
        return path;
    }

    /** A scope entry or exit the recording drain moved (before {@link #edgesDrained}). */
    synchronized void scopeEdge(long nanos, long threadId, boolean exit, int pathId) {
        if (scopes != null) {
            scopes.edge(nanos, threadId, exit, pathId);
        }
    }

    /**
     * The recording drain that started at {@code drainStartNanos} gave every scope edge it found: the samples waiting
     * for them are labelled now, so that the scope history needs to reach back only as far as a sample can arrive
     * late, not a whole push interval.
     */
    synchronized void edgesDrained(long drainStartNanos) {
        if (scopes != null) {
            scopes.drained(drainStartNanos);
            if (waiting > 0) {
                settle();
            }
        }
    }

    private void move(int from, int to) {
        if (from != to) {
            waitingTime[to] = waitingTime[from];
            waitingThread[to] = waitingThread[from];
            waitingStack[to] = waitingStack[from];
            waitingSite[to] = waitingSite[from];
            waitingName[to] = waitingName[from];
            waitingSize[to] = waitingSize[from];
        }
    }

    private void add(long size, long stackId, int siteId, int threadNameId, int scopePath) {
        double w = weights.weight(size);
        probe.stackId = stackId;
        probe.siteId = siteId;
        probe.threadNameId = threadNameId;
        probe.scopePath = scopePath;
        Entry e = entries.get(probe);
        if (e == null) {
            if (entries.size() >= MAX_ENTRIES) {
                overflowed++;
                if (overflow == null) {
                    overflow = new Entry();
                }
                e = overflow;
            } else {
                e = new Entry();
                e.stackId = stackId;
                e.siteId = siteId;
                e.threadNameId = threadNameId;
                e.scopePath = scopePath;
                entries.put(e, e);
            }
        }
        e.objects += w;
        e.bytes += size * w;
    }

    private boolean isNative(int siteId, String typeName) {
        if (siteId > 0) {
            if (heapSites.get(siteId)) {
                return false;
            }
            if (nativeSites.get(siteId)) {
                return true;
            }
            SiteTable.Info i = SiteTable.get(siteId);
            boolean n = i != null && nativeType(i.type);
            (n ? nativeSites : heapSites).set(siteId);
            return n;
        }
        return nativeType(typeName);
    }

    private static boolean nativeType(String type) {
        return type != null && type.startsWith(io.memscope.recording.Site.NATIVE_PREFIX);
    }

    /** @return samples labelled with an unknown scope since the start */
    synchronized long scopeUnknown() {
        return scopeUnknown;
    }

    /** @return the scopes samples are labelled with, or null */
    PushScopes scopes() {
        return scopes;
    }

    /** The interval's entries, and a new empty table for the next interval. */
    static final class Taken {
        final Map<Entry, Entry> entries;
        /** Samples of pairs beyond {@link #MAX_ENTRIES}, in one entry without stack or site; or null. */
        final Entry overflow;
        final long overflowedSamples;

        Taken(Map<Entry, Entry> entries, Entry overflow, long overflowedSamples) {
            this.entries = entries;
            this.overflow = overflow;
            this.overflowedSamples = overflowedSamples;
        }
    }

    /**
     * @return what was allocated since the last call, the table emptied; with scope labels, the samples whose scope
     *         is known by now (the others wait for the next call)
     */
    synchronized Taken take() {
        if (scopes != null && waiting > 0) {
            settle();
        }
        Taken t = new Taken(entries, overflow, overflowed);
        entries = new HashMap<>();
        overflow = null;
        overflowed = 0;
        return t;
    }
}
