package io.memscope.analysis;

import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.EventView;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;

/**
 * The chunks of a chunked recording that a report's window needs, chosen before anything is read but the chunks'
 * headers and the first blocks of the first chunk: those wholly before the window are left out (the first chunk read
 * carries their state: the allocations still outstanding, the collections the held rules need, the metadata), and
 * those wholly after it too (their events are all later than the window plus the reorder window of {@link TimeOrder},
 * beyond which an event counts as late anyway).
 *
 * <p>The window is in seconds from the run's start; the start is taken from the first chunk present (its metadata's
 * {@value MetadataKeys#START_NANOS}, written at every chunk's start, else chunk 1's header, whose {@code nanoTime} is
 * the capture's start). {@link RecordedRun} checks it against the metadata read and reads every chunk when it differs.
 * {@code --last} needs the run's end, known only at the end: the last chunk's start is a lower bound of it, which
 * leaves out fewer chunks but never one the window needs.
 */
final class ChunkWindow {
    private final ChunkSet chunks;
    private final long runStartNanos;

    private ChunkWindow(ChunkSet chunks, long runStartNanos) {
        this.chunks = chunks;
        this.runStartNanos = runStartNanos;
    }

    /** @return the chunks to read for {@code window}, or null to read them all (nothing to leave out) */
    static ChunkWindow of(ChunkSet all, TimeWindow window) {
        if (!window.restricted() || all.count() < 2) {
            return null;
        }
        long start = runStart(all);
        if (start == Long.MIN_VALUE) {
            return null;
        }
        long from = window.fromSeconds() == null ? Long.MIN_VALUE : start + Math.round(window.fromSeconds() * 1e9);
        if (window.lastSeconds() != null) {
            from = Math.max(from, all.startNanos(all.count() - 1) - Math.round(window.lastSeconds() * 1e9));
        }
        long to = window.toSeconds() == null ? Long.MAX_VALUE : start + Math.round(window.toSeconds() * 1e9);
        ChunkSet some = all.select(from, to, TimeOrder.WINDOW_NANOS);
        return some == all ? null : new ChunkWindow(some, start);
    }

    /** @return the chunks to read */
    ChunkSet chunks() {
        return chunks;
    }

    /** @return the run's start the chunks were chosen by */
    long runStartNanos() {
        return runStartNanos;
    }

    /**
     * @return the run's start as the first chunk present gives it before its events: its metadata's start, else its
     *         header's clock if it is chunk 1; {@link Long#MIN_VALUE} when neither
     */
    private static long runStart(ChunkSet all) {
        long[] start = {Long.MIN_VALUE};
        RecordingHeader[] header = new RecordingHeader[1];
        boolean[] events = new boolean[1];
        RecordingReader.stream(all.files().get(0), new RecordingVisitor() {
            @Override
            public void header(RecordingHeader h) {
                header[0] = h;
            }

            @Override
            public void metadata(String key, String value) {
                if (key.equals(MetadataKeys.START_NANOS) && !events[0]) {
                    try {
                        start[0] = Long.parseLong(value.trim());
                    } catch (NumberFormatException e) {
                        // not a start: as if absent
                    }
                }
            }

            @Override
            public void accept(EventView e) {
                events[0] = true;
            }

            @Override
            public boolean done() {
                return events[0] || start[0] != Long.MIN_VALUE;
            }
        });
        if (start[0] == Long.MIN_VALUE && all.firstIndex() == 1 && header[0] != null) {
            return header[0].nanoTime();
        }
        return start[0];
    }
}
