package io.memscope.analysis;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.EventView;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import java.util.HashSet;
import java.util.Set;

/**
 * What the first read learns from the file's streams, which it does not keep: the events' count, first and
 * last timestamps and allocation windows, the threads with scope edges, whether API records are there.
 */
final class FirstReadStreams implements RecordingVisitor, RecordingReader.EventFold<FirstReadStreams.Part> {
    private final TimeWindow window;
    final AllocationWindows all = new AllocationWindows();
    /** The allocation windows inside the report's window (null: unrestricted, or its bounds not known in time). */
    AllocationWindows inWindow;
    private String startNanos;
    private RecordingHeader header;
    long eventCount;
    long firstNanos = Long.MAX_VALUE;
    long lastNanos = Long.MIN_VALUE;
    /** Threads with scope edges: a handful, not one entry per edge. */
    final Set<Long> scopeThreads = new HashSet<>();
    private long lastScopeThread = Long.MIN_VALUE;
    boolean apiRecords;

    FirstReadStreams(TimeWindow window) {
        this.window = window;
    }

    @Override
    public void header(RecordingHeader h) {
        header = h;
    }

    @Override
    public void metadata(String key, String value) {
        if (key.equals(MetadataKeys.START_NANOS)) {
            startNanos = value;
        }
    }

    /** The restricted window's bounds as decided at the first event ({@link #firstEvents}); null: none. */
    private long[] bounds;

    /** The first events in file order are reached: the report's window is placed as {@link #accept} would. */
    @Override
    public void firstEvents() {
        if (window.restricted()) {
            AllocationWindows w = windowBounds();
            bounds = w == null ? null : new long[] {w.from(), w.to()};
        }
    }

    @Override
    public Part part() {
        return new Part(bounds == null ? null : new AllocationWindows(bounds[0], bounds[1]));
    }

    @Override
    public void merge(Part p) {
        if (p.count == 0) {
            return; // as in order: the windows inside the report's window exist once an event was seen
        }
        eventCount += p.count;
        firstNanos = Math.min(firstNanos, p.firstNanos);
        lastNanos = Math.max(lastNanos, p.lastNanos);
        all.merge(p.all);
        if (p.inWindow != null) {
            if (inWindow == null) {
                inWindow = new AllocationWindows(bounds[0], bounds[1]);
            }
            inWindow.merge(p.inWindow);
        }
    }

    /** What one decoding thread learnt from its events: merged, it is what {@link #accept} learns of them all. */
    static final class Part implements RecordingReader.EventFold.Part {
        long count;
        long firstNanos = Long.MAX_VALUE;
        long lastNanos = Long.MIN_VALUE;
        final AllocationWindows all = new AllocationWindows();
        final AllocationWindows inWindow;

        Part(AllocationWindows inWindow) {
            this.inWindow = inWindow;
        }

        @Override
        public void add(io.memscope.MemoryEventType type, long t, int siteId) {
            count++;
            firstNanos = Math.min(firstNanos, t);
            lastNanos = Math.max(lastNanos, t);
            all.add(type, t, siteId);
            if (inWindow != null) {
                inWindow.add(type, t, siteId);
            }
        }
    }

    @Override
    public void accept(EventView e) {
        if (eventCount++ == 0 && window.restricted()) {
            inWindow = windowBounds();
        }
        long t = e.timestampNanos();
        firstNanos = Math.min(firstNanos, t);
        lastNanos = Math.max(lastNanos, t);
        all.add(e);
        if (inWindow != null) {
            inWindow.add(e);
        }
    }

    /**
     * @return the allocation windows to learn inside the report's window, as far as the run's start known so far
     *         places it: the metadata's {@value MetadataKeys#START_NANOS} if it came before the first event, else
     *         the header's clock pair (the agent writes its metadata after the first events, and the capture's
     *         start as the header's {@code nanoTime}); the report checks it is the start it uses
     *         ({@link AllocationWindows#covers}); null without either
     */
    private AllocationWindows windowBounds() {
        long start;
        if (startNanos != null) {
            try {
                start = Long.parseLong(startNanos.trim());
            } catch (NumberFormatException e) {
                return null;
            }
        } else if (header != null) {
            start = header.nanoTime();
        } else {
            return null;
        }
        long from = window.fromSeconds() == null ? start : start + Math.round(window.fromSeconds() * 1e9);
        long to = window.toSeconds() == null ? Long.MAX_VALUE : start + Math.round(window.toSeconds() * 1e9);
        return new AllocationWindows(from, to);
    }

    @Override
    public void scopePath(io.memscope.recording.ScopePath path) {
        apiRecords = true;
    }

    @Override
    public void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                          long taskId, long allocatedBytes) {
        apiRecords = true;
        if (threadId != lastScopeThread) { // edges come in runs of one thread: box only when it changes
            lastScopeThread = threadId;
            scopeThreads.add(threadId);
        }
    }

    @Override
    public void apiEvent(EventView e) {
        apiRecords = true;
    }
}
