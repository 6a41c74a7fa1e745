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
 * <p>Memory: at most {@value #MAX_ENTRIES} entries an interval; the samples of further (stack, thread) pairs are
 * added to one entry without a stack (counted: {@link #overflowed}). Thread-safe (one lock, held for an update or a
 * swap).
 */
final class PushTable {
    /** Entries an interval at most. */
    static final int MAX_ENTRIES = 16_384;

    /** One (stack, site, thread)'s estimates. Its key fields are final once it is in the map. */
    static final class Entry {
        long stackId;
        int siteId;
        int threadNameId;
        double objects;
        double bytes;

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.stackId == stackId && e.siteId == siteId
                    && e.threadNameId == threadNameId;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(stackId * 31 + siteId) * 31 + threadNameId;
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

    PushTable(long intervalBytes) {
        weights = new SampleWeights(intervalBytes);
    }

    /** An ALLOCATE event of the recording: counted when it is a heap sample. */
    synchronized void allocated(long size, long stackId, int siteId, int threadNameId, String typeName) {
        if (isNative(siteId, typeName)) {
            return;
        }
        double w = weights.weight(size);
        probe.stackId = stackId;
        probe.siteId = siteId;
        probe.threadNameId = threadNameId;
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

    /** @return what was allocated since the last call, the table emptied */
    synchronized Taken take() {
        Taken t = new Taken(entries, overflow, overflowed);
        entries = new HashMap<>();
        overflow = null;
        overflowed = 0;
        return t;
    }
}
