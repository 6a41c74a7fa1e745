package io.memscope.analysis;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedObject;

/**
 * The records of a JFR recording that are not allocation events, read into a run's tables for {@link JfrSource}:
 * collections ({@code jdk.GarbageCollection} with the {@code jdk.GCHeapSummary} before and after it, by
 * {@code gcId}), process memory ({@code jdk.ResidentSetSize}; {@code jdk.NativeMemoryUsage}: NMT's committed bytes
 * per category, at most {@value #MAX_NMT_SAMPLES} times) and the JVM ({@code jdk.JVMInformation}: version, pid and
 * command line into the run's metadata).
 */
final class JfrRuntimeRecords {
    private static final int MAX_NMT_SAMPLES = 100_000;

    /** The run's metadata, shared with its {@link JfrSource}. */
    private final Map<String, String> metadata;
    /** Per gcId: start, duration, heap used before and after, committed after (-1: not known). */
    private final Map<Long, long[]> gcFigures = new TreeMap<>();
    /** Per gcId: the collector's name and the cause. */
    private final Map<Long, String[]> gcNames = new HashMap<>();
    private long[] rssTimes = new long[64];
    private long[] rssValues = new long[64];
    private int rssCount;
    /** NMT's committed bytes per category by time. */
    private final TreeMap<Long, Map<String, Long>> nmt = new TreeMap<>();
    private String jvm;

    JfrRuntimeRecords(Map<String, String> metadata) {
        this.metadata = metadata;
    }

    /** Reads one record that is not an event; other records are passed over. */
    void accept(RecordedEvent e) {
        switch (e.getEventType().getName()) {
            case "jdk.GarbageCollection" -> {
                long[] g = gcFigures.computeIfAbsent(e.getLong("gcId"), k -> new long[] {0, 0, -1, -1, 0});
                g[0] = JfrSource.nanos(e.getStartTime());
                g[1] = e.getDuration().toNanos();
                gcNames.put(e.getLong("gcId"), new String[] {e.getString("name"), e.getString("cause")});
            }
            case "jdk.GCHeapSummary" -> {
                long[] g = gcFigures.computeIfAbsent(e.getLong("gcId"), k -> new long[] {0, 0, -1, -1, 0});
                boolean before = "Before GC".equals(e.getString("when"));
                g[before ? 2 : 3] = e.getLong("heapUsed");
                RecordedObject space = e.getValue("heapSpace");
                if (!before && space != null) {
                    g[4] = space.getLong("committedSize");
                }
            }
            case "jdk.ResidentSetSize" -> {
                if (rssCount == rssTimes.length) {
                    rssTimes = Arrays.copyOf(rssTimes, rssCount * 2);
                    rssValues = Arrays.copyOf(rssValues, rssCount * 2);
                }
                rssTimes[rssCount] = JfrSource.nanos(e.getStartTime());
                rssValues[rssCount++] = e.getLong("size");
            }
            case "jdk.NativeMemoryUsage" -> {
                // NMT's categories (-XX:NativeMemoryTracking), all at one time per period: memscope's nmt parts
                String type = e.getString("type");
                if (type != null && nmt.size() < MAX_NMT_SAMPLES) {
                    nmt.computeIfAbsent(JfrSource.nanos(e.getStartTime()), k -> new TreeMap<>())
                            .put(type, e.getLong("committed"));
                }
            }
            case "jdk.JVMInformation" -> {
                String v = e.getString("jvmVersion");
                java.util.regex.Matcher m = v == null ? null : java.util.regex.Pattern.compile("\\(([^()]*)\\)")
                        .matcher(v);
                jvm = m != null && m.find() ? "Java " + m.group(1) : v;
                metadata.put(MetadataKeys.JAVA_VERSION, e.getString("jvmVersion"));
                metadata.put(MetadataKeys.PID, Long.toString(e.getLong("pid")));
                String jvmArgs = e.getString("jvmArguments");
                String javaArgs = e.getString("javaArguments");
                metadata.put(MetadataKeys.COMMAND, ("java " + (jvmArgs == null ? "" : jvmArgs + " ")
                        + (javaArgs == null ? "" : javaArgs)).strip());
            }
            default -> {
                // not read
            }
        }
    }

    /** The collections seen with their name and time, in time order; whole-heap or young by JFR's collector name. */
    List<GcRecord> collections() {
        List<GcRecord> l = new ArrayList<>();
        for (Map.Entry<Long, long[]> en : gcFigures.entrySet()) {
            String[] nc = gcNames.get(en.getKey());
            if (nc == null) {
                continue; // heap summaries without their collection (async-profiler writes only those)
            }
            long[] g = en.getValue();
            GcRecord r = new GcRecord(g[0], g[1], nc[0], nc[1], Math.max(0, g[2]), Math.max(0, g[3]), g[4]);
            l.add(r.withExamined(examined(nc[0]), g[0], g[0] + g[1]));
        }
        l.sort(Comparator.comparingLong(GcRecord::startNanos));
        return l;
    }

    /** @return what a collector of this JFR name examines: young collections, or the whole heap */
    static GcRecord.Examined examined(String name) {
        if (name == null) {
            return GcRecord.Examined.UNKNOWN;
        }
        return switch (name) {
            case "G1New", "DefNew", "ParallelScavenge", "ParNew", "ZMinor" -> GcRecord.Examined.YOUNG;
            case "G1Old", "G1Full", "ParallelOld", "SerialOld", "PSMarkSweep", "ConcurrentMarkSweep", "Z", "ZMajor",
                 "Shenandoah" -> GcRecord.Examined.WHOLE_HEAP;
            default -> GcRecord.Examined.UNKNOWN;
        };
    }

    /** @return the JVM as the report names it ("Java <version>"), or null when the recording did not say */
    String jvm() {
        return jvm;
    }

    /** @return whether NMT's categories were recorded */
    boolean hasNmt() {
        return !nmt.isEmpty();
    }

    /** @return the process-memory samples: RSS, then NMT's committed bytes per category (parts nmt.TYPE.committed) */
    List<Recording.ProcessMemorySamples> processMemory() {
        List<Recording.ProcessMemorySamples> pm = new ArrayList<>();
        if (rssCount > 0) {
            pm.add(new Recording.ProcessMemorySamples(List.of("rss"), Arrays.copyOf(rssTimes, rssCount),
                    Arrays.copyOf(rssValues, rssCount)));
        }
        if (!nmt.isEmpty()) {
            java.util.TreeSet<String> types = new java.util.TreeSet<>();
            nmt.values().forEach(m -> types.addAll(m.keySet()));
            List<String> parts = new ArrayList<>();
            types.forEach(t -> parts.add("nmt." + t + ".committed"));
            long[] times = new long[nmt.size()];
            long[] values = new long[nmt.size() * parts.size()];
            int i = 0;
            for (Map.Entry<Long, Map<String, Long>> en : nmt.entrySet()) {
                times[i] = en.getKey();
                int j = 0;
                for (String t : types) {
                    values[i * parts.size() + j++] = en.getValue().getOrDefault(t,
                            Recording.ProcessMemorySamples.UNKNOWN);
                }
                i++;
            }
            pm.add(new Recording.ProcessMemorySamples(parts, times, values));
        }
        return List.copyOf(pm);
    }
}
