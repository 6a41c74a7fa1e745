package io.memscope.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The push's options, and its credentials: never from the argument string, never in a message or the metadata. */
class PushOptionsTest {
    @Test
    void pushOptionsParse() {
        AgentOptions o = AgentOptions.parse("push=https://pyro.example:4040/,pushInterval=15s,pushName=orders-api,"
                + "pushLabels=env=prod;region=eu_1,pushTenant=team-a", Map.of());
        assertThat(o.errors()).isEmpty();
        assertThat(o.push()).isEqualTo("https://pyro.example:4040");
        assertThat(o.pushIntervalMillis()).isEqualTo(15_000);
        assertThat(o.pushName()).isEqualTo("orders-api");
        assertThat(o.pushLabels()).containsExactly(Map.entry("env", "prod"), Map.entry("region", "eu_1"));
        assertThat(o.pushTenant()).isEqualTo("team-a");
        AgentOptions d = AgentOptions.parse("", Map.of("MEMSCOPE_PUSH", "http://localhost:4040"));
        assertThat(d.push()).isEqualTo("http://localhost:4040");
        assertThat(d.pushIntervalMillis()).isEqualTo(10_000);
        assertThat(d.pushName()).isNull();
        assertThat(AgentOptions.parse("", Map.of()).push()).isNull();
        assertThat(OptionValues.parseDurationMillis("500ms")).isEqualTo(500);
        assertThat(OptionValues.parseDurationMillis("2m")).isEqualTo(120_000);
        assertThat(OptionValues.parseDurationMillis("1h")).isEqualTo(3_600_000);
        assertThat(OptionValues.parseDurationMillis("7")).isEqualTo(7_000);
    }

    @Test
    void badPushOptionsAreRefusedWithoutShowingCredentials() {
        assertThat(AgentOptions.parse("push=ftp://x", Map.of()).errors()).singleElement().asString()
                .contains("http or https");
        assertThat(AgentOptions.parse("push=http://x/?a=b", Map.of()).errors()).singleElement().asString()
                .contains("no query");
        String creds = AgentOptions.parse("push=https://user:hunter2@pyro.example", Map.of()).errors().get(0);
        assertThat(creds).contains("credentials in the URL are refused").doesNotContain("hunter2")
                .contains("https://***@pyro.example");
        String auth = AgentOptions.parse("pushAuth=hunter2", Map.of()).errors().get(0);
        assertThat(auth).contains("MEMSCOPE_PUSH_AUTH").doesNotContain("hunter2");
        assertThat(AgentOptions.parse("pushInterval=100ms", Map.of()).errors()).isNotEmpty();
        assertThat(AgentOptions.parse("pushLabels=env=a b", Map.of()).errors()).isNotEmpty();
        assertThat(AgentOptions.parse("pushLabels=__name__=x", Map.of()).errors()).isNotEmpty();
        assertThat(AgentOptions.parse("pushLabels=env={x}", Map.of()).errors()).isNotEmpty();
        assertThat(AgentOptions.parse("pushName=my app", Map.of()).errors()).isNotEmpty();
        assertThat(PushUrls.withoutUserInfo("http://a:b@h:1/p@q")).isEqualTo("http://***@h:1/p@q");
        assertThat(PushUrls.withoutUserInfo("http://h:1/p")).isEqualTo("http://h:1/p");
    }

    @Test
    void theTokenIsRecordedAsSetNeverItsValue() {
        AgentOptions o = AgentOptions.parse("push=http://h", Map.of("MEMSCOPE_PUSH_AUTH", "hunter2"));
        assertThat(o.errors()).isEmpty();
        assertThat(o.raw()).containsEntry("pushAuth", "(set)");
        assertThat(o.raw().toString()).doesNotContain("hunter2");
    }

    @Test
    void authorizationFromTheEnvironmentOrAPrivateFile(@TempDir Path dir) throws Exception {
        assertThat(PushAuth.header(Map.of(), null)).isNull();
        assertThat(PushAuth.header(Map.of("MEMSCOPE_PUSH_AUTH", "abc"), null)).isEqualTo("Bearer abc");
        assertThat(PushAuth.header(Map.of("MEMSCOPE_PUSH_AUTH", "Basic eHk="), null)).isEqualTo("Basic eHk=");
        assertThat(PushAuth.header(Map.of("MEMSCOPE_PUSH_AUTH", "123:glc_x"), null))
                .isEqualTo("Basic MTIzOmdsY194");
        Path f = dir.resolve("token");
        Files.writeString(f, "hunter2\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertThat(PushAuth.header(Map.of(), f)).isEqualTo("Bearer hunter2");
        assertThat(PushAuth.header(Map.of("MEMSCOPE_PUSH_AUTH", "env"), f)).as("the environment wins")
                .isEqualTo("Bearer env");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> PushAuth.header(Map.of(), f)).hasMessageContaining("chmod 600")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> PushAuth.header(Map.of(), dir.resolve("missing")))
                .hasMessageContaining("not a file");
    }
}
