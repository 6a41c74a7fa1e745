package io.memscope.analysis.export;

import io.memscope.analysis.Report;
import io.memscope.analysis.StackProfile;
import io.memscope.launch.MetadataKeys;
import io.memscope.launch.pprof.PprofWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The report's heap stacks as a pprof profile (gzipped {@code profile.proto}, written by memscope-launch's
 * {@link PprofWriter}, the encoder the agent's push uses too), with the sample types of Go's heap profiles, so that
 * {@code go tool pprof}, Grafana Pyroscope and the other pprof tools read it as a heap profile:
 *
 * <ul>
 *   <li>{@code alloc_objects}/count, {@code alloc_space}/bytes: allocated in the window (add up to
 *       {@code totals.allocatedObjects} / {@code totals.allocatedBytes});</li>
 *   <li>{@code inuse_objects}/count, {@code inuse_space}/bytes: held at the end (add up to
 *       {@code totals.heldAtEndBytes});</li>
 *   <li>{@code native_alloc_objects}/count, {@code native_alloc_space}/bytes: native blocks and bytes allocated in
 *       the window (add up to {@code native.allocations} / {@code native.allocatedBytes}), malloc's estimated from its
 *       samples;</li>
 *   <li>{@code native_inuse_objects}/count, {@code native_inuse_space}/bytes: native blocks and bytes outstanding at
 *       the end (add up to {@code native.outstandingBlocks} / {@code native.outstandingBytes}).</li>
 * </ul>
 *
 * <p>A heap stack's native values are 0 and a native stack's heap values are 0.
 *
 * <p>One sample per stack, locations leaf first; each frame {@code pkg.Class.method(File.java:LINE)} is a location
 * with one line of a function {@code pkg.Class.method} in file {@code File.java}. The allocated type is a label
 * {@code object type} (for tag filters; native stacks: {@code native:malloc}, {@code native:direct-buffer}...). A
 * native frame ({@code libz.so.1!inflateInit2_}) is a location of a function of that name with no file. Period:
 * {@code space}/bytes, the heap sampling interval ({@link #period}); none for a JFR input, whose allocation samples are
 * throttled by rate and weighted one by one, never taken every so many bytes.
 */
public final class PprofProfile {
    private PprofProfile() {
    }

    /**
     * @return the profile's period: memscope's mean heap sampling interval in bytes (metadata {@code intervalBytes});
     *         0 for a JFR recording (its samples have no byte period: JFR throttles them by rate, async-profiler's
     *         carry their own weights) or a recording that does not say it as a positive whole number, and then no
     *         period is written. The one rule for the period ({@code memscope export --format pprof} uses it).
     */
    public static long period(Report r) {
        if (r.recording().jfr()) {
            return 0;
        }
        String v = r.metadata().get(MetadataKeys.INTERVAL_BYTES);
        try {
            return v == null ? 0 : Math.max(0, Long.parseLong(v.strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * @param intervalBytes the period ({@link #period}); 0: none written
     * @param defaultMetric the sample type tools show first: {@code alloc-bytes}/{@code alloc-objects} choose
     *                      allocations, anything else {@code inuse_space}
     */
    public static void write(Report r, ExportMetric defaultMetric, long intervalBytes, long startEpochNanos,
                             OutputStream out) throws IOException {
        PprofWriter p = new PprofWriter();
        p.sampleType("alloc_objects", "count");
        p.sampleType("alloc_space", "bytes");
        p.sampleType("inuse_objects", "count");
        p.sampleType("inuse_space", "bytes");
        p.sampleType("native_alloc_objects", "count");
        p.sampleType("native_alloc_space", "bytes");
        p.sampleType("native_inuse_objects", "count");
        p.sampleType("native_inuse_space", "bytes");
        if (intervalBytes > 0) {
            p.period("space", "bytes", intervalBytes);
        }
        p.time(startEpochNanos, r.window().toNanos() - r.window().fromNanos());
        p.defaultSampleType(switch (defaultMetric) {
            case ALLOC_BYTES -> "alloc_space";
            case ALLOC_OBJECTS -> "alloc_objects";
            case LIVE_OBJECTS -> "inuse_objects";
            case NATIVE_BYTES -> "native_inuse_space";
            default -> "inuse_space";
        });
        p.comment("memscope heap profile: held = reachable at a GC (estimated from samples); native_*: native "
                + "memory (malloc estimated from samples)");
        String damaged = ExportDamage.note(r);
        if (damaged != null) {
            p.comment(damaged);
        }
        long[] locations = new long[64];
        long[] values = new long[8];
        for (StackProfile s : r.stacks()) {
            if (s.allocatedBytes() == 0 && s.allocatedObjects() == 0 && s.heldBytes() == 0 && s.heldObjects() == 0) {
                continue;
            }
            List<String> frames = s.frames();
            if (frames.size() > locations.length) {
                locations = new long[frames.size()];
            }
            for (int i = 0; i < frames.size(); i++) {
                locations[i] = p.frame(frames.get(i));
            }
            int at = s.nativeMemory() ? 4 : 0;
            java.util.Arrays.fill(values, 0);
            values[at] = s.allocatedObjects();
            values[at + 1] = s.allocatedBytes();
            values[at + 2] = s.heldObjects();
            values[at + 3] = s.heldBytes();
            p.sample(locations, frames.size(), values, "object type", s.type());
        }
        p.writeGzipped(out);
    }
}
