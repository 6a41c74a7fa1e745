/**
 * The recording file: memscope's persistent memory history. {@link io.memscope.recording.RecordingWriter}
 * streams events (it is an {@link io.memscope.store.EventSink}, so an {@code EventStore} drains into it), string
 * table entries, sites, stacks, GC records, site counts, metadata and anomalies into checksummed blocks;
 * {@link io.memscope.recording.RecordingReader} reads them back whole ({@link io.memscope.recording.Recording}) or
 * block by block ({@link io.memscope.recording.RecordingVisitor}), returning everything before any damage.
 * Layout: {@link io.memscope.recording.RecordingFormat} and {@code docs/formats/recording.md}.
 */
package io.memscope.recording;
