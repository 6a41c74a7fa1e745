package io.memscope.agent.jmx;

import io.memscope.agent.capture.CaptureSession;
import io.memscope.agent.capture.HeldQuery;
import io.memscope.agent.capture.LiveSites;
import io.memscope.agent.capture.SiteTable;
import io.memscope.jmx.AgentClient;
import io.memscope.jmx.AgentClient.HeldGroup;
import io.memscope.jmx.AgentClient.SiteUsage;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Site;
import io.memscope.internal.error.Failures;
import java.util.List;

/** The {@link AgentMXBean}, registered by {@link AgentJmxRegistrar} once the platform MBean server exists. */
public final class AgentJmx implements AgentMXBean {
    /** The MXBean's object name, {@code io.memscope:type=Agent} (one definition: core's {@link AgentClient}). */
    public static final String OBJECT_NAME = AgentClient.OBJECT_NAME;
    /** Upper bound of rows per call. */
    static final int MAX_ROWS = 10_000;
    /** Upper bound of collections per {@link #gcSince} call. */
    static final int MAX_GCS = 1000;

    private final CaptureSession session;
    private final String mode;
    private final long intervalBytes;
    private final boolean attached;

    AgentJmx(CaptureSession session, String mode, long intervalBytes, boolean attached) {
        this.session = session;
        this.mode = mode;
        this.intervalBytes = intervalBytes;
        this.attached = attached;
    }

    @Override
    public String getMode() {
        return mode;
    }

    @Override
    public long getIntervalBytes() {
        return intervalBytes;
    }

    @Override
    public boolean isRunning() {
        return session.running();
    }

    @Override
    public boolean isAttached() {
        return attached; // fixed at the start: no lock (the capture's end holds the session's for seconds)
    }

    @Override
    public long getUptimeMillis() {
        return (System.nanoTime() - session.startNanos()) / 1_000_000L;
    }

    @Override
    public long getLiveBytes() {
        return session.liveSites().liveBytes();
    }

    @Override
    public long getAllocatedBytes() {
        return session.liveSites().allocatedBytes();
    }

    @Override
    public long getStoreEvents() {
        return session.storeEvents();
    }

    @Override
    public long getStoreRetainedBytes() {
        return session.storeRetainedBytes();
    }

    @Override
    public long getRecordingEvents() {
        return session.recordingEvents();
    }

    @Override
    public String getRecordingFile() {
        return session.recordingFile();
    }

    @Override
    public SiteUsage[] topSitesByLiveBytes(int n) {
        return rows(session.liveSites().top(Math.min(n, MAX_ROWS), LiveSites.Order.LIVE));
    }

    @Override
    public SiteUsage[] topSitesByAllocatedBytes(int n) {
        return rows(session.liveSites().top(Math.min(n, MAX_ROWS), LiveSites.Order.ALLOCATED));
    }

    @Override
    public long getHeldBytes() {
        return session.liveSites().heldBytes();
    }

    @Override
    public long getUnconfirmedBytes() {
        return session.liveSites().unconfirmedBytes();
    }

    @Override
    public long getLastGcAgeMillis() {
        long at = session.liveSites().lastCollectionNanos();
        return at < 0 ? -1 : Math.max(0, (System.nanoTime() - at) / 1_000_000L);
    }

    @Override
    public long getHeldAgeMillis() {
        long at = session.liveSites().heldAsOfNanos();
        return at < 0 ? -1 : Math.max(0, (System.nanoTime() - at) / 1_000_000L);
    }

    @Override
    public long getAllocationRate() {
        return session.liveSites().allocationRate();
    }

    @Override
    public long getNativeOutstandingBytes() {
        return session.nativeOutstandingBytes();
    }

    @Override
    public long[] getProcessMemory() {
        return session.processMemory();
    }

    @Override
    public String[] getProcessMemoryParts() {
        return io.memscope.agent.capture.CaptureSession.processMemoryParts();
    }

    @Override
    public java.util.Map<String, String> getPushCounters() {
        return session.pushCounters();
    }

    @Override
    public long getMallocOutstandingBytes() {
        return session.mallocOutstandingBytes();
    }

