package io.memscope.agent.jmx;

import io.memscope.agent.capture.CaptureSession;
import io.memscope.agent.capture.LiveSites;
import io.memscope.agent.capture.SiteTable;
import io.memscope.recording.Site;
import io.memscope.error.Failures;
import java.util.List;

/** The {@link AgentMXBean}, registered by {@link AgentJmxRegistrar} once the platform MBean server exists. */
public final class AgentJmx implements AgentMXBean {
    /**
     * The MXBean's object name, {@code io.memscope:type=Agent}. Built at run time: the agent jar's shading relocates
     * string constants that start with memscope's package name.
     */
    public static final String OBJECT_NAME = String.join(".", "io", "memscope:type=Agent");
    /** Upper bound of rows per call. */
    static final int MAX_ROWS = 10_000;

    private final CaptureSession session;
    private final String mode;
    private final long intervalBytes;
    private final long startNanos = System.nanoTime();

    AgentJmx(CaptureSession session, String mode, long intervalBytes) {
        this.session = session;
        this.mode = mode;
        this.intervalBytes = intervalBytes;
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
    public long getUptimeMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000L;
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
    public SiteRow[] topSitesByLiveBytes(int n) {
        return rows(session.liveSites().top(Math.min(n, MAX_ROWS), true));
    }

    @Override
    public SiteRow[] topSitesByAllocatedBytes(int n) {
        return rows(session.liveSites().top(Math.min(n, MAX_ROWS), false));
    }

    private static SiteRow[] rows(List<LiveSites.Usage> usages) {
        SiteRow[] rows = new SiteRow[usages.size()];
        for (int i = 0; i < rows.length; i++) {
            LiveSites.Usage u = usages.get(i);
            SiteTable.Info s = SiteTable.get(u.site);
            String site = s == null ? "site#" + u.site : Site.frame(s.className, s.method, s.file, s.line);
            String type = s == null ? null : s.type;
            rows[i] = new SiteRow(site, type == null ? "" : type, u.liveBytes, u.liveObjects, u.liveSamples,
                    u.allocatedBytes, u.allocatedObjects, u.samples);
        }
        return rows;
    }
}
