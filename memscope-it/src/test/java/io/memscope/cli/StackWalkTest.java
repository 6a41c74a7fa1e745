package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.StackShapesFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVM sampler's stack walk (stackWalk, the sampler library's stack_key.h): a sample's stack named by a walk of
 * its thread's frames reuses an earlier JVMTI answer, and that answer is exactly what JVMTI gives again. The JVMTI
 * sampler runs on Linux x86_64, where these tests run; the fixture allocates from every kind of frame (interpreted,
 * compiled, inlined, deoptimized, on-stack replaced, reflection, method handles, a native method, class
 * initializers run by the VM, exceptions, recursion past the depth kept, a virtual thread on JDK 21 and later).
 */
class StackWalkTest {
    static List<String> javas() {
        return Jvms.javas();
    }

    private static Map<String, Object> run(String java, Path out, String walk) throws Exception {
        List<String> options = walk == null ? List.of("--interval", "1k")
                : List.of("--interval", "1k", "--agent-option", "stackWalk=" + walk);
        int code = Jvms.memscopeRun(out.resolve("reports"), options, List.of(java, "-Xmx256m", "-cp",
                Jvms.classPath(StackShapesFixture.class), StackShapesFixture.class.getName()));
        assertThat(code).isZero();
        Object report = Jvms.report(out.resolve("reports"));
        assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
        assertThat(Jvms.sites(report, "topAllocationSites")).anyMatch(s -> s.contains("StackShapesFixture"));
        return Json.obj(report, "metadata");
    }

    /** Every answer the table gives is compared with GetStackTrace's: none differs, on any kind of frame. */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyReusedStackIsTheOneJvmtiGives(String java, @TempDir Path out) throws Exception {
        Map<String, Object> meta = run(java, out, "check");
        assertThat(meta.get("jvmti.stackWalk")).as(meta.toString()).isEqualTo("check");
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksMismatched")).as(meta.toString()).isZero();
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksChecked")).as(meta.toString()).isGreaterThan(10_000);
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksWalkedNew")).as("keys learnt: " + meta).isPositive();
        // Two threads meeting the same new stack at once both ask JVMTI; one answer is kept.
        assertThat(Jvms.metadataCount(meta, "jvmti.stackKeys")).as("the keys learnt are in the table: " + meta).isPositive()
                .isLessThanOrEqualTo(Jvms.metadataCount(meta, "jvmti.stacksWalkedNew"));
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksReused")).as("check mode always asks JVMTI").isZero();
    }

    /** By default most stacks the walk can name come from the table, a few are checked, none differs. */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void onByDefaultMostStacksAreReused(String java, @TempDir Path out) throws Exception {
        Map<String, Object> meta = run(java, out, null);
        assertThat(meta.get("jvmti.stackWalk")).as(meta.toString()).isEqualTo("on");
        long reused = Jvms.metadataCount(meta, "jvmti.stacksReused");
        // The virtual thread's samples are mostly not walkable (its frames frozen in its continuation): of the rest,
        // nearly all are answered from the table.
        long walkable = Jvms.metadataCount(meta, "jvmti.samples") - Jvms.metadataCount(meta, "jvmti.samplesThinned")
                - Jvms.metadataCount(meta, "jvmti.stacksUnwalkable");
        assertThat(reused).as(meta.toString()).isGreaterThan(walkable * 3 / 4);
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksChecked")).as("every 1024th reuse per thread: " + meta).isPositive();
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksMismatched")).as(meta.toString()).isZero();
        // every key the library reuses was taught to the resolver, class mirrors' samples included (they were not,
        // and the instance allocated right after its class loaded was lost now and then)
        assertThat(Jvms.metadataCount(meta, "jvmti.unresolvedStacks")).as(meta.toString()).isZero();
    }

    /** stackWalk=off: JVMTI answers every sample, as before the walk existed. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void offAsksJvmtiEverySample(@TempDir Path out) throws Exception {
        Map<String, Object> meta = run(Jvms.current(), out, "off");
        assertThat(meta.get("jvmti.stackWalk")).isEqualTo("off");
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksReused")).isZero();
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksWalkedNew")).isZero();
        assertThat(Jvms.metadataCount(meta, "jvmti.stacksUnwalkable")).isZero();
    }
}
