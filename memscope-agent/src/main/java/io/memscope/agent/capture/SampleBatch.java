package io.memscope.agent.capture;

import io.memscope.internal.recording.EventColumns;

/**
 * The events of one batch of the JVMTI sampler's drain thread (samples drained, or samples checked for collection),
 * handed to the {@link HeapSampleSink} at the batch's end, one call per batch: what records an event (the recording's
 * locks, checks and encoder) is then compiled once, for the sink's loop, instead of into every caller per sample.
 * Drain thread only.
 */
final class SampleBatch {
    /** The batch being filled. */
    final EventColumns events;
    private final HeapSampleSink sink;

    SampleBatch(int capacity, HeapSampleSink sink) {
        this.events = new EventColumns(capacity);
        this.sink = sink;
    }

    /** Hands the batch's events to the sink (none: nothing) and empties it, also when the sink throws. */
    void handOver() {
        if (events.size > 0) {
            try {
                sink.events(events);
            } finally {
                events.clear();
            }
        }
    }
}
