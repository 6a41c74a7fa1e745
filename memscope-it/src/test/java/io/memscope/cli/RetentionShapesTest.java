package io.memscope.cli;

import static io.memscope.cli.RetentionTest.held;
import static io.memscope.cli.RetentionTest.path;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why memory is held, end to end through {@code memscope run} on real JVMs, for what RetentionTest's leaks do not
 * show: the JDK's linked structures (LinkedList, TreeMap, maps nested three deep) folded into one shape whatever the
 * depth, roots other than static fields (a thread's frame with the thread's name and the method, a JNI global
 * reference), and walks cut short by their budgets saying so and what they covered. The JVMTI sampler (and so the
 * walk) runs on Linux x86_64; the JNI library is built with gcc, as the agent's own.
 */
class RetentionShapesTest {
    private static final String SRC = "io/memscope/cli/RetentionShapesFixture.java";
    private static final String FIXTURE = "io.memscope.cli.RetentionShapesFixture";

    /** The JNI library of the fixture: keeps an object through a JNI global reference. */
    private static final String JNI_SOURCE = """
            #include <jni.h>
            static jobject held;
            JNIEXPORT void JNICALL Java_io_memscope_cli_RetentionShapesFixture_holdGlobal(JNIEnv *env, jclass c,
                                                                                        jobject o) {
                (void) c;
                held = (*env)->NewGlobalRef(env, o);
            }
            JNIEXPORT jobject JNICALL Java_io_memscope_cli_RetentionShapesFixture_global(JNIEnv *env, jclass c) {
                (void) c;
                return (*env)->NewLocalRef(env, held);
            }
            """;

    @TempDir
    Path tmp;

    private static String site(String method, String marker) throws Exception {
        return FIXTURE + "." + method + "(RetentionShapesFixture.java:" + Jvms.lineOf(SRC, marker) + ")";
    }

