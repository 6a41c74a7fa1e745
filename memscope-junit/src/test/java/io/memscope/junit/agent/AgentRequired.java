package io.memscope.junit.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.jmx.AgentClient;
import org.junit.jupiter.api.Assumptions;

/** Tests of this package need the agent: Surefire's {@code with-agent} execution runs them with it (and says so). */
final class AgentRequired {
    private AgentRequired() {
    }

    static void check() {
        if (Boolean.getBoolean("memscope.test.withAgent")) {
            assertThat(AgentClient.platform().isPresent()).as("the agent runs in this JVM").isTrue();
        }
        Assumptions.assumeTrue(AgentClient.platform().isPresent(), "needs the agent (Surefire execution with-agent)");
    }
}
