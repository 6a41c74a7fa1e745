package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.BoundsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's tables stay within their bounds on a program that makes new code all the time (classes defined under
 * new names, each allocating in its method and its lambda: new sites and stacks every class; short-lived threads with
 * new names), at a high allocation rate and a small interval, with tiny bounds given as options: every table's
 * highest size is at or under its bound (on the MXBean while it runs, and in the recording's end metadata), the
 * evictions and refusals are counted, the report is built and says the tables were full, and the sites beyond the
 * bound are recorded under one site.
 * The JVM sampler is Linux x86_64; with the bytecode hooks elsewhere the site and string bounds hold the same way.
 */
class AgentBoundsTest {
    private static final int MAX_STACKS = 256;
    private static final int MAX_SITES = 512;
    private static final int MAX_STRINGS = 2048;
    /** Classes the program makes: each brings two sites and two stacks, far more than the bounds. */
    private static final int CLASSES = 1500;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tablesStayWithinTheirBoundsAndWhatWentIsCounted(@TempDir Path out) throws Exception {
        Path done = out.resolve("done.txt");
        int code = Jvms.memscopeRun(out.resolve("run"), List.of("--interval", "16k",
                        "--agent-option", "maxStacks=" + MAX_STACKS, "--agent-option", "maxSites=" + MAX_SITES,
                        "--agent-option", "maxStrings=" + MAX_STRINGS),
                List.of(Jvms.current(), "-Xmx256m", "-cp", Jvms.classPath(BoundsFixture.class),
                        BoundsFixture.class.getName(), Integer.toString(CLASSES), done.toString()));
        assertThat(code).isZero();
        assertThat(Files.readString(done)).startsWith("done classes=" + CLASSES);
        java.util.Properties mx = new java.util.Properties();
        mx.load(new java.io.StringReader(Files.readString(done).replace(' ', '\n')));
        assertThat(Long.parseLong(mx.getProperty("mxbean.stacks"))).as("MXBean: stacks held while running")
                .isLessThanOrEqualTo(MAX_STACKS);
        assertThat(Long.parseLong(mx.getProperty("mxbean.stacksHighest"))).isLessThanOrEqualTo(MAX_STACKS);
        assertThat(Long.parseLong(mx.getProperty("mxbean.stacksEvicted"))).isPositive();
        assertThat(Long.parseLong(mx.getProperty("mxbean.sites"))).isLessThanOrEqualTo(MAX_SITES + 1);
        assertThat(Long.parseLong(mx.getProperty("mxbean.sitesRefused"))).isPositive();

        Object report = Jvms.report(out.resolve("run"));
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(Jvms.metadataCount(meta, "bounds.stacksLimit")).isEqualTo(MAX_STACKS);
        assertThat(Jvms.metadataCount(meta, "bounds.stacksHighest")).as("stack texts held at most")
                .isPositive().isLessThanOrEqualTo(MAX_STACKS);
        assertThat(Jvms.metadataCount(meta, "bounds.stacksEvicted")).as("written stacks evicted").isPositive();
        assertThat(Jvms.metadataCount(meta, "bounds.stacksLost")).as("no stack written without its frames")
                .isZero();
        assertThat(Jvms.metadataCount(meta, "bounds.sitesLimit")).isEqualTo(MAX_SITES);
        assertThat(Jvms.metadataCount(meta, "bounds.sites")).as("sites: the bound and the one beyond it")
                .isLessThanOrEqualTo(MAX_SITES + 1);
        assertThat(Jvms.metadataCount(meta, "bounds.sitesRefused")).isPositive();
        assertThat(Jvms.metadataCount(meta, "bounds.stringsLimit")).isEqualTo(MAX_STRINGS);
        assertThat(Jvms.metadataCount(meta, "bounds.strings"))
                .as("strings: the bound on names, the placeholder and the recording's own vocabulary (metadata)")
                .isLessThanOrEqualTo(MAX_STRINGS + 1 + 256);
        assertThat(Jvms.metadataCount(meta, "bounds.stringsRefused")).isPositive();
        if (meta.containsKey("bounds.resolvedStacks")) { // the JVM sampler
            // (its resolved stacks are bounded past the first 36,864 only: more than this program makes)
            assertThat(Jvms.metadataCount(meta, "bounds.methods")).isLessThanOrEqualTo(MAX_STACKS);
            assertThat(Jvms.metadataCount(meta, "bounds.methodsEvicted")).isPositive();
            assertThat(Jvms.metadataCount(meta, "jvmti.unresolvedStacks")).as("evicted, never unresolvable")
                    .isZero();
        }

        assertThat(Jvms.sites(report, "topAllocationSites")).as("allocations past the bound, under one site")
                .anyMatch(s -> s.startsWith("(sites beyond the bound)"));
        String summary = Files.readString(Jvms.summaryFile(out.resolve("run")));
        assertThat(summary).contains("the agent's tables reached their bounds").contains("new allocation sites "
                + "recorded as '(sites beyond the bound)' (maxSites=512)");
    }
}