    private Path jniLibrary() throws Exception {
        Path src = tmp.resolve("retention_jni.c");
        Files.writeString(src, JNI_SOURCE);
        Path lib = tmp.resolve("libretentionjni.so");
        Path home = Path.of(System.getProperty("java.home"));
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-I" + home.resolve("include"),
                "-I" + home.resolve("include/linux"), "-o", lib.toString(), src.toString())
                .redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes());
        assertThat(gcc.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as(out).isZero();
        return lib;
    }

    @Test
    void linkedStructuresFoldAndEachKindOfRootIsNamed() throws Exception {
        assumeTrue(RetentionTest.linuxX64(), "the JVMTI sampler and its heap walk run on Linux x86_64");
        String queue = site("main", "// QUEUE_BUFFER");
        String index = site("main", "// INDEX_BUFFER");
        String tenants = site("main", "// TENANT_BUFFER");
        String jni = site("jniStore", "// JNI_BUFFER");
        String holder = site("hold", "// HOLDER_BUFFER");
        Path lib = jniLibrary();
        for (String java : Jvms.javas()) {
            Path out = tmp.resolve("run-" + Jvms.javas().indexOf(java));
            int code = Jvms.memscopeRun(out, List.of(), List.of(java, "-Xmx768m", "-Dmemscope.test.jni=" + lib,
                    "-cp", System.getProperty("java.class.path"), FIXTURE, "2500"));
            assertThat(code).as(java).isZero();
            Object report = Jvms.report(out);
            Map<String, Object> retention = Json.obj(report, "retention");
            assertThat(retention.get("outcome")).as(java + ": " + retention).isEqualTo("complete");

            // a linked list, whichever end the walk came in by: one shape through its nodes, whatever the depth
            Map<String, Object> q = held(report, queue);
            assertThat(q.get("root")).as(java).isEqualTo("static " + FIXTURE + ".QUEUE");
            assertThat(path(q)).as(java + ": " + q).hasSize(3);
            assertThat(path(q).get(0)).as(java).matches("java\\.util\\.LinkedList\\.(first|last)");
            assertThat(path(q).get(1)).as(java)
                    .matches("java\\.util\\.LinkedList\\$Node\\.(next|prev|\\{next,prev\\})\\*");
            assertThat(path(q).get(2)).as(java).isEqualTo("java.util.LinkedList$Node.item");

            // a red-black tree: its entries' left and right links fold into one group
            Map<String, Object> t = held(report, index);
            assertThat(t.get("root")).as(java).isEqualTo("static " + FIXTURE + ".INDEX");
            assertThat(path(t)).as(java + ": " + t).containsExactly("java.util.TreeMap.root",
                    "java.util.TreeMap$Entry.{left,right}*", "java.util.TreeMap$Entry.value");

            // maps in maps in a map: the repeated block folds, a hash bucket's chain folds too
            Map<String, Object> m = held(report, tenants);
            assertThat(m.get("root")).as(java).isEqualTo("static " + FIXTURE + ".TENANTS");
            assertThat(String.join(" | ", path(m))).as(java).matches(Pattern.quote(
                    "(java.util.HashMap.table -> java.util.HashMap$Node[] -> java.util.HashMap$Node.value)* | "
                    + "java.util.HashMap.table | java.util.HashMap$Node[] | ")
                    + "(java\\.util\\.HashMap\\$Node\\.next\\* \\| )?java\\.util\\.HashMap\\$Node\\.value");
            assertThat(shapes(report, tenants)).as(java).allSatisfy(s -> assertThat(s.get("root"))
                    .isEqualTo("static " + FIXTURE + ".TENANTS"));

            // one buffer in two fields of each holder: the walk cannot tell which field it went through, both named
            Map<String, Object> tw = held(report, site("main", "// TWIN_BUFFER"));
            assertThat(tw.get("root")).as(java).isEqualTo("static " + FIXTURE + ".TWINS");
            assertThat(path(tw)).as(java).containsExactly("java.util.ArrayList.elementData", "java.lang.Object[]",
                    FIXTURE + "$Twin.first|second");

            // a JNI global reference
            Map<String, Object> g = held(report, jni);
            assertThat(g.get("root")).as(java).isEqualTo("JNI global");
            assertThat(path(g)).as(java).containsExactly("java.util.ArrayList.elementData", "java.lang.Object[]");

            // a local variable of a waiting thread's frame: the thread's name, the method and its line
            Map<String, Object> h = held(report, holder);
            assertThat((String) h.get("root")).as(java).matches("thread holder: "
                    + Pattern.quote(FIXTURE + ".hold(RetentionShapesFixture.java:") + "\\d+\\)");
            assertThat(path(h)).as(java).containsExactly("java.util.ArrayList.elementData", "java.lang.Object[]");

            String summary = Files.readString(Jvms.summaryFile(out));
            assertThat(summary).as(java).doesNotContain("! paths from GC roots");
        }
    }

    @Test
    void aWalkCutShortByItsBudgetSaysSoAndWhatItCovered() throws Exception {
        assumeTrue(RetentionTest.linuxX64(), "the JVMTI sampler and its heap walk run on Linux x86_64");
        // 400,000 list nodes: more than a 1 ms pause or a 1 MiB walk (24 bytes a node) can cover
        Path time = tmp.resolve("time");
        assertThat(Jvms.memscopeRun(time, List.of("--agent-option", "pathsTime=1"), List.of(Jvms.current(),
                "-Xmx768m", "-cp", System.getProperty("java.class.path"), FIXTURE, "1000", "400000"))).isZero();
        Map<String, Object> t = Json.obj(Jvms.report(time), "retention");
        assertThat(t.get("outcome")).as(t.toString()).isEqualTo("time budget");
        assertThat(t.get("complete")).isEqualTo(false);
        assertThat((String) t.get("detail")).as(t.toString()).startsWith("stopped at its time budget of 1 ms after "
                + "visiting " + Json.num(t, "objectsVisited") + " objects");
        assertThat(Json.num(t, "objectsVisited")).isPositive().isLessThan(400_000);
        assertThat(Files.readString(Jvms.summaryFile(time))).contains("! paths from GC roots: the heap walk stopped "
                + "at its time budget: " + Json.num(t, "samplesReached") + " of "
                + Json.num(t, "samplesTracked") + " tracked samples reached (stopped at its time budget of 1 ms");

        Path memory = tmp.resolve("memory");
        assertThat(Jvms.memscopeRun(memory, List.of("--agent-option", "pathsMemory=1m"), List.of(Jvms.current(),
                "-Xmx768m", "-cp", System.getProperty("java.class.path"), FIXTURE, "1000", "400000"))).isZero();
        Map<String, Object> m = Json.obj(Jvms.report(memory), "retention");
        assertThat(m.get("outcome")).as(m.toString()).isEqualTo("memory budget");
        assertThat((String) m.get("detail")).as(m.toString()).startsWith("stopped at its memory budget of 1 MiB "
                + "after visiting " + Json.num(m, "objectsVisited") + " objects");
        // the walk's own memory stayed within the budget
        assertThat(Json.num(m, "memoryBytes")).isPositive().isLessThanOrEqualTo(1L << 20);
        assertThat(Json.num(m, "objectsVisited")).isLessThan((1L << 20) / 24);
        assertThat(Files.readString(Jvms.summaryFile(memory))).contains("! paths from GC roots: the heap walk "
                + "stopped at its memory budget");
    }

    @Test
    void theAnswerFitsInTheJavaHeapLeftToTheApplication() throws Exception {
        assumeTrue(RetentionTest.linuxX64(), "the JVMTI sampler and its heap walk run on Linux x86_64");
        // 100,000 links sampled one in sixteen, a heap 85% full: the paths through the list need more nodes than a
        // quarter of the free heap holds, so the walk leaves some out, says so, and the program ends normally
        Path out = tmp.resolve("full");
        assertThat(Jvms.memscopeRun(out, List.of("--interval", "4096", "--gc-at-end"), List.of(Jvms.current(),
                "-Xmx128m", "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"), FIXTURE,
                "500", "100000", "full"))).isZero();
        Object report = Jvms.report(out);
        Map<String, Object> r = Json.obj(report, "retention");
        assertThat(r.get("outcome")).as(r.toString()).isEqualTo("complete");
        assertThat((String) r.get("detail")).as(r.toString()).startsWith("complete, but the paths of ")
                .contains(" reached samples were left out (root \"path left out\"): an answer holds at most ",
                        "a quarter of the Java heap's free room");
        // a sample whose path was left out still reads as reached (held), under a root that says so; and the room
        // goes to the shortest paths first (the walk enters the list at its last node), so the samples near that
        // end have theirs whatever the order they were tracked in and however full the heap was at the walk: with
        // the room taken in tracking order, one path from deep in the list could take it all (runs with 6 and 20 of
        // 6,400 samples given a path, one in CI with none)
        List<Object> roots = new ArrayList<>();
        for (Map<String, Object> shape : shapes(report, site("full", "// CHAIN_LINK"))) {
            roots.add(shape.get("root"));
        }
        assertThat(roots).contains("static " + FIXTURE + ".CHAIN", "path left out (the walk's answer was full)");
    }

    /** Every retainedBy shape of a held site. */
    private static List<Map<String, Object>> shapes(Object report, String site) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (String list : List.of("leakSuspects", "topLiveSites")) {
            for (Map<String, Object> e : Json.list(report, list)) {
                if (site.equals(e.get("site"))) {
                    all.addAll(Json.list(e, "retainedBy"));
                }
            }
        }
        return all;
    }
}
