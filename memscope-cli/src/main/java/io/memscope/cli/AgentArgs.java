package io.memscope.cli;

import io.memscope.launch.AgentOptions;
import io.memscope.error.MemscopeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The agent options shared by {@code run} and {@code attach}, turned into the agent's argument string. */
final class AgentArgs {
    @Option(names = "--mode", paramLabel = "sample|exact",
            description = "sample: Poisson sampling by bytes per thread (default); exact: also count every allocation")
    String mode;

    @Option(names = "--sampler", paramLabel = "auto|jvmti|bytecode",
            description = "sample mode's heap sampler: the JVM's own (jvmti) or bytecode hooks; auto (default) = jvmti "
                    + "when available")
    String sampler;

    @Option(names = "--interval", paramLabel = "BYTES",
            description = "mean sampling interval, e.g. 524288, 512k, 1m (default 512k)")
    String interval;

    @Option(names = "--include", paramLabel = "PREFIX", split = ",",
            description = "only track allocations by classes under these package prefixes (the site's class)")
    List<String> include = new ArrayList<>();

    @Option(names = "--exclude", paramLabel = "PREFIX", split = ",",
            description = "never track allocations by classes under these package prefixes")
    List<String> exclude = new ArrayList<>();

    @Option(names = "--include-jdk", description = "also instrument JDK classes (java.util, java.io, ...)")
    boolean includeJdk;

    @Option(names = "--no-native", description = "do not track direct ByteBuffers, Unsafe and FFM arena native memory")
    boolean noNative;

    @Option(names = "--no-gc", description = "do not record GC collections")
    boolean noGc;

    @Option(names = "--end-check", paramLabel = "gc|off", description = "at the end of each capture, confirm what "
            + "is still reachable: gc (default) collects the whole heap, so that held memory at the end is reachable "
            + "memory (its pause grows with the heap: skipped above --end-check-max-heap); off ends at once, and "
            + "memory no whole-heap collection judged is reported as unconfirmed")
    String endCheck;

    @Option(names = "--end-check-max-heap", paramLabel = "SIZE", description = "skip the end check when more heap "
            + "than this is in use, e.g. 8g (default 8g)")
    String endCheckMaxHeap;

    @Option(names = "--process-memory-interval", paramLabel = "MILLIS", description = "sample the process's memory "
            + "(RSS and its parts) this often, in milliseconds; 0 = off (default 100)")
    String processMemoryInterval;

    @Option(names = "--malloc", negatable = true, description = "sample the process's malloc calls (native "
            + "libraries, JNI, FFM) by bytes, with native and Java stacks; Linux x86_64, glibc (default off)")
    Boolean malloc;

    @Option(names = "--malloc-interval", paramLabel = "SIZE", description = "mean bytes between malloc samples, "
            + "e.g. 128k (default 128k)")
    String mallocInterval;

    @Option(names = "--max-size", paramLabel = "SIZE", description = "bound the recording: write it in chunks and "
            + "delete the oldest while they take more than this, e.g. 256m, 1g (default: none for run; 1g for attach)")
    String maxSize;

    @Option(names = "--max-age", paramLabel = "DURATION", description = "bound the recording: write it in chunks and "
            + "delete those that ended longer ago than this, e.g. 2h (default: none for run; 24h for attach)")
    String maxAge;

    @Option(names = "--gc-at-end", hidden = true, description = "obsolete: the end check is on by default")
    boolean gcAtEnd;

    @Option(names = "--stack-depth", paramLabel = "N", description = "frames per sampled stack (default 64)")
    Integer stackDepth;

    @Option(names = "--strict", description = "invalid options and memscope failures stop the JVM")
    boolean strict;

    @Option(names = "--functions", paramLabel = "PATTERN", split = ";",
            description = "profile these methods per call site (calls, time, allocated and held bytes): "
                    + "pkg.Class.method, pkg.Class.* or pkg.**; several separated by ';'")
    List<String> functions = new ArrayList<>();

    @Option(names = "--gc-at-edges", description = "a full GC when the capture starts too (the end check runs one at "
            + "the end), as function profilers do: memory already garbage then is not counted as held")
    boolean gcAtEdges;

    @Option(names = "--push", paramLabel = "URL", description = "push a pprof profile of every interval to this "
            + "Grafana Pyroscope server (POST URL/ingest); its authorization from the environment variable "
            + "MEMSCOPE_PUSH_AUTH or --push-auth-file, never on the command line")
    String push;

    @Option(names = "--push-interval", paramLabel = "DURATION", description = "how often to push, e.g. 10s (default)")
    String pushInterval;

