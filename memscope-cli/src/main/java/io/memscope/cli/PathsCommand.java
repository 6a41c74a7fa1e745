package io.memscope.cli;

import com.sun.tools.attach.VirtualMachine;
import io.memscope.analysis.Report;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.Retention;
import io.memscope.analysis.RetentionJson;
import io.memscope.analysis.SiteProfile;
import io.memscope.analysis.Summary;
import io.memscope.analysis.text.TerminalText;
import io.memscope.error.MemscopeException;
import io.memscope.launch.OptionValues;
import io.memscope.launch.AgentPropertyNames;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope paths <pid>}: why a running JVM holds its memory, now. The agent in that JVM walks the heap from
 * the GC roots (one pause, within the budgets given) and writes the paths it found into its recording; then the
 * paths are read back from the recording here, aggregated per allocation site into shapes (as in report.json's
 * {@code retainedBy}) and printed, largest first.
 */
@Command(name = "paths", mixinStandardHelpOptions = true,
        description = "Walk the heap of a running JVM with the memscope agent from its GC roots and print, per "
                + "allocation site, the reference paths that keep its sampled objects alive.")
final class PathsCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "process id of the JVM (running the memscope agent)")
    long pid;

    @Option(names = "--time-budget", paramLabel = "MS", description = "longest pause the walk may cause, in "
            + "milliseconds; past it the walk stops and covers what it reached (default: 2000)")
    long timeBudgetMillis = 2000;

    @Option(names = "--memory-budget", paramLabel = "BYTES", description = "most memory the walk may take in the "
            + "JVM, e.g. 256m (default: 256m); at most half of what the machine and its cgroup have free")
    String memoryBudget = "256m";

    @Option(names = "--top", paramLabel = "N", description = "sites shown (default: 10)")
    int top = 10;

    @Option(names = "--json", description = "print JSON: the walk and, per site, its retainedBy shapes")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (timeBudgetMillis < 1 || top < 1) {
            throw MemscopeException.configuration("--time-budget and --top must be at least 1");
        }
        long memory;
        try {
            memory = OptionValues.parseBytes(memoryBudget);
        } catch (IllegalArgumentException e) {
            throw MemscopeException.configuration("--memory-budget: " + e.getMessage());
        }
        VirtualMachine vm = AttachCommand.attach(pid);
        String recording;
        String walked;
        try {
            recording = AttachCommand.recordingOf(vm);
            if (recording == null) {
                throw MemscopeException.configuration("pid " + pid + " runs no memscope capture (start it with "
                        + "memscope run or memscope attach)");
            }
            vm.loadAgent(Jars.agent().toString(), "command=paths,pathsTime=" + timeBudgetMillis + ",pathsMemory="
                    + memory);
            walked = vm.getAgentProperties().getProperty(AgentPropertyNames.PATHS);
        } finally {
            vm.detach();
        }
        if (walked == null || walked.startsWith("no heap walk")) {
            throw MemscopeException.configuration("pid " + pid + ": " + (walked == null ? "the agent did not walk "
                    + "the heap (an older memscope agent?)" : walked));
        }
        Path file = Path.of(recording);
        if (!Files.isRegularFile(file)) {
            throw MemscopeException.system("the recording " + file + " of pid " + pid + " is missing", null);
        }
        Report report = ReportBuilder.build(file);
        if (json) {
            System.out.print(json(report));
        } else {
            print(System.out, report, walked);
        }
        return 0;
    }

    /** One site and the bytes its shapes keep alive. */
    private record Held(String site, String type, boolean leakSuspect, List<Retention.RetainedBy> shapes,
                        long bytes) {
    }

    /** The sites the walk reached, by the bytes their shapes keep alive, largest first. */
    private List<Held> sites(Report r) {
        List<Held> l = new ArrayList<>();
        for (SiteProfile s : r.sites()) {
            if (s.nativeMemory()) {
                continue;
            }
            List<Retention.RetainedBy> shapes = r.retention().of(s);
            if (shapes.isEmpty()) {
                continue;
            }
            long bytes = 0;
            for (Retention.RetainedBy b : shapes) {
                bytes += b.bytes();
            }
            l.add(new Held(s.site(), s.type(), s.leakSuspect(), shapes, bytes));
        }
        l.sort(Comparator.comparingLong((Held h) -> -h.bytes).thenComparing(Held::site));
        return l.size() > top ? l.subList(0, top) : l;
    }

    private void print(PrintStream out, Report r, String walked) {
        out.println("memscope paths: pid " + pid + ": " + TerminalText.safe(walked));
        List<Held> sites = sites(r);
        if (sites.isEmpty()) {
            out.println("  no sampled object still tracked was reached (nothing held, or the walk stopped first)");
            return;
        }
        for (Held h : sites) {
            out.printf(Locale.ROOT, "%n%10s  %s  [%s]%s%n", Summary.bytes(h.bytes), TerminalText.safe(h.site),
                    TerminalText.safe(h.type),
                    h.leakSuspect ? "  (leak suspect)" : "");
            for (Retention.RetainedBy b : h.shapes) {
                out.printf(Locale.ROOT, "  %10s %6d samples  %s%n", Summary.bytes(b.bytes()), b.samples(),
                        TerminalText.safe(b.root()));
                for (String step : b.path()) {
                    out.println("                              -> " + TerminalText.safe(step));
                }
            }
        }
    }

    private String json(Report r) {
        JsonWriter w = new JsonWriter();
        w.beginObject().field("pid", pid);
        RetentionJson.section(w, r.retention());
        w.name("sites").beginArray();
        for (Held h : sites(r)) {
            w.beginObject().field("site", h.site).field("type", h.type).field("leakSuspect", h.leakSuspect)
                    .field("bytes", h.bytes);
            RetentionJson.retainedBy(w, h.shapes);
            w.endObject();
        }
        w.endArray().endObject();
        return w + "\n";
    }
}
