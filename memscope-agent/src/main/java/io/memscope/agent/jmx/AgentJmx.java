package io.memscope.agent.jmx;

import io.memscope.agent.capture.Capture;
import io.memscope.agent.capture.LiveSites;
import io.memscope.agent.capture.SiteTable;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Site;
import io.memscope.error.Failures;
import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** Registers and unregisters the {@link AgentMXBean} on the platform MBean server. */
public final class AgentJmx implements AgentMXBean {
    /**
     * The MXBean's object name, {@code io.memscope:type=Agent}. Built at run time: the agent jar's shading relocates
     * string constants that start with memscope's package name.
     */
    public static final String OBJECT_NAME = String.join(".", "io", "memscope:type=Agent");
    /** Upper bound of rows per call. */
    static final int MAX_ROWS = 10_000;
    /** Upper bound of collections per {@link #gcSince} call. */
    static final int MAX_GCS = 1000;

    private final String mode;
    private final long intervalBytes;
    private final long startNanos = System.nanoTime();

    private AgentJmx(String mode, long intervalBytes) {
        this.mode = mode;
        this.intervalBytes = intervalBytes;
    }

    /** Registers the MXBean (replacing one of an earlier capture); failures are reported, never thrown. */
    public static void register(String mode, long intervalBytes) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(OBJECT_NAME);
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(new AgentJmx(mode, intervalBytes), name);
        } catch (Throwable t) {
            Failures.report("agent.jmx.register", t);
        }
    }

    /** Unregisters the MXBean if registered; failures are reported, never thrown. */
    public static void unregister() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(OBJECT_NAME);
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (Throwable t) {
            Failures.report("agent.jmx.unregister", t);
        }
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
        return Capture.running();
    }

    @Override
    public long getUptimeMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000L;
    }

    @Override
    public long getLiveBytes() {
        return LiveSites.liveBytes();
    }

    @Override
    public long getAllocatedBytes() {
        return LiveSites.allocatedBytes();
    }

    @Override
    public long getStoreEvents() {
        return Capture.storeEvents();
    }

    @Override
    public long getStoreRetainedBytes() {
        return Capture.storeRetainedBytes();
    }

    @Override
    public long getRecordingEvents() {
        return Capture.recordingEvents();
    }

    @Override
    public String getRecordingFile() {
        return Capture.recordingFile();
    }

    @Override
    public SiteRow[] topSitesByLiveBytes(int n) {
        return rows(LiveSites.top(Math.min(n, MAX_ROWS), LiveSites.Order.LIVE));
    }

    @Override
    public SiteRow[] topSitesByAllocatedBytes(int n) {
        return rows(LiveSites.top(Math.min(n, MAX_ROWS), LiveSites.Order.ALLOCATED));
    }

    @Override
    public long getHeldBytes() {
        return LiveSites.heldBytes();
    }

    @Override
    public long getHeldAgeMillis() {
        long at = LiveSites.heldAsOfNanos();
        return at < 0 ? -1 : Math.max(0, (System.nanoTime() - at) / 1_000_000L);
    }

    @Override
    public long getAllocationRate() {
        return LiveSites.allocationRate();
    }

    @Override
    public long getNativeOutstandingBytes() {
        return Capture.nativeOutstandingBytes();
    }

    @Override
    public long getNativeOutstandingBlocks() {
        return Capture.nativeOutstandingBlocks();
    }

    @Override
    public long getGcCount() {
        return Capture.gcCount();
    }

    @Override
    public GcRow[] gcSince(long from) {
        List<GcRecord> records = Capture.gcSince(from, MAX_GCS);
        GcRow[] rows = new GcRow[records.size()];
        long start = Capture.startNanos();
        for (int i = 0; i < rows.length; i++) {
            GcRecord g = records.get(i);
            rows[i] = new GcRow(g.name(), g.action(), g.cause(), Math.floorDiv(g.startNanos() - start, 1_000_000L),
                    g.durationNanos() / 1_000_000L, g.isPause(), g.heapUsedBefore(), g.heapUsedAfter());
        }
        return rows;
    }

    @Override
    public SiteRow[] topSitesByHeldBytes(int n) {
        return rows(LiveSites.top(Math.min(n, MAX_ROWS), LiveSites.Order.HELD));
    }

    @Override
    public SiteRow[] topSitesByAllocationRate(int n) {
        return rows(LiveSites.top(Math.min(n, MAX_ROWS), LiveSites.Order.ALLOCATION_RATE));
    }

    private static SiteRow[] rows(List<LiveSites.Usage> usages) {
        SiteRow[] rows = new SiteRow[usages.size()];
        for (int i = 0; i < rows.length; i++) {
            LiveSites.Usage u = usages.get(i);
            SiteTable.Info s = SiteTable.get(u.site);
            String site = s == null ? "site#" + u.site : Site.frame(s.className, s.method, s.file, s.line);
            String type = s == null ? null : s.type;
            rows[i] = new SiteRow(site, type == null ? "" : type, u.liveBytes, u.liveObjects, u.liveSamples,
                    u.allocatedBytes, u.allocatedObjects, u.samples, u.heldBytes, u.heldObjects, u.allocationRate);
        }
        return rows;
    }
}
