package io.memscope.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandLineMaskTest {
    private final CommandLineMask mask = new CommandLineMask(CommandLineMask.DEFAULT_WORDS);

    @Test
    void valuesOfArgumentsThatLookLikeSecretsAreMasked() {
        assertThat(mask.mask("com.acme.App --db-password=hunter2 --port=8080")).isEqualTo(
                "com.acme.App --db-password=*** --port=8080");
        assertThat(mask.mask("app.jar -Dapi.Token=abc --user bob --password hunter2 --verbose")).isEqualTo(
                "app.jar -Dapi.Token=*** --user bob --password *** --verbose");
        assertThat(mask.mask("Main SECRET_KEY:xyz --api-key -- next")).isEqualTo("Main SECRET_KEY:*** --api-key -- next");
        assertThat(mask.mask("Main --url=jdbc:postgresql://app:hunter2@db:5432/app?ssl=true"))
                .isEqualTo("Main --url=jdbc:postgresql://app:***@db:5432/app?ssl=true");
        assertThat(mask.mask("Main https://user:p4ss@host/x http://host:80/y"))
                .isEqualTo("Main https://user:***@host/x http://host:80/y");
        assertThat(mask.mask("Main plain args 1 2")).isEqualTo("Main plain args 1 2");
    }

    @Test
    void theWordsAndTheRecordingOfTheCommandLineAreOptions() {
        AgentOptions custom = AgentOptions.parse("secrets=pin;otp", Map.of());
        assertThat(custom.recordedCommandLine("Main --pin=1234 --password=x")).isEqualTo(
                "Main --pin=*** --password=x");
        assertThat(AgentOptions.parse("commandLine=full", Map.of()).recordedCommandLine("Main --password=x"))
                .isEqualTo("Main --password=x");
        assertThat(AgentOptions.parse("commandLine=off", Map.of()).recordedCommandLine("Main --password=x")).isNull();
        assertThat(AgentOptions.parse("", Map.of("MEMSCOPE_COMMAND_LINE", "off")).recordedCommandLine("Main"))
                .isNull();
        assertThat(AgentOptions.parse("commandLine=some", Map.of()).errors()).hasSize(1);
        assertThat(AgentOptions.parse("secrets=;", Map.of()).errors()).hasSize(1);
    }
}
