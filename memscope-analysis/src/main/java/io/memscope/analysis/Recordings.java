package io.memscope.analysis;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.recording.Damage;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.RecordingWriter;
import io.memscope.store.StringTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Converts between {@link CaptureData} and the recording file (docs/formats/recording.md): the agent writes its
 * capture with {@link #write} (or streams it while it runs), and both the agent at exit and {@code memscope report}
 * open it with {@link #open}, so that a report regenerated from a recording equals the one written at exit.
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

    /**
     * Opens the capture a recording holds: metadata, sites, stacks, exact counts, GC records, anomalies and failures
     * are read now; the events stay in the file and are streamed again each time the report builder replays them,
     * so that the memory this takes does not grow with the number of events.
     *
     * @param damage told, once, where the file is damaged (every complete block before the damage is used)
     * @throws io.memscope.error.CorruptFileException if the file is not a readable recording (header)
     */
    public static CaptureData open(Path file, Consumer<Damage> damage) {
        CaptureData d = new CaptureData();
        Tables tables = new Tables(d);
        RecordingReader.stream(file, tables).ifPresent(damage);
        tables.finish();
        String[] strings = tables.strings();
        d.eventSource(sink -> RecordingReader.stream(file, new RecordingVisitor() {
            @Override
            public void accept(long timestampNanos, MemoryEventType type, long address, long size,
                               long previousSize, long threadId, int threadNameId, int variableNameId,
                               int typeNameId, long stackId, int siteId) {
                sink.accept(new MemoryEvent(timestampNanos, type, address, size, previousSize, threadId,
                        nameOf(strings, threadNameId), nameOf(strings, variableNameId), nameOf(strings, typeNameId),
                        stackId, siteId));
            }
        }));
        return d;
    }

    private static String nameOf(String[] strings, int id) {
        return id > 0 && id < strings.length ? strings[id] : null;
    }

    /** Everything of a recording but its events, into a {@link CaptureData}. */
    private static final class Tables implements RecordingVisitor {
        private final CaptureData d;
        private final List<String> failures = new ArrayList<>();
        private long failureCount;
        private String[] strings = new String[256];

        Tables(CaptureData d) {
            this.d = d;
        }

        String[] strings() {
            return strings;
        }

        @Override
        public void string(int id, String value) {
            if (id >= strings.length) {
                strings = Arrays.copyOf(strings, Math.max(id + 1, strings.length * 2));
            }
            strings[id] = value;
        }

        @Override
        public void metadata(String key, String value) {
            if (key.equals("failures")) {
                try {
                    failureCount = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    failureCount = 0;
                }
            } else if (key.startsWith("failure.")) {
                failures.add(value);
            } else {
                d.putMetadata(key, value);
            }
        }

        @Override
        public void site(io.memscope.recording.Site s) {
            d.addSite(new Site(s.id(), s.className() == null ? "?" : s.className(),
                    s.methodName() == null ? "?" : s.methodName(), s.fileName(), s.line(), s.typeName()));
        }

        @Override
        public void stack(long stackId, List<String> frames) {
            d.addStack(stackId, frames);
        }

        @Override
        public void siteCount(io.memscope.recording.SiteCount c) {
            d.addExactCount(c.siteId(), c.allocations(), c.bytes());
        }

        @Override
        public void gc(io.memscope.recording.GcRecord g) {
            d.addGc(new GcRecord(g.startNanos(), g.durationNanos(), g.name() == null ? "?" : g.name(), null,
                    g.cause(), g.heapUsedBefore(), g.heapUsedAfter(), g.heapCommitted()));
        }

        @Override
        public void anomaly(io.memscope.recording.Anomaly a) {
            d.addAnomaly(new Anomaly(a.kind(), a.address(), a.size(), a.stackId(), a.timestampNanos()));
        }

        void finish() {
            d.failures(failureCount, failures);
        }
    }
}
