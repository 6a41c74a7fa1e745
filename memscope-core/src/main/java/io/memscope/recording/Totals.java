package io.memscope.recording;

/**
 * What the END block of a closed recording says.
 *
 * @param eventsWritten number of events in the file's EVENTS blocks (the reader checks it)
 * @param eventsDropped events that were recorded but are not in the file: dropped by a bounded store, refused by
 *                      the writer (unknown string id) or offered after an I/O failure
 * @param clean         true if the writer was closed normally, false after an I/O failure or an emergency close
 * @param endNanos      {@link System#nanoTime()} ns when the writer was closed
 */
public record Totals(long eventsWritten, long eventsDropped, boolean clean, long endNanos) {
}
