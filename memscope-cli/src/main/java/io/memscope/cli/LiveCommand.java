package io.memscope.cli;

import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.Summary;
import io.memscope.analysis.text.TerminalText;
import io.memscope.error.MemscopeException;
import io.memscope.jmx.AgentClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code memscope live <pid>}: the live and allocated heap per allocation site of a JVM running under the memscope
 * agent, read from its {@code io.memscope:type=Agent} MXBean over local JMX ({@link LocalJmx}).
 *
 * <p>JSON output (one object):
 * <pre>
 * {"pid":123,"mode":"sample","intervalBytes":524288,"uptimeMillis":5012,"liveBytes":1234,"allocatedBytes":5678,
 *  "heldBytes":900,"unconfirmedBytes":300,"heldAgeMillis":2100,
 *  "byLiveBytes":[{"site":"a.B.m(B.java:12)","type":"byte[]","liveBytes":..,"liveObjects":..,"liveSamples":..,
 *                  "allocatedBytes":..,"allocatedObjects":..,"samples":..,"heldBytes":..,"unconfirmedBytes":..}, ...],
 *  "byAllocatedBytes":[ ...same fields... ]}
 * </pre>
 * Bytes and objects are estimates from the samples (unbiased); "live" = sampled objects not yet seen collected;
 * "held" = reachable at the latest collection that examined the whole heap ({@code heldAgeMillis} ago, -1 before the
 * first), "unconfirmed" = survived collections but judged by no whole-heap one (may be garbage; never in "held").
 */
@Command(name = "live", mixinStandardHelpOptions = true,
        description = "Print the live and allocated heap per allocation site of a JVM running under the memscope "
                + "agent (memscope run, -javaagent or memscope attach), while it runs.")
public final class LiveCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "<pid>", description = "Process id of the JVM.")
    String pid;

    @Option(names = "--top", paramLabel = "N", description = "Sites per table (default: 10).")
    int top = 10;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (top < 1) {
            throw MemscopeException.configuration("--top must be at least 1, not " + top);
        }
        String text = LocalJmx.read(pid, this::read);
        PrintWriter out = spec.commandLine().getOut();
        out.print(text);
        out.flush();
        return 0;
    }

    private String read(MBeanServerConnection server) throws Exception {
        ObjectName name = new ObjectName(AgentClient.OBJECT_NAME);
        if (!server.isRegistered(name)) {
            throw MemscopeException.configuration("JVM " + pid + " runs no memscope agent (no MBean "
                    + AgentClient.OBJECT_NAME + "): start it with `memscope run`, -javaagent or `memscope attach` "
                    + "(and jmx=true)");
        }
        String mode = (String) server.getAttribute(name, "Mode");
        long interval = (Long) server.getAttribute(name, "IntervalBytes");
        long uptime = (Long) server.getAttribute(name, "UptimeMillis");
        long live = (Long) server.getAttribute(name, "LiveBytes");
        long allocated = (Long) server.getAttribute(name, "AllocatedBytes");
        long held = (Long) server.getAttribute(name, "HeldBytes");
        long unconfirmed = (Long) server.getAttribute(name, "UnconfirmedBytes");
        long heldAge = (Long) server.getAttribute(name, "HeldAgeMillis");
        Object[] param = {top};
        String[] signature = {int.class.getName()};
        List<AgentClient.SiteUsage> byLive = rows(server.invoke(name, "topSitesByLiveBytes", param, signature));
        List<AgentClient.SiteUsage> byAllocated = rows(server.invoke(name, "topSitesByAllocatedBytes", param, signature));
        if (json) {
            StringBuilder b = new StringBuilder();
            b.append("{\"pid\":").append(Long.parseLong(pid)).append(",\"mode\":");
            JsonWriter.quote(b, mode).append(",\"intervalBytes\":").append(interval)
                    .append(",\"uptimeMillis\":").append(uptime)
                    .append(",\"liveBytes\":").append(live)
                    .append(",\"allocatedBytes\":").append(allocated)
                    .append(",\"heldBytes\":").append(held)
                    .append(",\"unconfirmedBytes\":").append(unconfirmed)
                    .append(",\"heldAgeMillis\":").append(heldAge);
            b.append(",\"byLiveBytes\":");
            jsonRows(b, byLive);
            b.append(",\"byAllocatedBytes\":");
            jsonRows(b, byAllocated);
            return b.append("}\n").toString();
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "memscope live: pid %s, %s mode (interval %s), capturing for %.1f s%n",
                pid, mode, Summary.bytes(interval), uptime / 1000.0));
        b.append(String.format(Locale.ROOT, "live heap (estimated): %s; allocated (estimated): %s%n",
                Summary.bytes(live), Summary.bytes(allocated)));
        b.append(heldAge < 0
                ? String.format(Locale.ROOT, "held: no collection of the whole heap yet; unconfirmed %s (survived "
                        + "collections that did not look at the old generation: may be garbage)%n%n",
                        Summary.bytes(unconfirmed))
                : String.format(Locale.ROOT, "held (reachable at the collection of the whole heap %.1f s ago, "
                        + "estimated): %s; unconfirmed since: %s (may be garbage)%n%n", heldAge / 1000.0,
                        Summary.bytes(held), Summary.bytes(unconfirmed)));
        table(b, "Top sites by live bytes", byLive);
        b.append('\n');
        table(b, "Top sites by allocated bytes", byAllocated);
        return b.toString();
    }

    private static List<AgentClient.SiteUsage> rows(Object result) {
        List<AgentClient.SiteUsage> l = new ArrayList<>();
        if (result instanceof CompositeData[]) {
            for (CompositeData c : (CompositeData[]) result) {
                l.add(AgentClient.siteUsage(c));
            }
        }
        return l;
    }

    private static void jsonRows(StringBuilder b, List<AgentClient.SiteUsage> rows) {
        b.append('[');
        for (int i = 0; i < rows.size(); i++) {
            AgentClient.SiteUsage u = rows.get(i);
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"site\":");
            JsonWriter.quote(b, u.site()).append(",\"type\":");
            JsonWriter.quote(b, u.type());
            b.append(",\"liveBytes\":").append(u.liveBytes())
                    .append(",\"liveObjects\":").append(u.liveObjects())
                    .append(",\"liveSamples\":").append(u.liveSamples())
                    .append(",\"allocatedBytes\":").append(u.allocatedBytes())
                    .append(",\"allocatedObjects\":").append(u.allocatedObjects())
                    .append(",\"samples\":").append(u.samples())
                    .append(",\"heldBytes\":").append(u.heldBytes())
                    .append(",\"unconfirmedBytes\":").append(u.unconfirmedBytes());
            b.append('}');
        }
        b.append(']');
    }

    private static void table(StringBuilder b, String title, List<AgentClient.SiteUsage> rows) {
        b.append(title).append('\n');
        if (rows.isEmpty()) {
            b.append("  (none yet)\n");
            return;
        }
        b.append(String.format(Locale.ROOT, "  %12s %12s %14s %12s %12s  %-20s %s%n", "live", "live objs",
                "allocated", "held", "unconfirmed", "type", "site"));
        for (AgentClient.SiteUsage u : rows) {
            b.append(String.format(Locale.ROOT, "  %12s %12d %14s %12s %12s  %-20s %s%n",
                    Summary.bytes(u.liveBytes()), u.liveObjects(), Summary.bytes(u.allocatedBytes()),
                    Summary.bytes(u.heldBytes()), Summary.bytes(u.unconfirmedBytes()), TerminalText.safe(u.type()),
                    TerminalText.safe(u.site())));
        }
    }
}