    @Override
    public long getNativeOutstandingBlocks() {
        return session.nativeOutstandingBlocks();
    }

    @Override
    public long getGcCount() {
        return session.gcCount();
    }

    @Override
    public GcRow[] gcSince(long from) {
        List<GcRecord> records = session.gcSince(from, MAX_GCS);
        GcRow[] rows = new GcRow[records.size()];
        long start = session.startNanos();
        for (int i = 0; i < rows.length; i++) {
            GcRecord g = records.get(i);
            rows[i] = new GcRow(g.name(), g.action(), g.cause(), Math.floorDiv(g.startNanos() - start, 1_000_000L),
                    g.durationNanos() / 1_000_000L, g.isPause(), g.heapUsedBefore(), g.heapUsedAfter(),
                    g.examined() == GcRecord.Examined.WHOLE_HEAP ? "whole-heap"
                            : g.examined() == GcRecord.Examined.YOUNG ? "young" : "unknown");
        }
        return rows;
    }

    @Override
    public SiteUsage[] topSitesByHeldBytes(int n) {
        return rows(session.liveSites().top(Math.min(n, MAX_ROWS), LiveSites.Order.HELD));
    }

    @Override
    public SiteUsage[] topSitesByAllocationRate(int n) {
        return rows(session.liveSites().top(Math.min(n, MAX_ROWS), LiveSites.Order.ALLOCATION_RATE));
    }

    private static SiteUsage[] rows(List<LiveSites.Usage> usages) {
        SiteUsage[] rows = new SiteUsage[usages.size()];
        for (int i = 0; i < rows.length; i++) {
            LiveSites.Usage u = usages.get(i);
            SiteTable.Info s = SiteTable.get(u.site());
            String site = s == null ? "site#" + u.site() : Site.frame(s.className, s.method, s.file, s.line);
            String type = s == null ? null : s.type;
            rows[i] = new SiteUsage(site, type == null ? "" : type, u.liveBytes(), u.liveObjects(), u.liveSamples(),
                    u.heldBytes(), u.heldObjects(), u.unconfirmedBytes(), u.allocatedBytes(), u.allocatedObjects(), u.samples(),
                    u.allocationRate());
        }
        return rows;
    }

    @Override
    public HeldGroup[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows) {
        return held(HeldQuery.heap(session, fromNanos, toNanos, threadIds, threadsFrom, Math.min(maxRows, MAX_ROWS)));
    }

    @Override
    public HeldGroup[] nativeOutstandingSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom,
                                            int maxRows) {
        return held(HeldQuery.nativeBlocks(session, fromNanos, toNanos, threadIds, threadsFrom, Math.min(maxRows, MAX_ROWS)));
    }

    @Override
    public boolean catchUp() {
        return session.catchUp(2000);
    }

    @Override
    public boolean fullGcClearingSoftReferences() {
        return session.fullGcClearingSoftReferences();
    }

    @Override
    public long getDroppedSamples() {
        return session.droppedSamples();
    }

    @Override
    public java.util.Map<String, Long> getBounds() {
        return session.boundsFigures();
    }

    @Override
    public long getFailures() {
        return Failures.total();
    }

    private static HeldGroup[] held(List<HeldGroup> groups) {
        return groups.toArray(new HeldGroup[0]);
    }

    @Override
    public long[] allocatedBytesBySite() {
        return session.liveSites().allocatedBytesBySite();
    }

    @Override
    public String[] siteNames(int[] siteIds) {
        String[] names = new String[siteIds == null ? 0 : Math.min(siteIds.length, MAX_ROWS)];
        for (int i = 0; i < names.length; i++) {
            SiteTable.Info s = siteIds[i] > 0 ? SiteTable.get(siteIds[i]) : null;
            names[i] = s == null ? "" : Site.frame(s.className, s.method, s.file, s.line) + "\t"
                    + (s.type == null ? "" : s.type);
        }
        return names;
    }

    @Override
    public String walkHeap(long timeBudgetMillis, long memoryBudgetBytes) {
        return session.walkHeap(Math.max(1, timeBudgetMillis), Math.max(1L << 20, memoryBudgetBytes));
    }
}
