package io.memscope.analysis;

import io.memscope.MemoryEvent;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingWriter;
import io.memscope.store.StringTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Converts between {@link CaptureData} and the recording file (docs/formats/recording.md): the agent writes its
 * capture with {@link #write}, and {@code memscope report} rebuilds the same {@link CaptureData} with
 * {@link #read} so that a report regenerated from a recording equals the one written at exit.
 *
 * <p>Mapping: sites, stacks, metadata and exact site counts one to one; events with the type name interned;
 * GC records without the JVM's action text (the recording has no field for it; the action is kept in the
 * collector name's meaning); anomalies with their stack id.
 */
public final class Recordings {
    private Recordings() {
    }

    /** Writes everything in {@code data} to a new recording file. */
    public static void write(CaptureData data, Path file, long startEpochMillis) {
        long startNanos = data.metadataLong(CaptureData.START_NANOS, System.nanoTime());
        try (RecordingWriter w = RecordingWriter.builder(file)
                .clock(startEpochMillis * 1_000_000L, startNanos).open()) {
            StringTable strings = w.strings();
            for (Map.Entry<String, String> m : data.metadata().entrySet()) {
                w.metadata(m.getKey(), m.getValue());
            }
            for (Site s : data.sites().values()) {
                w.site(s.id(), s.className(), s.method(), s.file(), s.line(), s.type());
            }
            for (MemoryEvent e : data.events()) {
                if (e.callStackHash() != 0 && !data.stack(e.callStackHash()).isEmpty()) {
                    w.stack(e.callStackHash(), data.stack(e.callStackHash()));
                }
                w.accept(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                        strings.intern(e.threadName()), strings.intern(e.variableName()),
                        strings.intern(e.typeName()), e.callStackHash(), e.siteId());
            }
            for (Map.Entry<Integer, long[]> c : data.exactCounts().entrySet()) {
                w.siteCount(c.getKey(), c.getValue()[0], c.getValue()[1]);
            }
            for (GcRecord g : data.gcs()) {
                w.gc(g.startNanos(), g.durationNanos(), g.name(), g.cause(), g.heapUsedBefore(), g.heapUsedAfter(),
                        g.heapCommitted());
            }
            for (Anomaly a : data.anomalies()) {
                if (a.stackId() != 0 && !data.stack(a.stackId()).isEmpty()) {
                    w.stack(a.stackId(), data.stack(a.stackId()));
                }
                w.anomaly(a.kind(), a.timeNanos(), a.address(), a.size(), 0, a.stackId(), null);
            }
            w.metadata("failures", Long.toString(data.failureCount()));
            for (int i = 0; i < data.failureMessages().size(); i++) {
                w.metadata("failure." + i, data.failureMessages().get(i));
            }
        }
    }

    /** Rebuilds the capture a recording holds. */
    public static CaptureData read(Recording r) {
        CaptureData d = new CaptureData();
        List<String> failures = new java.util.ArrayList<>();
        long failureCount = 0;
        for (Map.Entry<String, String> m : r.metadata().entrySet()) {
            if (m.getKey().equals("failures")) {
                try {
                    failureCount = Long.parseLong(m.getValue());
                } catch (NumberFormatException e) {
                    failureCount = 0;
                }
            } else if (m.getKey().startsWith("failure.")) {
                failures.add(m.getValue());
            } else {
                d.putMetadata(m.getKey(), m.getValue());
            }
        }
        d.failures(failureCount, failures);
        for (io.memscope.recording.Site s : r.sites().values()) {
            d.addSite(new Site(s.id(), s.className() == null ? "?" : s.className(),
                    s.methodName() == null ? "?" : s.methodName(), s.fileName(), s.line(), s.typeName()));
        }
        for (Map.Entry<Long, List<String>> st : r.stacks().entrySet()) {
            d.addStack(st.getKey(), st.getValue());
        }
        for (MemoryEvent e : r.events()) {
            d.addEvent(e);
        }
        for (io.memscope.recording.SiteCount c : r.siteCounts().values()) {
            d.addExactCount(c.siteId(), c.allocations(), c.bytes());
        }
        for (io.memscope.recording.GcRecord g : r.gcRecords()) {
            d.addGc(new GcRecord(g.startNanos(), g.durationNanos(), g.name() == null ? "?" : g.name(), null,
                    g.cause(), g.heapUsedBefore(), g.heapUsedAfter(), g.heapCommitted()));
        }
        for (io.memscope.recording.Anomaly a : r.anomalies()) {
            d.addAnomaly(new Anomaly(a.kind(), a.address(), a.size(), a.stackId(), a.timestampNanos()));
        }
        return d;
    }
}
