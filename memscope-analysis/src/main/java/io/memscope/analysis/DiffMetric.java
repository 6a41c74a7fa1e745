package io.memscope.analysis;

import java.util.Locale;

/** The figure {@code memscope diff} ranks and gates by. */
public enum DiffMetric {
    /** Heap bytes allocated ({@link SiteProfile#allocatedBytes()}, {@code totals.allocatedBytes}). */
    ALLOCATED,
    /** Heap bytes held at the end ({@link SiteProfile#liveBytes()}, {@code totals.heldAtEndBytes}). */
    LIVE,
    /** Heap bytes held at the peak collection ({@link SiteProfile#heldAtPeakBytes()}, {@code totals.peakHeldBytes}). */
    PEAK,
    /** Native bytes outstanding at the end ({@code native.outstandingBytes}). */
    NATIVE;

    /** @return the name on the command line and in JSON: {@code allocated}, {@code live}, {@code peak}, {@code native} */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return the metric named {@code s} (case-insensitive) */
    public static DiffMetric of(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }
}
