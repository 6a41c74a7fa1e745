package io.memscope.agent.capture;

import io.memscope.launch.StackWalk;
import java.nio.file.Path;
import java.util.List;

/**
 * What one capture records and how ({@link CaptureSession}).
 *
 * @param exact          count every allocation per site (the bytecode hooks) as well as sampling
 * @param intervalBytes  mean sampling interval in bytes
 * @param stackDepth     frames kept per sampled stack (0 = none)
 * @param nativeMemory   track native memory (the transformer instruments {@code Unsafe})
 * @param gc             record GC details (the JDK's GC notifications)
 * @param recording      the recording file to stream into, or null
 * @param flushMillis    how often the store is drained into the recording
 * @param debug          one line per flush on stderr
 * @param jvmti          sample with the JVM's own sampler (JVMTI) when it can start; else the bytecode hooks
 * @param include        the JVM sampler keeps samples whose site class starts with one of these (internal or
 *                       binary form; empty: all)
 * @param exclude        ... and drops those whose site class starts with one of these
 * @param includeJdk     the JVM sampler names a sample's site after its top frame even inside the JDK
 * @param queueBytes     the JVM sampler's queue (C ring) size
 * @param liveLimit      samples the JVM sampler tracks for collection at most
 * @param stackWalk      how the JVM sampler names a sample's stack
 * @param oversample     the JVM sampler asks the JVM for a sample every {@code intervalBytes / oversample} bytes and
 *                       keeps each with the probability that leaves one per {@code intervalBytes}; 0: auto
 *                       ({@link #jvmIntervalBytes})
 * @param ownDistances   the JVM sampler draws each thread's distance to its next sample itself (the sampler library's
 *                       sample_points.h says why)
 */
public record CaptureSettings(boolean exact, long intervalBytes, int stackDepth, boolean nativeMemory, boolean gc,
                              Path recording, long flushMillis, boolean debug, boolean jvmti, List<String> include,
                              List<String> exclude, boolean includeJdk, long queueBytes, int liveLimit,
                              StackWalk stackWalk, int oversample, boolean ownDistances) {

    /** The oversampling factor with {@code oversample=auto} on JDK 24 and older (their accounting around TLABs). */
    static final int OLD_JVM_OVERSAMPLE = 16;
    /** The JVM's interval is at least this when oversampling (unless the interval itself is smaller). */
    static final long MIN_JVM_INTERVAL = 1024;

    /**
     * The interval the JVM's sampler is given: {@code intervalBytes / factor}, at least {@value #MIN_JVM_INTERVAL}
     * bytes (or {@code intervalBytes} when smaller). The factor is {@code oversample}, or with auto
     * {@value #OLD_JVM_OVERSAMPLE} on a JVM of feature version 24 or older, whose heap sampler mis-counts the bytes
     * around allocations outside TLABs (fixed in JDK 25 by JDK-8356372), else 1.
     */
    public long jvmIntervalBytes(int featureVersion) {
        int factor = oversample > 0 ? oversample : featureVersion <= 24 ? OLD_JVM_OVERSAMPLE : 1;
        return Math.max(intervalBytes / factor, Math.min(intervalBytes, MIN_JVM_INTERVAL));
    }

    /** Defaults for everything but the recording: sample mode, 512 KiB, 64 frames, native and GC on, JVMTI. */
    public static CaptureSettings defaults(Path recording) {
        return new CaptureSettings(false, 512 * 1024, 64, true, true, recording, 1000, false, true, List.of(),
                List.of(), false, 1 << 20, 1 << 18, StackWalk.ON, 0, true);
    }

    /** @return these settings with the bytecode hooks instead of the JVM's sampler */
    public CaptureSettings bytecode() {
        return new CaptureSettings(exact, intervalBytes, stackDepth, nativeMemory, gc, recording, flushMillis, debug,
                false, include, exclude, includeJdk, queueBytes, liveLimit, stackWalk, oversample, ownDistances);
    }
}
