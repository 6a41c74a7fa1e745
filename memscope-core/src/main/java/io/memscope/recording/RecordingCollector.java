package io.memscope.recording;

import io.memscope.internal.recording.EventColumns;
import io.memscope.internal.recording.RecordingParser;
import io.memscope.recording.Recording.ProcessMemorySamples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a {@link Recording} from the visitor callbacks: with the streams (events, API events, scope edges)
 * kept, or with every callback handed on to a visitor, which takes the streams instead ({@link #readTables}).
 */
final class RecordingCollector implements RecordingVisitor, RecordingParser.ColumnSink {
    /** Where every callback goes too, and the streams instead of being kept (null: kept). */
    private final RecordingVisitor streams;
    private RecordingHeader header;
    private String[] strings = new String[256];
    private int stringCount = 1;
    private final Map<Integer, Site> sites = new LinkedHashMap<>();
    private final Map<Long, List<String>> stacks = new LinkedHashMap<>();
    private final EventColumns events = new EventColumns(1024);
    private final List<GcRecord> gc = new ArrayList<>();
    private final Map<Integer, SiteCount> siteCounts = new LinkedHashMap<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private final List<Anomaly> anomalies = new ArrayList<>();
    private Totals totals;
    private final Map<Integer, ScopePath> scopePaths = new LinkedHashMap<>();
    private final List<ScopePath.Edge> scopeEdges = new ArrayList<>();
    private final EventColumns apiEvents = new EventColumns(16);
    private final Map<List<String>, FunctionStats> functions = new LinkedHashMap<>();
    private AccountingSnapshot accounting;
    private final List<RetentionWalk> retentionWalks = new ArrayList<>();
    private final List<ProcessMemorySamples> processMemory = new ArrayList<>();

    @Override
    public void processMemory(ProcessMemorySamples samples) {
        processMemory.add(samples);
    }

    RecordingCollector(RecordingVisitor streams) {
        this.streams = streams;
    }

    @Override
    public void accounting(AccountingSnapshot snapshot) {
        if (streams != null) {
            streams.accounting(snapshot);
        }
        accounting = snapshot;
    }

    @Override
    public void retention(RetentionWalk walk) {
        if (streams != null) {
            streams.retention(walk);
        }
        retentionWalks.add(walk);
    }

    @Override
    public void header(RecordingHeader h) {
        if (streams != null) {
            streams.header(h);
        }
        header = h;
    }

    @Override
    public void string(int id, String value) {
        if (streams != null) {
            streams.string(id, value);
        }
        if (id == strings.length) {
            strings = Arrays.copyOf(strings, strings.length * 2);
        }
        strings[id] = value;
        stringCount = id + 1;
    }

    @Override
    public void site(Site site) {
        if (streams != null) {
            streams.site(site);
        }
        sites.put(site.id(), site);
    }

    @Override
    public void stack(long stackId, List<String> frames) {
        if (streams != null) {
            streams.stack(stackId, frames);
        }
        stacks.put(stackId, frames);
    }

    @Override
    public void accept(EventView e) {
        if (streams != null) {
            streams.accept(e);
        } else {
            add(events, e);
        }
    }

    @Override
    public void events(EventColumns block) {
        if (streams != null) {
            block.forEach(streams);
        } else {
            events.addAll(block);
        }
    }

    @Override
    public void gc(GcRecord record) {
        if (streams != null) {
            streams.gc(record);
        }
        gc.add(record);
    }

    @Override
    public void siteCount(SiteCount count) {
        if (streams != null) {
            streams.siteCount(count);
        }
        siteCounts.put(count.siteId(), count);
    }

    @Override
    public void metadata(String key, String value) {
        if (streams != null) {
            streams.metadata(key, value);
        }
        metadata.put(key, value);
    }

    @Override
    public void anomaly(Anomaly anomaly) {
        if (streams != null) {
            streams.anomaly(anomaly);
        }
        anomalies.add(anomaly);
    }

    @Override
    public void end(Totals t) {
        if (streams != null) {
            streams.end(t);
        }
        totals = t;
    }

    @Override
    public void functionStats(FunctionStats f) {
        if (streams != null) {
            streams.functionStats(f);
        }
        functions.put(Arrays.asList(f.function(), f.descriptor(), f.callSite()), f);
    }

    @Override
    public void scopePath(ScopePath path) {
        if (streams != null) {
            streams.scopePath(path);
        }
        scopePaths.put(path.id(), path);
    }

    @Override
    public void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                          long taskId, long allocatedBytes) {
        if (streams != null) {
            streams.scopeEdge(timestampNanos, threadId, threadNameId, exit, pathId, taskId, allocatedBytes);
            return;
        }
        scopeEdges.add(new ScopePath.Edge(timestampNanos, threadId, strings[threadNameId], exit, pathId, taskId,
                allocatedBytes));
    }

    @Override
    public void apiEvent(EventView e) {
        if (streams != null) {
            streams.apiEvent(e);
        } else {
            add(apiEvents, e);
        }
    }

    private static void add(EventColumns columns, EventView e) {
        columns.add(e.timestampNanos(), e.type().code(), e.address(), e.size(), e.previousSize(), e.threadId(),
                e.threadNameId(), e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
    }

    @Override
    public void skippedBlock(int type, long offset) {
        if (streams != null) {
            streams.skippedBlock(type, offset);
        }
    }

    @Override
    public boolean done() {
        return streams != null && streams.done();
    }

    Recording build(Damage damage, long fileBytes, int skipped) {
        events.trim();
        return new Recording(header, Arrays.copyOf(strings, stringCount), stringCount, sites, stacks, events,
                gc, siteCounts, metadata, anomalies, totals, damage, fileBytes, skipped, scopePaths, scopeEdges,
                apiEvents, new ArrayList<>(functions.values()), accounting, retentionWalks,
                processMemory);
    }
}
