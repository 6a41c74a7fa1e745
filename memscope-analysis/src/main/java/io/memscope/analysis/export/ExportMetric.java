package io.memscope.analysis.export;

import io.memscope.analysis.StackProfile;
import java.util.Locale;

/**
 * What a profile export counts per stack ({@code memscope export --metric}); names as async-profiler's and pprof's
 * conventions have them.
 */
public enum ExportMetric {
    /** Heap bytes allocated; over all stacks, {@code totals.allocatedBytes}. */
    ALLOC_BYTES("alloc-bytes", false),
    /** Heap objects allocated; over all stacks, {@code totals.allocatedObjects}. */
    ALLOC_OBJECTS("alloc-objects", false),
    /** Heap bytes held at the end (the last collection); over all stacks, {@code totals.heldAtEndBytes}. */
    LIVE_BYTES("live-bytes", false),
    /** Heap objects held at the end. */
    LIVE_OBJECTS("live-objects", false),
    /** Heap bytes held at the peak collection; over all stacks, {@code totals.peakHeldBytes}. */
    PEAK_BYTES("peak-bytes", false),
    /** Native bytes outstanding at the end; over all stacks, {@code native.outstandingBytes}. */
    NATIVE_BYTES("native-bytes", true);

    private final String label;
    private final boolean nativeMemory;

    ExportMetric(String label, boolean nativeMemory) {
        this.label = label;
        this.nativeMemory = nativeMemory;
    }

    /** @return the name on the command line */
    public String label() {
        return label;
    }

    /** @return the metric's value for a stack (0 for a stack of the other kind of memory) */
    public long value(StackProfile s) {
        if (s.nativeMemory() != nativeMemory) {
            return 0;
        }
        return switch (this) {
            case ALLOC_BYTES -> s.allocatedBytes();
            case ALLOC_OBJECTS -> s.allocatedObjects();
            case LIVE_BYTES -> s.heldBytes();
            case LIVE_OBJECTS -> s.heldObjects();
            case PEAK_BYTES -> s.heldAtPeakBytes();
            case NATIVE_BYTES -> s.heldBytes();
        };
    }

    /** @return the metric named {@code s} */
    public static ExportMetric of(String s) {
        String l = s.trim().toLowerCase(Locale.ROOT);
        for (ExportMetric m : values()) {
            if (m.label.equals(l)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown metric '" + s + "': alloc-bytes, alloc-objects, live-bytes, "
                + "live-objects, peak-bytes or native-bytes");
    }
}