    @Option(names = "--push-name", paramLabel = "NAME",
            description = "application name of the pushed profiles (default: the main class or jar)")
    String pushName;

    @Option(names = "--push-label", paramLabel = "KEY=VALUE",
            description = "a label of every pushed profile (host and pid are added); repeatable")
    List<String> pushLabels = new ArrayList<>();

    @Option(names = "--push-tenant", paramLabel = "ID", description = "X-Scope-OrgID of the push (multi-tenant)")
    String pushTenant;

    @Option(names = "--push-auth-file", paramLabel = "FILE", description = "the push's Authorization header value "
            + "(or user:token, or a bearer token) in a file only its owner can read")
    Path pushAuthFile;

    @Option(names = "--agent-option", paramLabel = "KEY=VALUE",
            description = "any other agent option (see the list below), passed as is")
    List<String> extra = new ArrayList<>();

    /** @return the agent argument string, validated by the agent's own parser */
    String toAgentString(Path out, Long durationSeconds) {
        List<String> parts = new ArrayList<>();
        if (mode != null) {
            parts.add("mode=" + mode);
        }
        if (sampler != null) {
            parts.add("sampler=" + sampler);
        }
        if (interval != null) {
            parts.add("interval=" + interval);
        }
        if (!include.isEmpty()) {
            parts.add("include=" + String.join(";", include));
        }
        if (!exclude.isEmpty()) {
            parts.add("exclude=" + String.join(";", exclude));
        }
        if (includeJdk) {
            parts.add("includeJdk=true");
        }
        if (noNative) {
            parts.add("native=false");
        }
        if (noGc) {
            parts.add("gc=false");
        }
        if (endCheck != null) {
            parts.add("endCheck=" + endCheck);
        }
        if (endCheckMaxHeap != null) {
            parts.add("endCheckMaxHeap=" + endCheckMaxHeap);
        }
        if (processMemoryInterval != null) {
            parts.add("processMemory=" + processMemoryInterval);
        }
        if (malloc != null) {
            parts.add("malloc=" + malloc);
        }
        if (mallocInterval != null) {
            parts.add("mallocInterval=" + mallocInterval);
        }
        if (maxSize != null) {
            parts.add("maxSize=" + maxSize);
        }
        if (maxAge != null) {
            parts.add("maxAge=" + maxAge);
        }
        if (stackDepth != null) {
            parts.add("stackDepth=" + stackDepth);
        }
        if (strict) {
            parts.add("strict=true");
        }
        if (!functions.isEmpty()) {
            parts.add("functions=" + String.join(";", functions));
        }
        if (gcAtEdges) {
            parts.add("gcAtEdges=true");
        }
        if (push != null) {
            parts.add("push=" + push);
        }
        if (pushInterval != null) {
            parts.add("pushInterval=" + pushInterval);
        }
        if (pushName != null) {
            parts.add("pushName=" + pushName);
        }
        if (!pushLabels.isEmpty()) {
            parts.add("pushLabels=" + String.join(";", pushLabels));
        }
        if (pushTenant != null) {
            parts.add("pushTenant=" + pushTenant);
        }
        if (pushAuthFile != null) {
            try {
                io.memscope.launch.PushAuth.header(java.util.Map.of(), pushAuthFile); // fails now, not in the JVM
            } catch (IllegalArgumentException e) {
                throw MemscopeException.configuration(e.getMessage());
            }
            parts.add("pushAuthFile=" + pushAuthFile.toAbsolutePath());
        }
        if (out != null) {
            String o = out.toAbsolutePath().toString();
            if (o.contains(",")) {
                throw MemscopeException.configuration("the output directory must not contain ',': " + o);
            }
            parts.add("out=" + o);
        }
        if (durationSeconds != null) {
            parts.add("duration=" + durationSeconds);
        }
        parts.addAll(extra);
        String args = String.join(",", parts);
        AgentOptions parsed = AgentOptions.parse(args, java.util.Map.of());
        if (!parsed.errors().isEmpty()) {
            throw MemscopeException.configuration("invalid agent options: " + String.join("; ", parsed.errors()));
        }
        return args;
    }

    /** The agent options as help text lines. */
    static String optionsHelp() {
        StringBuilder sb = new StringBuilder("%nAgent options (agent argument KEY=VALUE, or environment variable):%n");
        for (String line : AgentOptions.HELP) {
            sb.append("  ").append(line.replace("%", "%%")).append("%n");
        }
        return sb.toString();
    }
}
