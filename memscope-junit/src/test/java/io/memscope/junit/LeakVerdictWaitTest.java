package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.memscope.jmx.AgentClient;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * After its full GC, {@code @NoLeaks} waits for the agent to apply the collection's verdict: on a busy machine the
 * JVM's notification of what the collection examined reaches the agent a while after {@link System#gc()} returned,
 * and until then what the test left is only unconfirmed. An agent stand-in (registered under the agent's MXBean name;
 * this execution runs without the agent) answers "unconfirmed" to the first queries and "held" after.
 */
@Isolated
class LeakVerdictWaitTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final long LEAK = 8L << 20;

    /** The agent's MXBean methods the check calls. */
    public interface LateAgentMXBean {
        AgentClient.HeldGroup[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom,
                                          int maxRows);

        boolean catchUp();
    }

    /** Unconfirmed until its {@code judgedAt}-th query, held from then on ({@code judgedAt} 0: never judged). */
    public static final class LateAgent implements LateAgentMXBean {
        final AtomicInteger queries = new AtomicInteger();
        final AtomicInteger catchUps = new AtomicInteger();
        private final int judgedAt;

        LateAgent(int judgedAt) {
            this.judgedAt = judgedAt;
        }

        @Override
        public AgentClient.HeldGroup[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom,
                                                 int maxRows) {
            boolean judged = judgedAt > 0 && queries.incrementAndGet() >= judgedAt;
            return new AgentClient.HeldGroup[] {new AgentClient.HeldGroup("com.acme.Cache.put(Cache.java:12)",
                    "byte[]", judged ? LEAK : 0, judged ? 80 : 0, judged ? 80 : 0,
                    List.of("com.acme.Cache.put(Cache.java:12)"), judged ? 0 : LEAK, judged ? 0 : 80)};
        }

        @Override
        public boolean catchUp() {
            catchUps.incrementAndGet();
            return true;
        }
    }

    @NoLeaks(maxRetained = "1MiB")
    private void annotated() {
    }

    private LateAgent register(int judgedAt) throws Exception {
        LateAgent a = new LateAgent(judgedAt);
        SERVER.registerMBean(a, new ObjectName(AgentClient.OBJECT_NAME));
        return a;
    }

    @BeforeEach
    void noRealAgent() {
        assumeFalse(AgentClient.platform().isPresent(), "a real agent is loaded: its MXBean holds the name");
    }

    @AfterEach
    void unregister() throws Exception {
        ObjectName name = new ObjectName(AgentClient.OBJECT_NAME);
        if (SERVER.isRegistered(name)) {
            SERVER.unregisterMBean(name);
        }
    }

    private static String check() throws Exception {
        NoLeaks ann = LeakVerdictWaitTest.class.getDeclaredMethod("annotated").getAnnotation(NoLeaks.class);
        Window w = new Window(new Limits(-1, ann, 1L << 20, -1, Map.of()), false, new long[0],
                new BudgetCheck.Installed());
        try {
            return LeakCheck.noLeaks(w, System.nanoTime(), ann, 1L << 20, AgentClient.platform(), true);
        } finally {
            w.overlaps.close();
        }
    }

    @Test
    void aVerdictThatArrivesLateIsWaitedFor() throws Exception {
        LateAgent agent = register(4);
        String m = check();
        assertThat(m).startsWith("@NoLeaks: 8.00 MiB allocated by the test is still held after it")
                .contains("com.acme.Cache.put(Cache.java:12)").doesNotContain("cannot judge");
        assertThat(agent.queries.get()).isEqualTo(4);
        assertThat(agent.catchUps.get()).isEqualTo(3);
    }

    @Test
    void aVerdictThatNeverArrivesIsSaidAfterTheWait() throws Exception {
        LateAgent agent = register(0);
        long start = System.nanoTime();
        String m = check();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(LeakCheck.VERDICT_WAIT_NANOS);
        assertThat(m).startsWith("@NoLeaks: cannot judge: 8.00 MiB allocated by the test");
        assertThat(agent.catchUps.get()).isPositive();
    }
}
