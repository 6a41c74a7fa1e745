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
 * <p>With span labels ({@link OtelSpans}: the application uses OpenTelemetry), a sample's entry also has the span
 * current on its thread at its time, known at once (the application's thread records each change before it takes
 * effect). Label cardinality: at most {@value #MAX_SPANS_PER_INTERVAL} distinct spans an interval; a sample of a
 * further span keeps its local root's name alone (at most {@value #MAX_SPAN_NAMES_PER_INTERVAL} names an interval,
 * beyond, no span label), counted ({@link #spanMetadata}).
 *
 * <p>Memory: at most {@value #MAX_ENTRIES} entries an interval; the samples of further (stack, thread) pairs are
 * added to one entry without a stack (counted: {@link #overflowed}). Thread-safe (one lock, held for an update or a
 * swap).
 */
final class PushTable {
    /** Entries an interval at most. */
    static final int MAX_ENTRIES = 16_384;
    /** Distinct spans labelled an interval at most (trace and span ids are as many as requests). */
    static final int MAX_SPANS_PER_INTERVAL = 8192;
    /** Distinct span names given to samples beyond {@link #MAX_SPANS_PER_INTERVAL} at most. */
    static final int MAX_SPAN_NAMES_PER_INTERVAL = 256;
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
        /** The OpenTelemetry span current when the sample was taken, or null. */
        OtelSpans.SpanLabel span;
        double objects;
        double bytes;

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.stackId == stackId && e.siteId == siteId
                    && e.threadNameId == threadNameId && e.scopePath == scopePath
                    && java.util.Objects.equals(e.span, span);
        }

        @Override
        public int hashCode() {
            return ((Long.hashCode(stackId * 31 + siteId) * 31 + threadNameId) * 31 + scopePath) * 31
                    + java.util.Objects.hashCode(span);
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
    private OtelSpans.SpanLabel[] waitingSpan;
    private int waitingFirst;
    private int waiting;
    /** Samples labelled with an unknown scope (a bound of the wait or of the scopes' history), since the start. */
    private long scopeUnknown;

    /** The spans samples are labelled with, or null. */
    private final OtelSpans spans;
    /** This interval's distinct spans, and names given alone beyond them. */
    private final java.util.HashSet<OtelSpans.SpanLabel> intervalSpans = new java.util.HashSet<>();
    private final HashMap<String, OtelSpans.SpanLabel> intervalNames = new HashMap<>();
    /** Samples whose span ids a bound left out (name kept), and whose span labels it left out altogether. */
    private long spanIdsDropped;
    private long spanLabelsDropped;
    private long spanUnknown;

    /** @param scopes the scopes to label samples with, or null */
    PushTable(long intervalBytes, PushScopes scopes) {
        this(intervalBytes, scopes, null);
    }

    /**
     * @param scopes the scopes to label samples with, or null
     * @param spans  the OpenTelemetry spans to label samples with, or null
     */
    PushTable(long intervalBytes, PushScopes scopes, OtelSpans spans) {
        weights = new SampleWeights(intervalBytes);
        this.scopes = scopes;
        this.spans = spans;
    }

    /** An ALLOCATE event of the recording: counted when it is a heap sample. */
    synchronized void allocated(long nanos, long threadId, long size, long stackId, int siteId, int threadNameId,
                                String typeName) {
        if (isNative(siteId, typeName)) {
            return;
        }
        OtelSpans.SpanLabel span = spans == null || spans.none() ? null : spans.at(threadId, nanos);
        if (scopes == null || waiting == 0 && scopes.noPathsYet()) {
            add(size, stackId, siteId, threadNameId, PushScopes.NONE, span);
            return;
        }
        if (nanos <= scopes.knownUntil()) { // its scope's edges are in: labelled now
            add(size, stackId, siteId, threadNameId, labelOf(threadId, nanos), span);
            return;
        }
        if (waitingTime == null) {
            waitingTime = new long[MAX_WAITING];
            waitingThread = new long[MAX_WAITING];
            waitingStack = new long[MAX_WAITING];
            waitingSite = new int[MAX_WAITING];
            waitingName = new int[MAX_WAITING];
            waitingSize = new long[MAX_WAITING];
            waitingSpan = new OtelSpans.SpanLabel[MAX_WAITING];
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
        waitingSpan[i] = span;
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
        add(waitingSize[i], waitingStack[i], waitingSite[i], waitingName[i], path, waitingSpan[i]);
        waitingSpan[i] = null;
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
            waitingSpan[to] = waitingSpan[from];
            waitingSpan[from] = null;
        }
    }

    private void add(long size, long stackId, int siteId, int threadNameId, int scopePath, OtelSpans.SpanLabel span) {
        double w = weights.weight(size);
        span = bounded(span);
        probe.stackId = stackId;
        probe.siteId = siteId;
        probe.threadNameId = threadNameId;
        probe.scopePath = scopePath;
        probe.span = span;
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
                e.span = span;
                entries.put(e, e);
            }
        }
        e.objects += w;
        e.bytes += size * w;
    }

    /** The span label within this interval's bounds (see the class comment). */
    private OtelSpans.SpanLabel bounded(OtelSpans.SpanLabel span) {
        if (span == null || intervalSpans.contains(span)) {
            return span;
        }
        if (span == OtelSpans.SpanLabel.UNKNOWN) {
            spanUnknown++;
            return span;
        }
        if (intervalSpans.size() < MAX_SPANS_PER_INTERVAL) {
            intervalSpans.add(span);
            return span;
        }
        OtelSpans.SpanLabel named = span.name() == null ? null : intervalNames.get(span.name());
        if (named == null && span.name() != null && intervalNames.size() < MAX_SPAN_NAMES_PER_INTERVAL) {
            named = new OtelSpans.SpanLabel(null, null, span.name());
            intervalNames.put(span.name(), named);
        }
        if (named != null) {
            spanIdsDropped++;
        } else {
            spanLabelsDropped++;
        }
        return named;
    }

    /** The span labels' counters: samples whose ids or whole span labels a bound left out, or with unknown spans. */
    synchronized void spanMetadata(Map<String, String> into) {
        into.put("push.spanIdsDropped", Long.toString(spanIdsDropped));
        into.put("push.spanLabelsDropped", Long.toString(spanLabelsDropped));
        into.put("push.spanUnknown", Long.toString(spanUnknown));
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
        intervalSpans.clear();
        intervalNames.clear();
        overflow = null;
        overflowed = 0;
        return t;
    }
}
