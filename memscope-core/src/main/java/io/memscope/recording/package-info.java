/**
 * The recording file: memscope's persistent memory history. memscope's recording writer (internal)
 * streams events (it is an {@link io.memscope.recording.EventSink}, so an {@code EventStore} drains into it), string
 * table entries, sites, stacks, GC records, site counts, metadata and anomalies into checksummed blocks;
 * {@link io.memscope.recording.RecordingReader} reads them back whole ({@link io.memscope.recording.Recording}) or
 * block by block ({@link io.memscope.recording.RecordingVisitor}), returning everything before any damage.
 * Layout: {@code docs/formats/recording.md}.
 */
package io.memscope.recording;
