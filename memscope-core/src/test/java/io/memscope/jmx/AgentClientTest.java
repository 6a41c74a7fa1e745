package io.memscope.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@link AgentClient} against an MXBean with the agent's attribute and operation names (this JVM runs no agent): the
 * open data the agent returns is read back, and what an older agent lacks is named.
 */
@Isolated
class AgentClientTest {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    /** The agent's row type, as the agent's MXBean maps it (items site, type, bytes, objects, samples, stack). */
    public static final class Row {
        public String getSite() {
            return "com.acme.Cache.put(Cache.java:12)";
        }

        public String getType() {
            return "byte[]";
        }

        public long getBytes() {
            return 4096;
        }

        public long getObjects() {
            return 2;
        }

        public long getSamples() {
            return 1;
        }

        public String[] getStack() {
            return new String[] {"com.acme.Cache.put(Cache.java:12)", "com.acme.CacheTest.fills(CacheTest.java:9)"};
        }
    }

    /** The subset of the agent's MXBean this test needs. */
    public interface FakeAgentMXBean {
        boolean isRunning();

        long getLiveBytes();

        long getNativeOutstandingBytes();

        java.util.Map<String, String> getPushCounters();

        Row[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows);
    }

    /** Remembers what it was asked. */
    public static final class FakeAgent implements FakeAgentMXBean {
        long[] threads;
        long threadsFrom;

        @Override
        public boolean isRunning() {
            return true;
        }

        @Override
        public long getLiveBytes() {
            return 123;
        }

        @Override
        public long getNativeOutstandingBytes() {
            return 456;
        }

        @Override
        public java.util.Map<String, String> getPushCounters() {
            return java.util.Map.of("push.sent", "3", "push.failed", "0");
        }

        @Override
        public Row[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows) {
            this.threads = threadIds;
            this.threadsFrom = threadsFrom;
            return new Row[] {new Row()};
        }
    }

    /** An agent that returns the client's own records, as the agent's MXBean does. */
    public interface RecordAgentMXBean {
        AgentClient.SiteUsage[] topSitesByLiveBytes(int n);

        AgentClient.HeldGroup[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows);
    }

    static final AgentClient.SiteUsage SITE = new AgentClient.SiteUsage("com.acme.Cache.put(Cache.java:12)", "byte[]",
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    static final AgentClient.HeldGroup GROUP = new AgentClient.HeldGroup("com.acme.Cache.put(Cache.java:12)",
            "byte[]", 1, 2, 3, List.of("a.B.c(B.java:1)", "d.E.f(E.java:2)"), 4, 5);

    /** Returns one row of each. */
    public static final class RecordAgent implements RecordAgentMXBean {
        @Override
        public AgentClient.SiteUsage[] topSitesByLiveBytes(int n) {
            return new AgentClient.SiteUsage[] {SITE};
        }

        @Override
        public AgentClient.HeldGroup[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom,
                                                 int maxRows) {
            return new AgentClient.HeldGroup[] {GROUP};
        }
    }

    @AfterEach
    void unregister() throws Exception {
        ObjectName name = new ObjectName(AgentClient.OBJECT_NAME);
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
    }

    @Test
    void withoutAnAgentEverythingIsNeutral() {
        AgentClient c = AgentClient.platform();
        assertThat(c.isPresent()).isFalse();
        assertThat(c.isRunning()).isFalse();
        assertThat(c.liveBytes()).isZero();
        assertThat(c.heldSince(0, 1, new long[0], 0, 10)).isEmpty();
        assertThat(c.topSites(10, AgentClient.SiteOrder.LIVE)).isEmpty();
        assertThat(c.pushCounters()).isEmpty();
    }

    @Test
    void readsTheAgentsOpenDataByName() throws Exception {
        FakeAgent fake = new FakeAgent();
        server.registerMBean(fake, new ObjectName(AgentClient.OBJECT_NAME));
        AgentClient c = AgentClient.platform();
        assertThat(c.isPresent()).isTrue();
        assertThat(c.isRunning()).isTrue();
        assertThat(c.liveBytes()).isEqualTo(123);
        assertThat(c.nativeOutstandingBytes()).isEqualTo(456);
        assertThat(c.pushCounters()).containsExactly(java.util.Map.entry("push.failed", "0"),
                java.util.Map.entry("push.sent", "3"));
        List<AgentClient.HeldGroup> held = c.heldSince(10, 20, new long[] {7}, Long.MAX_VALUE, 5);
        assertThat(held).containsExactly(new AgentClient.HeldGroup("com.acme.Cache.put(Cache.java:12)", "byte[]",
                4096, 2, 1, List.of("com.acme.Cache.put(Cache.java:12)", "com.acme.CacheTest.fills(CacheTest.java:9)")));
        assertThat(fake.threads).containsExactly(7);
        assertThat(fake.threadsFrom).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void whatAnOlderAgentLacksIsNamed() throws Exception {
        server.registerMBean(new FakeAgent(), new ObjectName(AgentClient.OBJECT_NAME));
        AgentClient c = AgentClient.platform();
        assertThatThrownBy(c::droppedSamples).isInstanceOf(AgentClient.AgentUnavailableException.class)
                .hasMessageContaining("no attribute DroppedSamples").hasMessageContaining("older version");
        assertThatThrownBy(() -> c.topSites(3, AgentClient.SiteOrder.ALLOCATED)).isInstanceOf(AgentClient.AgentUnavailableException.class)
                .hasMessageContaining("cannot run topSitesByAllocatedBytes");
    }

    @Test
    void recordsTheAgentReturnsComeBackEqual() throws Exception {
        server.registerMBean(new RecordAgent(), new ObjectName(AgentClient.OBJECT_NAME));
        AgentClient c = AgentClient.platform();
        assertThat(c.topSites(1, AgentClient.SiteOrder.LIVE)).containsExactly(SITE);
        assertThat(c.heldSince(0, 1, new long[0], 0, 1)).containsExactly(GROUP);
    }
}
