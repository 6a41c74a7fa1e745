package io.memscope.cli;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.Site;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A recording's {@code native:malloc} samples read back (docs/formats/recording.md, native frames and sites): the
 * blocks each site has outstanding at the end and their estimate (a sample of s bytes weighs
 * s / (1 - exp(-s / malloc.intervalBytes))).
 */
final class MallocRecording {
    static final String TYPE = "native:malloc";

    final Recording recording;
    final double interval;
    /** Outstanding sampled blocks by address, in allocation order. */
    final Map<Long, MemoryEvent> outstanding = new LinkedHashMap<>();
    final List<MemoryEvent> allocations = new ArrayList<>();
    final List<MemoryEvent> frees = new ArrayList<>();

    private MallocRecording(Recording recording) {
        this.recording = recording;
        this.interval = Double.parseDouble(recording.metadata().get("malloc.intervalBytes"));
        Map<Long, MemoryEvent> live = new HashMap<>();
        for (MemoryEvent e : recording.events()) {
            if (e.type() == MemoryEventType.ALLOCATE && TYPE.equals(e.typeName())) {
                allocations.add(e);
                live.put(e.address(), e);
                outstanding.put(e.address(), e);
            } else if (e.type() == MemoryEventType.DEALLOCATE && live.containsKey(e.address())
                    && site(live.get(e.address())) != null && e.siteId() == live.get(e.address()).siteId()) {
                frees.add(e);
                live.remove(e.address());
                outstanding.remove(e.address());
            }
        }
    }

    /** The only recording under a {@code memscope run --out} folder. */
    static MallocRecording read(Path out) throws IOException {
        List<Path> dirs = Reports.recordingDirs(out);
        if (dirs.size() != 1) {
            throw new AssertionError("expected one recording under " + out + ", found " + dirs);
        }
        return new MallocRecording(RecordingReader.readStrict(dirs.get(0).resolve("recording.msrec")));
    }

    Site site(MemoryEvent e) {
        return recording.site(e.siteId()).orElse(null);
    }

    /** @return whether the event's site is {@code className.method} at {@code line} */
    boolean at(MemoryEvent e, String className, int line) {
        Site s = site(e);
        return s != null && s.className().equals(className) && s.line() == line;
    }

    List<MemoryEvent> allocationsAt(String className, int line) {
        return allocations.stream().filter(e -> at(e, className, line)).toList();
    }

    List<MemoryEvent> outstandingAt(String className, int line) {
        return outstanding.values().stream().filter(e -> at(e, className, line)).toList();
    }

    /** @return the estimate of the blocks sampled at or before {@code nanos} and not freed by then */
    double estimateOutstandingAt(long nanos) {
        Map<Long, MemoryEvent> live = new HashMap<>();
        for (MemoryEvent e : recording.events()) {
            if (e.timestampNanos() > nanos) {
                continue;
            }
            if (e.type() == MemoryEventType.ALLOCATE && TYPE.equals(e.typeName())) {
                live.put(e.address(), e);
            } else if (e.type() == MemoryEventType.DEALLOCATE && live.containsKey(e.address())
                    && e.siteId() == live.get(e.address()).siteId()) {
                live.remove(e.address());
            }
        }
        return estimate(new ArrayList<>(live.values()));
    }

    double weight(long size) {
        return size / -Math.expm1(-size / interval);
    }

    double estimate(List<MemoryEvent> samples) {
        double sum = 0;
        for (MemoryEvent e : samples) {
            sum += weight(e.size());
        }
        return sum;
    }

    /**
     * The standard deviation of the estimate of blocks of these (true, all-blocks) sizes: each block of s bytes is
     * sampled with p = 1 - exp(-s / interval) and then weighs s / p, so contributes s^2 (1 - p) / p to the variance.
     */
    static double standardDeviation(List<Long> trueSizes, double interval) {
        double var = 0;
        for (long s : trueSizes) {
            double p = -Math.expm1(-s / interval);
            var += (double) s * s * (1 - p) / p;
        }
        return Math.sqrt(var);
    }

    List<String> stack(MemoryEvent e) {
        return recording.stacks().getOrDefault(e.callStackHash(), List.of());
    }

    long metadata(String key) {
        String v = recording.metadata().get(key);
        if (v == null) {
            throw new AssertionError("no metadata " + key + " in " + recording.metadata());
        }
        return Long.parseLong(v);
    }

    String metadataText(String key) {
        return recording.metadata().get(key);
    }
}
