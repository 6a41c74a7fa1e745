package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Every command's {@code --help} and {@code memscope help <command>} print its usage and exit 0. */
class HelpTest {

    /** Every command and subcommand path below {@code memscope} (e.g. {@code "accounting"}), from the CLI itself. */
    static Stream<String> commands() {
        List<String> paths = new ArrayList<>();
        collect(Main.newCommandLine(), "", paths);
        assertThat(paths).contains("run", "accounting", "live", "report", "dump", "trace", "latency", "events");
        return paths.stream();
    }

    private static void collect(CommandLine cl, String prefix, List<String> out) {
        cl.getSubcommands().forEach((name, sub) -> {
            if (!sub.getCommandName().equals(name)) {
                return; // an alias
            }
            String path = prefix.isEmpty() ? name : prefix + " " + name;
            if (!name.equals("help")) {
                out.add(path);
            }
            collect(sub, path, out);
        });
    }

    @ParameterizedTest
    @MethodSource("commands")
    void dashDashHelpPrintsTheUsageAndExitsZero(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--help");
        String[] r = MainTest.run(args.toArray(String[]::new));
        assertThat(r[0]).as("exit code of %s --help; stderr: %s", command, r[2]).isEqualTo("0");
        assertThat(r[1]).contains("Usage: memscope " + command);
        assertThat(r[2]).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("commands")
    void helpCommandPrintsTheSameUsage(String command) {
        if (command.contains(" ")) {
            return; // `memscope help` names first-level commands only
        }
        String[] viaHelp = MainTest.run("help", command);
        String[] viaOption = MainTest.run(command, "--help");
        assertThat(viaHelp[0]).as("exit code of help %s; stderr: %s", command, viaHelp[2]).isEqualTo("0");
        assertThat(viaHelp[1]).isEqualTo(viaOption[1]);
    }

    /**
     * A run builds only the command it names in full, the others as outlines (name and description): the list of
     * commands in {@code memscope --help} is the same from outlines as from every command built in full.
     */
    @Test
    void theListOfCommandsFromOutlinesIsTheFullOne() {
        assertThat(usage(Main.newCommandLine(name -> false))).isEqualTo(usage(Main.newCommandLine()))
                .contains("report", "Compare two runs");
    }

    @Test
    void onlyTheChosenCommandIsBuiltInFull() {
        CommandLine cl = Main.newCommandLine(Main.chosenCommand("report", "--json", "r.json", "dir")::equals);
        assertThat(cl.getSubcommands().get("report").getCommandSpec().options()).isNotEmpty();
        assertThat(cl.getSubcommands().get("run").getCommandSpec().options()).as("an outline").isEmpty();
        assertThat(cl.getSubcommands().get("diff").getCommandSpec().options()).as("an outline").isEmpty();
    }

    @Test
    void theChosenCommandIsTheFirstArgumentThatIsNotAnOptionOrTheOneAfterHelp() {
        assertThat(Main.chosenCommand()).isEmpty();
        assertThat(Main.chosenCommand("--help")).isEmpty();
        assertThat(Main.chosenCommand("-V")).isEmpty();
        assertThat(Main.chosenCommand("help")).isEmpty();
        assertThat(Main.chosenCommand("help", "run")).isEqualTo("run");
        assertThat(Main.chosenCommand("run", "--out", "x", "--", "java", "-version")).isEqualTo("run");
        assertThat(Main.chosenCommand("reprt")).isEqualTo("reprt");
    }

    private static String usage(CommandLine cl) {
        StringWriter w = new StringWriter();
        cl.usage(new PrintWriter(w));
        return w.toString();
    }
}
