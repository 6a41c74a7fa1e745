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
import java.util.List;

/** One recording's callbacks from several chunks: the repeated definitions once, the totals summed. */
final class JoinedChunks implements RecordingVisitor {
    private final RecordingVisitor v;
    private boolean first;
    private int strings = 1;
    long events;
    long dropped;
    boolean clean;
    boolean ended;
    long endNanos;

    JoinedChunks(RecordingVisitor v) {
        this.v = v;
    }

    /** @return the END totals of the chunks read */
    Totals totals() {
        return new Totals(events, dropped, clean, endNanos);
    }

    void chunk(boolean first) {
        this.first = first;
        this.ended = false;
    }

    @Override
    public void header(RecordingHeader header) {
        if (first) {
            v.header(header);
        }
    }

    @Override
    public void string(int id, String value) {
        if (id >= strings) {  // the table grows only: a chunk repeats the ids before it
            strings = id + 1;
            v.string(id, value);
        }
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
        v.accept(event);
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
        v.scopeEdge(timestampNanos, threadId, threadNameId, exit, pathId, taskId, allocatedBytes);
    }

    @Override
    public void apiEvent(EventView event) {
        v.apiEvent(event);
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
