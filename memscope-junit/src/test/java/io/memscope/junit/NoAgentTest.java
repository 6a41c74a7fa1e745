package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;

import memscope.fixtures.NoAgentFixture;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

/** {@link NoLeaks} and {@link MaxNativeMemory} in a JVM without the agent: a message that says how to add it. */
class NoAgentTest {
    @org.junit.jupiter.api.BeforeEach
    void withoutAgent() {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.memscope.jmx.AgentClient.platform().isPresent(),
                "this JVM runs the agent");
    }

    @Test
    void failsSayingHowToAddTheAgent() throws java.io.IOException {
        Map<String, Fixtures.Outcome> r = Fixtures.run(NoAgentFixture.class, Map.of());
        assertThat(r.get("leakCheck").status()).isEqualTo(TestExecutionResult.Status.FAILED);
        String message = r.get("leakCheck").message();
        assertThat(message).startsWith("@NoLeaks needs the memscope agent in the test JVM")
                .contains("<argLine>-javaagent:${project.build.directory}/memscope-agent.jar</argLine>")
                .contains("docs/api.md, \"Adding the agent to Surefire\"").contains("). With Maven, copy the agent jar")
                .endsWith(".");
        // the setup it names is the one the docs show
        String api = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/api.md"));
        assertThat(api).contains("### Adding the agent to Surefire").contains(
                "<argLine>-javaagent:${project.build.directory}/memscope-agent.jar").contains("<goal>copy</goal>");
        assertThat(r.get("nativeCheck").message()).startsWith("@MaxNativeMemory needs the memscope agent");
    }

    @Test
    void abortsInsteadWhenConfiguredSo() {
        Map<String, Fixtures.Outcome> r = Fixtures.run(NoAgentFixture.class,
                Map.of(MemscopeExtension.AGENT_MISSING, "abort"));
        assertThat(r.get("leakCheck").status()).isEqualTo(TestExecutionResult.Status.ABORTED);
    }
}
