package io.memscope.recording;

import java.time.Instant;

/**
 * The file header of a recording: format version, flags, the clock pair and the recorded process.
 *
 * @param majorVersion            format major version (readers reject majors they do not know)
 * @param minorVersion            format minor version (newer minors only add skippable block types)
 * @param flags                   header flags; none are defined in 1.0
 * @param epochNanos              wall-clock time of the clock-pair instant, ns since 1970-01-01T00:00Z
 * @param nanoTime                {@link System#nanoTime()} of the recorded JVM at that same instant, ns
 * @param pid                     process id of the recorded JVM, 0 if unknown
 * @param processStartEpochMillis when the recorded process started, ms since the epoch, 0 if unknown
 */
public record RecordingHeader(int majorVersion, int minorVersion, int flags, long epochNanos, long nanoTime,
                              long pid, long processStartEpochMillis) {

    /** @return the wall-clock time of a {@code System.nanoTime()} timestamp of this recording, ns since the epoch */
    public long toEpochNanos(long timestampNanos) {
        return epochNanos + (timestampNanos - nanoTime);
    }

    /** @return the wall-clock instant of a {@code System.nanoTime()} timestamp of this recording, ns precision */
    public Instant toInstant(long timestampNanos) {
        long epoch = toEpochNanos(timestampNanos);
        return Instant.ofEpochSecond(Math.floorDiv(epoch, 1_000_000_000L), Math.floorMod(epoch, 1_000_000_000L));
    }
}
