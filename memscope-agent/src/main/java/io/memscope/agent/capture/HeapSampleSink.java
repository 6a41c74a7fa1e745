package io.memscope.agent.capture;

import io.memscope.internal.recording.EventColumns;

/**
 * Where the JVMTI sampler's drain thread puts heap samples and their collections, with their own times and threads
 * (the drain thread records them on behalf of the allocating threads), a drained batch at a time. String fields are
 * ids in the capture's string table. Called by the drain thread only; implementations must not throw.
 */
interface HeapSampleSink {
    /**
     * Events of the drain, in the order they happened to the drain: {@code ALLOCATE} for a sample taken (address:
     * the sample's id, 0 when its collection is not tracked; its thread, size, site, stack and exact type) and
     * {@code DEALLOCATE} for a tracked sample collected (time: the end of the collection that collected it, see
     * {@link JvmtiHeapSampler} for when that is exact; address: the sample's id; previous size: its lifetime in
     * nanoseconds; thread: the drain thread; no stack or type).
     *
     * @param batch read during the call only: the caller reuses it
     */
    void events(EventColumns batch);
}
