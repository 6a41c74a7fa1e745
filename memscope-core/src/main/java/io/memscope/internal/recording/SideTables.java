package io.memscope.internal.recording;

import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.GcRecord;
import io.memscope.recording.RetentionWalk;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * The entry encodings of a recording's side tables (layouts: {@code docs/formats/recording.md}), one method per
 * table, each encoding one entry into its {@link SideTable} and returning that table. Strings are interned in the
 * file's {@link FileStrings} and written as ids. ACCOUNTING and RETENTION are written whole, one block per
 * snapshot or walk: {@link #accounting} and {@link #retention} return the payload.
 *
 * <p>A GC entry spans three tables written together: GC, then GC_DETAILS (the JVM's action text) when a record
 * has one, then GC_SCOPE (what the collection examined) when a record says so; {@link #write} keeps them together.
 * Not thread-safe: the writer's lock guards it.
 */
final class SideTables {
    final SideTable sites = new SideTable(BlockType.SITES);
    final SideTable stacks = new SideTable(BlockType.STACKS);
    final SideTable metadata = new SideTable(BlockType.METADATA);
    final SideTable gc = new SideTable(BlockType.GC);
    /** One action string id per record of {@link #gc}. */
    private final SideTable gcDetails = new SideTable(BlockType.GC_DETAILS);
    /** What each record of {@link #gc} examined. */
    private final SideTable gcScope = new SideTable(BlockType.GC_SCOPE);
    final SideTable siteCounts = new SideTable(BlockType.SITE_COUNTS);
    final SideTable anomalies = new SideTable(BlockType.ANOMALIES);
    final SideTable scopePaths = new SideTable(BlockType.SCOPE_PATHS);
    final SideTable functions = new SideTable(BlockType.FUNCTIONS);
    private final SideTable[] all = {sites, stacks, metadata, gc, gcDetails, gcScope, siteCounts, anomalies,
        scopePaths, functions};
    private final FileStrings strings;
    private boolean gcActions;               // a record in gc has an action: GC_DETAILS goes with it
    private boolean gcScoped;                // a record in gc says what it examined: GC_SCOPE goes with it

    SideTables(FileStrings strings) {
        this.strings = strings;
    }

    SideTable site(int siteId, String className, String methodName, String fileName, int line, String typeName) {
        ByteSink s = sites.body;
        s.uleb(Integer.toUnsignedLong(siteId));
        s.uleb(strings.internName(className));
        s.uleb(strings.internName(methodName));
        s.uleb(strings.internName(fileName));
        s.uleb(Math.max(0, line));
        s.uleb(strings.internName(typeName));
        return sites.added();
    }

    /** Keeps the innermost {@link RecordingFormat#MAX_FRAMES} frames. */
    SideTable stack(long stackId, List<String> frames) {
        int n = Math.min(frames.size(), RecordingFormat.MAX_FRAMES);
        ByteSink s = stacks.body;
        s.uleb(stackId);
        s.uleb(n);
        for (int i = 0; i < n; i++) {
            s.uleb(strings.internName(Objects.requireNonNull(frames.get(i), "frame")));
        }
        return stacks.added();
    }

    SideTable metadata(String key, String value) {
        metadata.body.uleb(strings.intern(key));
        metadata.body.uleb(strings.intern(value));
        return metadata.added();
    }

    SideTable gc(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                 long heapUsedAfter, long heapCommitted, String action, GcRecord.Examined examined,
                 long snapshotNanos, long verdictNanos) {
        long before = examined == GcRecord.Examined.WHOLE_HEAP ? Math.max(0, startNanos - snapshotNanos) : 0;
        long after = Math.max(0, verdictNanos - startNanos);
        gcScope.body.u8(examined.code);
        gcScope.body.uleb(before);
        gcScope.body.uleb(after);
        gcScope.added();
        gcScoped |= examined != GcRecord.Examined.UNKNOWN || after != 0;
        ByteSink s = gc.body;
        s.zigzag(startNanos);
        s.uleb(durationNanos);
        s.uleb(strings.intern(name));
        s.uleb(strings.intern(cause));
        s.uleb(heapUsedBefore);
        s.uleb(heapUsedAfter);
        s.uleb(heapCommitted);
        gcDetails.body.uleb(strings.intern(action));
        gcDetails.added();
        gcActions |= action != null;
        return gc.added();
    }

    SideTable siteCount(int siteId, long allocations, long bytes) {
        siteCounts.body.uleb(Integer.toUnsignedLong(siteId));
        siteCounts.body.uleb(allocations);
        siteCounts.body.uleb(bytes);
        return siteCounts.added();
    }

    SideTable anomaly(String kind, long timestampNanos, long address, long size, long threadId, long stackId,
                      String detail) {
        ByteSink s = anomalies.body;
        s.uleb(strings.intern(kind));
        s.zigzag(timestampNanos);
        s.uleb(address);
        s.uleb(size);
        s.uleb(threadId);
        s.uleb(stackId);
        s.uleb(strings.intern(detail));
        return anomalies.added();
    }

    SideTable scopePath(int pathId, int parentId, String name) {
        ByteSink s = scopePaths.body;
        s.uleb(Integer.toUnsignedLong(pathId));
        s.uleb(Integer.toUnsignedLong(parentId));
        s.uleb(strings.intern(name));
        return scopePaths.added();
    }

    SideTable function(String function, String descriptor, String callSite, long calls, long recursiveCalls,
                       long totalNanos, long maxNanos, long allocatedBytes, long callsWithoutAllocation) {
        ByteSink s = functions.body;
        s.uleb(strings.intern(function));
        s.uleb(strings.intern(descriptor));
        s.uleb(strings.intern(callSite));
        s.uleb(calls);
        s.uleb(recursiveCalls);
        s.uleb(totalNanos);
        s.uleb(maxNanos);
        s.uleb(allocatedBytes);
        s.uleb(callsWithoutAllocation);
        return functions.added();
    }

    /** @return an ACCOUNTING payload: at most {@link AccountingSnapshot#MAX_ROWS} rows of the snapshot */
    ByteSink accounting(AccountingSnapshot snapshot) {
        List<SummaryRow> rows = snapshot.rows();
        int n = Math.min(rows.size(), AccountingSnapshot.MAX_ROWS);
        ByteSink s = new ByteSink(64 + n * 48);
        s.zigzag(snapshot.timestampNanos());
        s.uleb(n);
        Column[] columns = Column.values();
        for (int i = 0; i < n; i++) {
            SummaryRow r = rows.get(i);
            s.u8(r.table().ordinal());
            s.zigzag(r.threadId());
            s.uleb(strings.intern(r.threadName()));
            s.uleb(strings.intern(r.user()));
            s.uleb(strings.intern(r.host()));
            s.uleb(strings.intern(r.eventName()));
            for (Column c : columns) {
                s.zigzag(r.get(c));
            }
        }
        return s;
    }

    /**
     * @return a RETENTION payload: the walk's figures, the forest of its paths and its samples
     * @throws IllegalArgumentException when the walk does not fit in one block, or a node's parent does not come
     *                                  before it, or a sample's node is not one of the walk's
     */
    ByteSink retention(RetentionWalk walk) {
        List<RetentionWalk.Node> nodes = walk.nodes();
        List<RetentionWalk.Sample> samples = walk.samples();
        ByteSink s = new ByteSink(128 + nodes.size() * 8 + samples.size() * 8);
        s.zigzag(walk.timestampNanos());
        s.uleb(walk.pauseNanos());
        s.uleb(walk.totalNanos());
        s.u8(walk.outcome().code);
        s.uleb(strings.intern(walk.trigger()));
        s.uleb(strings.intern(walk.detail()));
        s.uleb(walk.objectsVisited());
        s.uleb(walk.referencesSeen());
        s.uleb(walk.memoryBytes());
        s.uleb(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            RetentionWalk.Node n = nodes.get(i);
            if (n.parent() >= i || n.parent() < -1) {
                throw new IllegalArgumentException("node " + i + ": parent " + n.parent() + " does not come before it");
            }
            s.uleb(n.parent() + 1L);
            s.uleb(((long) n.kind().code << 1) | (n.classObject() ? 1 : 0));
            s.uleb(strings.intern(n.className() == null ? "?" : n.className()));
            s.uleb(strings.intern(n.label()));
            s.uleb(n.index());
        }
        s.uleb(samples.size());
        for (RetentionWalk.Sample m : samples) {
            if (m.node() < -1 || m.node() >= nodes.size()) {
                throw new IllegalArgumentException("sample " + m.sampleId() + ": node " + m.node() + " of "
                        + nodes.size());
            }
            s.uleb(m.sampleId());
            s.uleb(m.siteId() & 0xFFFF_FFFFL);
            s.uleb(m.size());
            s.uleb(m.node() + 1L);
        }
        if (s.length() > RecordingFormat.MAX_BLOCK_PAYLOAD) {
            throw new IllegalArgumentException("a walk of " + nodes.size() + " nodes and " + samples.size()
                    + " samples takes " + s.length() + " bytes, more than one block holds");
        }
        return s;
    }

    /** Writes one table's pending block; GC with its GC_DETAILS and GC_SCOPE blocks. */
    void write(SideTable table, BlockOutput out) throws IOException {
        if (table != gc) {
            table.writeTo(out);
            return;
        }
        boolean details = gcActions && gc.count() > 0;
        boolean scope = gcScoped && gc.count() > 0;
        gc.writeTo(out);
        if (details) {
            gcDetails.writeTo(out);
        }
        if (scope) {
            gcScope.writeTo(out);
        }
        gcDetails.discard();
        gcActions = false;
        gcScope.discard();
        gcScoped = false;
    }

    /** Drops every pending entry (a salvage: they will not be in the file). */
    void discardAll() {
        for (SideTable t : all) {
            t.discard();
        }
        gcActions = false;
        gcScoped = false;
    }
}
