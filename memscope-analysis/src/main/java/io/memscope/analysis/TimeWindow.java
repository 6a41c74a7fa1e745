package io.memscope.analysis;

import io.memscope.error.MemscopeException;

/**
 * The part of a run a report covers, in seconds from the start of the run ({@code memscope report --from S
 * --to S}); null ends are the start and the end of the run.
 *
 * @param fromSeconds start, seconds from the start of the run, or null
 * @param toSeconds   end, seconds from the start of the run, or null
 */
public record TimeWindow(Double fromSeconds, Double toSeconds, Double lastSeconds) {
    /** The whole run. */
    public static final TimeWindow ALL = new TimeWindow(null, null);

    /** A window from {@code --from} to {@code --to} (either null). */
    public TimeWindow(Double fromSeconds, Double toSeconds) {
        this(fromSeconds, toSeconds, null);
    }

    /**
     * @param lastSeconds {@code --last}: the window begins this many seconds before the run's end (or at
     *                    {@code --from}, when that is later); null: not given
     */
    public TimeWindow {
        if (lastSeconds != null && (lastSeconds.isNaN() || lastSeconds <= 0)) {
            throw MemscopeException.configuration("--last must be a duration > 0: " + lastSeconds);
        }
        if (fromSeconds != null && (fromSeconds.isNaN() || fromSeconds < 0)) {
            throw MemscopeException.configuration("--from must be a number of seconds >= 0: " + fromSeconds);
        }
        if (toSeconds != null && (toSeconds.isNaN() || toSeconds < 0)) {
            throw MemscopeException.configuration("--to must be a number of seconds >= 0: " + toSeconds);
        }
        if (fromSeconds != null && toSeconds != null && toSeconds <= fromSeconds) {
            throw MemscopeException.configuration("--to (" + toSeconds + ") must be after --from (" + fromSeconds + ")");
        }
    }

    /** @return true when one end is set */
    public boolean restricted() {
        return fromSeconds != null || toSeconds != null || lastSeconds != null;
    }
}
