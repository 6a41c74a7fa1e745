package io.memscope.cli;

import io.memscope.Memscope;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

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
        String chosen = chosenCommand(args);
        return newCommandLine(chosen::equals).execute(args);
    }

    /** The CLI with every command built in full. */
    static CommandLine newCommandLine() {
        return newCommandLine(name -> true);
    }

    /**
     * The CLI with the commands {@code full} accepts built in full; the others are outlines, their names and
     * descriptions only, enough for the list of commands in {@code memscope --help} and for picocli's suggestions. The
     * full models of all commands (options, their types, footers: picocli's reflection, interpreted in a cold JVM)
     * were most of what {@code memscope --help} cost (docs/benchmarks.md, "The command line's own cost").
     */
    static CommandLine newCommandLine(Predicate<String> full) {
        CommandLine cl = new CommandLine(new Main());
        for (Object sub : SUBCOMMANDS) {
            Command command = ((Class<?>) sub).getAnnotation(Command.class);
            if (!names(command, full)) {
                cl.addSubcommand(command.name(), outline(command), command.aliases());
                continue;
            }
            cl.addSubcommand(sub);
            if (sub == RunCommand.class || sub == AttachCommand.class) {
                CommandLine c = cl.getSubcommands().get(command.name());
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

    /**
     * The command the arguments name: the first argument that is not an option ({@code memscope} itself has only
     * {@code -h} and {@code -V}), or the one after {@code help}; "" when there is none.
     */
    static String chosenCommand(String... args) {
        boolean help = false;
        for (String a : args) {
            if (a.startsWith("-")) {
                continue;
            }
            if (a.equals("help") && !help) {
                help = true;
                continue;
            }
            return a;
        }
        return "";
    }

    private static boolean names(Command command, Predicate<String> chosen) {
        if (chosen.test(command.name())) {
            return true;
        }
        for (String alias : command.aliases()) {
            if (chosen.test(alias)) {
                return true;
            }
        }
        return false;
    }

    /** A command's name, aliases, header and description, as the list of commands shows them. */
    private static CommandSpec outline(Command command) {
        CommandSpec spec = CommandSpec.create().name(command.name()).aliases(command.aliases());
        spec.usageMessage().header(command.header()).description(command.description()).hidden(command.hidden());
        return spec;
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
                "memscope " + Memscope.version(),
                "JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
            };
        }
    }
}
