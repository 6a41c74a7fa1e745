package io.memscope.internal.recording;

import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.Anomaly;
import io.memscope.recording.EventView;
import io.memscope.recording.FunctionStats;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording.ProcessMemorySamples;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.RetentionWalk;
import io.memscope.recording.ScopePath;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import io.memscope.recording.Totals;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One recording's callbacks from several chunks: the repeated definitions once, the totals summed, and one string
 * table. Each chunk's string ids are its own (format 1.7: a chunk defines the strings it uses; 1.6: every chunk
 * repeats the whole table), so the joined table numbers each distinct string once, in the order first defined, and
 * the ids of events and scope edges are translated from the chunk's to the joined ones (no translation while a
 * chunk's ids are the joined ones: chunk 1 and every chunk of format 1.6).
 */
public final class JoinedChunks implements RecordingVisitor {
    private final RecordingVisitor v;
    private boolean first;
    private final Map<String, Integer> joinedIds = new HashMap<>();
    private int joinedCount = 1;
    /** The joined id of each of the current chunk's string ids. */
    private int[] joinedOf = new int[256];
    /** Whether every id of the current chunk so far is its joined id. */
    private boolean sameIds = true;
    private final EventView view = new EventView();
    long events;
    long dropped;
    boolean clean;
    boolean ended;
    long endNanos;

    public JoinedChunks(RecordingVisitor v) {
        this.v = v;
    }

    /** @return the END totals of the chunks read */
    /** @return whether the current chunk's END was read */
    public boolean ended() {
        return ended;
    }

    public Totals totals() {
        return new Totals(events, dropped, clean, endNanos);
    }

    public void chunk(boolean first) {
        this.first = first;
        this.ended = false;
        this.sameIds = true;
        Arrays.fill(joinedOf, 0);
    }

    @Override
    public void header(RecordingHeader header) {
        if (first) {
            v.header(header);
        }
    }

    @Override
    public void string(int id, String value) {
        String key = value == null ? "" : value;
        Integer joined = joinedIds.get(key);
        if (joined == null) {
            joined = joinedCount++;
            joinedIds.put(key, joined);
            v.string(joined, value);
        }
        if (id >= joinedOf.length) {
            joinedOf = Arrays.copyOf(joinedOf, Math.max(id + 1, joinedOf.length * 2));
        }
        joinedOf[id] = joined;
        sameIds &= joined == id;
    }

    /** @return the joined id of the current chunk's string id {@code id} (defined before its use) */
    private int joined(int id) {
        return id <= 0 || id >= joinedOf.length ? id : joinedOf[id];
    }

    private EventView joined(EventView e) {
        if (sameIds) {
            return e;
        }
        return view.set(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                joined(e.threadNameId()), joined(e.variableNameId()), joined(e.typeNameId()), e.stackId(),
                e.siteId());
    }

    @Override
    public void site(Site site) {
        v.site(site);
    }

    @Override
    public void stack(long stackId, List<String> frames) {
        v.stack(stackId, frames);
    }

    @Override
    public void accept(EventView event) {
        v.accept(joined(event));
    }

    @Override
    public void gc(GcRecord record) {
        v.gc(record);
    }

    @Override
    public void siteCount(SiteCount count) {
        v.siteCount(count);
    }

    @Override
    public void metadata(String key, String value) {
        v.metadata(key, value);
    }

    @Override
    public void anomaly(Anomaly anomaly) {
        v.anomaly(anomaly);
    }

    @Override
    public void functionStats(FunctionStats stats) {
        v.functionStats(stats);
    }

    @Override
    public void accounting(AccountingSnapshot snapshot) {
        v.accounting(snapshot);
    }

    @Override
    public void retention(RetentionWalk walk) {
        v.retention(walk);
    }

    @Override
    public void processMemory(ProcessMemorySamples samples) {
        v.processMemory(samples);
    }

    @Override
    public void scopePath(ScopePath path) {
        v.scopePath(path);
    }

    @Override
    public void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                          long taskId, long allocatedBytes) {
        v.scopeEdge(timestampNanos, threadId, sameIds ? threadNameId : joined(threadNameId), exit, pathId,
                taskId, allocatedBytes);
    }

    @Override
    public void apiEvent(EventView event) {
        v.apiEvent(joined(event));
    }

    @Override
    public void skippedBlock(int type, long offset) {
        v.skippedBlock(type, offset);
    }

    @Override
    public void end(Totals totals) {
        events += totals.eventsWritten();
        dropped += totals.eventsDropped();
        clean = totals.clean();
        endNanos = totals.endNanos();
        ended = true;
    }

    @Override
    public boolean done() {
        return v.done();
    }
}
