package io.memscope.cli;

import io.memscope.Version;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code memscope} command. Each subcommand is a small class in this package; register new ones in
 * {@link #SUBCOMMANDS}.
 */
@Command(name = "memscope",
        mixinStandardHelpOptions = true,
        versionProvider = Main.VersionProvider.class,
        description = "Memory tracking for JVM applications: allocations, leaks, temporaries, native memory, "
                + "accounting, GC pauses and runtime events.",
        subcommands = {CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    /** Subcommands (classes: picocli makes a fresh instance per execution), in the order {@code --help} lists them. */
    static final Object[] SUBCOMMANDS = {
        RunCommand.class,
        AttachCommand.class,
        DetachCommand.class,
        ReportCommand.class,
        DiffCommand.class,
        ExportCommand.class,
        DumpCommand.class,
        AccountingCommand.class,
        LiveCommand.class,
        PathsCommand.class,
        TopCommand.class,
        TraceCommand.class,
        LatencyCommand.class,
        EventsCommand.class,
    };

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the CLI and returns its exit code, without exiting (for tests). */
    public static int execute(String... args) {
        return newCommandLine().execute(args);
    }

    static CommandLine newCommandLine() {
        CommandLine cl = new CommandLine(new Main());
        for (Object sub : SUBCOMMANDS) {
            cl.addSubcommand(sub);
            if (sub == RunCommand.class || sub == AttachCommand.class) {
                CommandLine c = cl.getSubcommands().get(sub == RunCommand.class ? "run" : "attach");
                String[] footer = c.getCommandSpec().usageMessage().footer();
                String[] withAgent = java.util.Arrays.copyOf(footer, footer.length + 1);
                withAgent[footer.length] = AgentArgs.optionsHelp();
                c.getCommandSpec().usageMessage().footer(withAgent);
                c.setUsageHelpWidth(160);
            }
            if (sub == RunCommand.class) {
                CommandLine run = cl.getSubcommands().get("run");
                // `memscope run java -version`: everything from the command's first word on is the command's
                run.setStopAtPositional(true);
            }
        }
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler(new CliErrors());
        CommandLine.IParameterExceptionHandler usual = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((ex, args) -> ex.getCommandLine().getCommand() instanceof RunCommand
                ? RunCommand.commandGoesAfterDashDash(ex, args, usual) : usual.handleParseException(ex, args));
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Prints the version of this build and of the JVM running the CLI. */
    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "memscope " + Version.get(),
                "JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
            };
        }
    }
}
