package io.memscope.agent.capture;

import io.memscope.internal.store.StringTable;
import io.memscope.launch.pprof.PprofWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One push interval's profile, as gzipped pprof ({@link PprofWriter}) with the sample types of Go's heap profiles
 * and one for native memory:
 *
 * <ul>
 *   <li>{@code alloc_objects}/count, {@code alloc_space}/bytes: estimated objects and bytes allocated during the
 *       interval (the heap samples the recording drain moved during it: {@link PushTable}), per stack, labelled
 *       {@code thread} (the allocating thread's name) and, when the sample was taken in a memscope scope,
 *       {@code scope} (the scope path open on that thread at the sample's time, {@code a/b/c}; {@code (unknown)}
 *       where a bound dropped the scope history that said: {@link PushScopes}); when the application uses
 *       OpenTelemetry, {@code span_id} and {@code span_name} (the local root span current on the thread at the
 *       sample's time, Pyroscope's span-profile labels) and {@code trace_id} ({@link OtelSpans});</li>
 *   <li>{@code inuse_objects}/count, {@code inuse_space}/bytes: held at the end of the interval, per allocation site
 *       (one frame: {@link LiveSites} keeps held figures per site, not per stack): reachable at the latest collection
 *       that examined the whole heap; memory no such collection has judged yet (unconfirmed) is not in it;</li>
 *   <li>{@code native_inuse_space}/bytes: native blocks (direct buffers, {@code Unsafe}, FFM arenas) allocated and not
 *       freed at the end of the interval, per stack;</li>
 *   <li>{@code malloc_inuse_space}/bytes: with malloc sampling, the estimated bytes malloc'd by native code and not
 *       freed at the end of the interval, per stack (native frames first), from the malloc samples
 *       ({@link MallocSampler}).</li>
 * </ul>
 *
 * Period {@code space}/bytes: the mean sampling interval. Memory: bounded by the interval's table
 * ({@link PushTable#MAX_ENTRIES}), the sites, and {@value #MAX_NATIVE_STACKS} native stacks.
 */
final class PushProfile {
    /** Native stacks per profile at most; blocks of further stacks are summed into one sample without a stack. */
    static final int MAX_NATIVE_STACKS = 4096;
    /** The sample types, in the order of each sample's values. */
    static final String[][] TYPES = {
        {"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"},
        {"native_inuse_space", "bytes"}, {"malloc_inuse_space", "bytes"},
    };

    private PushProfile() {
    }

    /**
     * @param natives the native tracker, or null when native memory is not tracked
     * @return the profile, gzipped
     */
    static byte[] build(PushTable.Taken allocated, PushScopes scopes, LiveSites live, NativeTracker natives,
                        MallocSampler malloc, StackTable stacks,
                        StringTable strings, long intervalBytes, long fromEpochMillis, long untilEpochMillis)
            throws IOException {
        PprofWriter w = new PprofWriter();
        for (String[] t : TYPES) {
            w.sampleType(t[0], t[1]);
        }
        w.period("space", "bytes", intervalBytes);
        w.time(fromEpochMillis * 1_000_000L, (untilEpochMillis - fromEpochMillis) * 1_000_000L);
        w.defaultSampleType("alloc_space");
        w.comment("memscope: alloc_* = estimated from samples during the interval; inuse_* = held per allocation "
                + "site (reachable at the latest whole-heap collection); native_inuse_space = native blocks not freed; "
                + "malloc_inuse_space = estimated from malloc samples, not freed");
        long[] locs = new long[1024];
        long[] values = new long[TYPES.length];
        Map<Integer, Long> siteLocations = new HashMap<>();
        for (PushTable.Entry e : allocated.entries.values()) {
            int n = locations(w, e.stackId, e.siteId, stacks, siteLocations, locs);
            values(values, Math.round(e.objects), Math.round(e.bytes), 0, 0, 0);
            OtelSpans.SpanLabel span = e.span;
            w.sample(locs, n, values, "thread", strings.get(e.threadNameId), "scope", scope(scopes, e.scopePath),
                    "span_id", span == null ? null : span.spanId(), "span_name", span == null ? null : span.name(),
                    "trace_id", span == null ? null : span.traceId());
        }
        PushTable.Entry o = allocated.overflow;
        if (o != null) {
            locs[0] = w.location("(other stacks: " + allocated.overflowedSamples + " samples beyond "
                    + PushTable.MAX_ENTRIES + " stacks)", "", 0);
            values(values, Math.round(o.objects), Math.round(o.bytes), 0, 0, 0);
            w.sample(locs, 1, values);
        }
        List<LiveSites.Usage> held = live.top(Integer.MAX_VALUE, LiveSites.Order.HELD);
        for (LiveSites.Usage u : held) {
            if (u.heldBytes() <= 0) {
                continue; // unconfirmed only: not held
            }
            int n = locations(w, 0, u.site(), stacks, siteLocations, locs);
            values(values, 0, 0, u.heldObjects(), u.heldBytes(), 0);
            w.sample(locs, n, values);
        }
        if (natives != null) {
            nativeSamples(w, natives, stacks, siteLocations, locs, values);
        }
        if (malloc != null) {
            for (long[] m : malloc.outstandingByStack()) { // {stack, site, bytes}
                int n = m[0] == 0 && m[1] == 0 ? 0 : locations(w, m[0], (int) m[1], stacks, siteLocations, locs);
                if (n == 0) {
                    locs[0] = w.location("(other malloc stacks)", "", 0);
                    n = 1;
                }
                values(values, 0, 0, 0, 0, 0);
                values[5] = m[2];
                w.sample(locs, n, values);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        w.writeGzipped(out);
        return out.toByteArray();
    }

    /** The {@code scope} label's value: the path's name; none outside a scope; {@code (unknown)} when not known. */
    private static String scope(PushScopes scopes, int path) {
        if (path == PushScopes.NONE || scopes == null) {
            return null;
        }
        String name = path == PushScopes.UNKNOWN ? null : scopes.name(path);
        return name == null ? "(unknown)" : name;
    }

    private static void values(long[] v, long allocObjects, long allocBytes, long inuseObjects, long inuseBytes,
                               long nativeBytes) {
        v[0] = allocObjects;
        v[1] = allocBytes;
        v[2] = inuseObjects;
        v[3] = inuseBytes;
        v[4] = nativeBytes;
        v[5] = 0;
    }

    /** Native blocks outstanding now, summed per (stack, site). */
    private static void nativeSamples(PprofWriter w, NativeTracker natives, StackTable stacks,
                                      Map<Integer, Long> siteLocations, long[] locs, long[] values) {
        Map<Long, long[]> byStack = new HashMap<>(); // stack (or -site) -> {bytes, site}
        long[] other = new long[1];
        natives.forEachOutstanding(new java.util.function.Consumer<NativeTracker.Block>() {
            @Override
            public void accept(NativeTracker.Block b) {
                long key = b.stack != 0 ? b.stack : -(long) b.site;
                long[] s = byStack.get(key);
                if (s == null) {
                    if (byStack.size() >= MAX_NATIVE_STACKS) {
                        other[0] += b.size;
                        return;
                    }
                    s = new long[] {0, b.site};
                    byStack.put(key, s);
                }
                s[0] += b.size;
            }
        });
        for (Map.Entry<Long, long[]> e : byStack.entrySet()) {
            long stack = e.getKey() > 0 ? e.getKey() : 0;
            int n = locations(w, stack, (int) e.getValue()[1], stacks, siteLocations, locs);
            values(values, 0, 0, 0, 0, e.getValue()[0]);
            w.sample(locs, n, values);
        }
        if (other[0] > 0) {
            locs[0] = w.location("(other native stacks)", "", 0);
            values(values, 0, 0, 0, 0, other[0]);
            w.sample(locs, 1, values);
        }
    }

    /** The locations of a stack, leaf first; of the site's frame alone when the stack is not known. */
    private static int locations(PprofWriter w, long stackId, int siteId, StackTable stacks,
                                 Map<Integer, Long> siteLocations, long[] locs) {
        List<String> frames = stackId == 0 ? null : stacks.frames(stackId);
        if (frames != null && !frames.isEmpty()) {
            int n = Math.min(frames.size(), locs.length);
            for (int i = 0; i < n; i++) {
                locs[i] = w.frame(frames.get(i));
            }
            return n;
        }
        Long loc = siteLocations.get(siteId);
        if (loc == null) {
            SiteTable.Info i = SiteTable.get(siteId);
            loc = i == null ? w.location("(unknown site)", "", 0)
                    : w.location((i.className == null ? "?" : i.className.replace('/', '.')) + "."
                            + (i.method == null ? "?" : i.method), i.file == null ? "" : i.file, Math.max(0, i.line));
            siteLocations.put(siteId, loc);
        }
        locs[0] = loc;
        return 1;
    }
}
