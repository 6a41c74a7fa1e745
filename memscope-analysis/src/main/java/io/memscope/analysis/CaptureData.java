package io.memscope.analysis;

import io.memscope.MemoryEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything one capture (one JVM's run under the agent, or one recording file) holds, in the form the
 * {@link ReportBuilder} reads: metadata, the site and stack tables, the memory events, exact per-site counts,
 * GC records, native anomalies and memscope's own failures.
 *
 * <p>Heap events: {@code ALLOCATE} for a sampled object (address = sample id, size = the object's bytes, site,
 * stack and exact type name) and {@code DEALLOCATE} when it was collected (same sample id and size,
 * {@code previousSize} = lifetime in nanoseconds). Native events: {@code ALLOCATE} / {@code DEALLOCATE} with the real
 * address; a reallocation is a {@code DEALLOCATE} of the old address followed by a {@code REALLOCATE} of the new
 * one ({@code size} = new size, {@code previousSize} = old size).
 *
 * <p>The events are either held in memory ({@link #addEvent}) or streamed again from where they live each time the
 * report builder replays them ({@link #eventSource}, e.g. a recording file read by {@link Recordings#open}), so that
 * a report of a long capture does not need its events in memory.
 *
 * <p>Not thread-safe: filled by one thread, then read.
 */
public final class CaptureData {
    /** {@code sample} or {@code exact}. */
    public static final String MODE = "mode";
    /** Mean sampling interval in bytes (Poisson), decimal. */
    public static final String INTERVAL_BYTES = "intervalBytes";
    /** Capture start and end on the {@link System#nanoTime()} clock, decimal nanoseconds. */
    public static final String START_NANOS = "startNanos";
    public static final String END_NANOS = "endNanos";
    /** Wall-clock time of {@link #START_NANOS}, milliseconds since the epoch. */
    public static final String START_EPOCH_MS = "startEpochMillis";
    public static final String PID = "pid";
    public static final String JAVA_VERSION = "javaVersion";
    public static final String COMMAND = "command";

    private final Map<String, String> metadata = new LinkedHashMap<>();
    private final Map<Integer, Site> sites = new HashMap<>();
    private final Map<Long, List<String>> stacks = new HashMap<>();
    private final List<MemoryEvent> events = new ArrayList<>();
    private EventSource source;
    private final Map<Integer, long[]> exactCounts = new HashMap<>();
    private final List<GcRecord> gcs = new ArrayList<>();
    private final List<Anomaly> anomalies = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private long failureCount;

    public CaptureData putMetadata(String key, String value) {
        metadata.put(key, value);
        return this;
    }

    public CaptureData addSite(Site site) {
        sites.put(site.id(), site);
        return this;
    }

    /** @param frames frames innermost first, each formatted like {@link Site#frame()} */
    public CaptureData addStack(long id, List<String> frames) {
        stacks.put(id, List.copyOf(frames));
        return this;
    }

    public CaptureData addEvent(MemoryEvent event) {
        events.add(event);
        return this;
    }

    /**
     * Streams the events from {@code source} instead of holding them: every replay reads them again, in the
     * source's order, which must be close to time order (see {@link EventSource}).
     */
    public CaptureData eventSource(EventSource source) {
        this.source = source;
        return this;
    }

    /** Exact count and bytes of every allocation at a site (exact mode); adds to what the site had. */
    public CaptureData addExactCount(int siteId, long count, long bytes) {
        long[] c = exactCounts.computeIfAbsent(siteId, k -> new long[2]);
        c[0] += count;
        c[1] += bytes;
        return this;
    }

    public CaptureData addGc(GcRecord gc) {
        gcs.add(gc);
        return this;
    }

    public CaptureData addAnomaly(Anomaly anomaly) {
        anomalies.add(anomaly);
        return this;
    }

    /** memscope's own failures inside the JVM: the total count and the first messages kept. */
    public CaptureData failures(long count, List<String> messages) {
        failureCount = count;
        failures.clear();
        failures.addAll(messages);
        return this;
    }

    public Map<String, String> metadata() {
        return Collections.unmodifiableMap(metadata);
    }

    public String metadata(String key, String fallback) {
        return metadata.getOrDefault(key, fallback);
    }

    public long metadataLong(String key, long fallback) {
        String v = metadata.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    public Site site(int id) {
        return sites.get(id);
    }

    public Map<Integer, Site> sites() {
        return Collections.unmodifiableMap(sites);
    }

    /** @return frames of the stack, innermost first; empty when unknown */
    public List<String> stack(long id) {
        return stacks.getOrDefault(id, List.of());
    }

    /** @return the events held in memory (none when they are streamed from an {@link #eventSource}) */
    public List<MemoryEvent> events() {
        return Collections.unmodifiableList(events);
    }

    /** @return true if the events are streamed from a source, in an order only close to time order */
    boolean isStreamed() {
        return source != null;
    }

    /** Hands every event to {@code sink}: the streamed source's, or the events held, in the order they were added. */
    void replay(Consumer<MemoryEvent> sink) {
        if (source != null) {
            source.replay(sink);
        } else {
            events.forEach(sink);
        }
    }

    /**
     * Events that can be read more than once, each time in the same order, with any event at most a few seconds
     * (see {@link ReportBuilder}) behind events with later timestamps: a recording, whose blocks the agent writes
     * drain by drain.
     */
    @FunctionalInterface
    public interface EventSource {
        void replay(Consumer<MemoryEvent> sink);
    }

    /** @return site id to {count, bytes}; empty in sample mode */
    public Map<Integer, long[]> exactCounts() {
        return Collections.unmodifiableMap(exactCounts);
    }

    public List<GcRecord> gcs() {
        return Collections.unmodifiableList(gcs);
    }

    public List<Anomaly> anomalies() {
        return Collections.unmodifiableList(anomalies);
    }

    public long failureCount() {
        return failureCount;
    }

    public List<String> failureMessages() {
        return Collections.unmodifiableList(failures);
    }
}
