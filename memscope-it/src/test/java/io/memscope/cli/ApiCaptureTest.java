package io.memscope.cli;

import io.memscope.recording.ScopePath;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import memscope.fixtures.ApiFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * memscope's API under {@code memscope run}, end to end on a real JVM: scopes across an executor with exact
 * allocated bytes, a tracked object collected, and a connection leaked from a real pool (HikariCP over H2) found
 * with its borrowing stack: all in the recording the agent writes.
 */
class ApiCaptureTest {

    @ParameterizedTest
    @MethodSource("io.memscope.cli.Jvms#javas")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void scopesNamedObjectsAndAPoolLeakGoIntoTheRecording(String java, @TempDir Path dir) throws Exception {
        Path results = dir.resolve("results.txt");
        String cp = Jvms.classPath(ApiFixture.class, io.memscope.Memscope.class, com.zaxxer.hikari.HikariDataSource.class,
                org.slf4j.LoggerFactory.class, org.h2.Driver.class);
        Path out = dir.resolve("out");
        // a dense sampler: the agent's samples inside scopes are many, and each must be left out of their bytes
        int code = Jvms.memscopeRun(out, List.of("--interval", "16k"),
                List.of(java, "-cp", cp, ApiFixture.class.getName(), results.toString()));
        assertThat(code).isZero();
        Map<String, String> in = new HashMap<>();
        for (String line : Files.readAllLines(results)) {
            int eq = line.indexOf('=');
            in.put(line.substring(0, eq), line.substring(eq + 1));
        }
        Path file;
        try (Stream<Path> s = Files.walk(out)) {
            file = s.filter(p -> p.getFileName().toString().equals("recording.msrec")).findFirst().orElseThrow();
        }
        Recording rec = RecordingReader.readStrict(file);

        // Scopes: paths, entries, tasks and exact allocated bytes, the same in the recording as in-process.
        Map<String, List<ScopePath.Edge>> exits = rec.scopeEdges().stream().filter(ScopePath.Edge::exit)
                .collect(Collectors.groupingBy(e -> rec.scopePath(e.pathId())));
        long size10000 = Long.parseLong(in.get("size10000"));
        long size50000 = Long.parseLong(in.get("size50000"));
        assertThat(exits.get("request/parse")).hasSize(150)
                .allSatisfy(e -> assertThat(e.allocatedBytes()).isEqualTo(size10000));
        List<ScopePath.Edge> request = exits.get("request");
        assertThat(request).hasSize(200);
        String[] inRequest = in.get("scope.request").split(",");
        assertThat(request.stream().mapToLong(ScopePath.Edge::allocatedBytes).sum()).isEqualTo(Long.parseLong(inRequest[2]));
        List<ScopePath.Edge> taskEntries = rec.scopeEdges().stream().filter(e -> !e.exit() && e.taskId() != 0).toList();
        assertThat(taskEntries).hasSize(150).allSatisfy(e -> assertThat(rec.scopePath(e.pathId())).isEqualTo("request"));
        // each task: two arrays in request itself, one in request/parse
        long tasksBytes = rec.scopeEdges().stream().filter(ScopePath.Edge::exit)
                .filter(e -> rec.scopePath(e.pathId()).equals("request") && e.threadName().startsWith("pool-"))
                .mapToLong(ScopePath.Edge::allocatedBytes).sum();
        assertThat(tasksBytes).isEqualTo(150 * (2 * size50000 + size10000));
        List<MemoryEvent> api = rec.apiEvents();
        assertThat(api.stream().filter(e -> e.type() == MemoryEventType.MOVE)).hasSize(150)
                .allSatisfy(e -> assertThat(e.variableName()).isEqualTo("request"));

        // Named objects: the array tracked as "temp" was collected, the cache was not.
        MemoryEvent temp = api.stream().filter(e -> e.type() == MemoryEventType.ALLOCATE && "temp".equals(e.variableName()))
                .findFirst().orElseThrow();
        assertThat(temp.typeName()).isEqualTo("byte[]");
        assertThat(temp.size()).isEqualTo(Long.parseLong(in.get("size20000")));
        assertThat(api).anySatisfy(e -> {
            assertThat(e.type()).isEqualTo(MemoryEventType.DEALLOCATE);
            assertThat(e.variableName()).isEqualTo("temp");
            assertThat(e.address()).isEqualTo(temp.address());
        });
        assertThat(api).anySatisfy(e -> {
            assertThat(e.type()).isEqualTo(MemoryEventType.ALLOCATE);
            assertThat(e.variableName()).isEqualTo("userCache");
            assertThat(e.typeName()).isEqualTo("java.util.HashMap");
        });
        assertThat(api).noneMatch(e -> e.type() == MemoryEventType.DEALLOCATE && "userCache".equals(e.variableName()));

        // The pool: 6 borrows, 5 returns, and the leaked one as an anomaly with its borrowing stack.
        assertThat(api.stream().filter(e -> e.type() == MemoryEventType.BORROW && "db".equals(e.variableName())))
                .hasSize(6);
        assertThat(api.stream().filter(e -> e.type() == MemoryEventType.RETURN && "db".equals(e.variableName())))
                .hasSize(5);
        List<Anomaly> leaks = rec.anomalies().stream().filter(a -> a.kind().equals("pool-leak")).toList();
        assertThat(leaks).hasSize(1);
        List<String> stack = rec.stacks().get(leaks.get(0).stackId());
        int line = Jvms.lineOf("memscope/fixtures/ApiFixture.java", "LEAKED-CONNECTION");
        assertThat(stack.get(0)).startsWith("memscope.fixtures.TrackedDataSource.getConnection(");
        assertThat(stack.get(1)).isEqualTo("memscope.fixtures.ApiFixture.leakOne(ApiFixture.java:" + line + ")");
        assertThat(leaks.get(0).detail()).isEqualTo("db");

        // memscope-core's one-time initialization (its classes, the agent link's method handles) is memscope's
        // own cost, counted as such, not sampled allocations of the line that first called the API
        assertThat(rec.stacks().values()).noneSatisfy(frames -> assertThat(frames)
                .anyMatch(f -> f.startsWith("io.memscope.") && f.contains(".<clinit>(")));
        assertThat(Long.parseLong(rec.metadata().getOrDefault("jvmti.ownAllocations", "0"))).isPositive();

        // The report (built by memscope run from the recording): scopes[], trackedObjects[], pools[], poolLeaks[]
        Object report = Jvms.report(out);
        Map<String, Map<String, Object>> scopes = Json.list(report, "scopes").stream()
                .collect(Collectors.toMap(m -> (String) m.get("path"), m -> m));
        assertThat(Json.num(scopes.get("request"), "entries")).isEqualTo(200);
        assertThat(Json.num(scopes.get("request"), "tasks")).isEqualTo(150);
        assertThat(Json.num(scopes.get("request"), "allocatedBytes")).isEqualTo(Long.parseLong(inRequest[2]));
        assertThat(Json.num(scopes.get("request/parse"), "allocatedBytes")).isEqualTo(150 * size10000);
        assertThat(scopes.get("request/parse").get("parentPath")).isEqualTo("request");
        Map<String, Map<String, Object>> objects = Json.list(report, "trackedObjects").stream()
                .collect(Collectors.toMap(m -> (String) m.get("name"), m -> m));
        assertThat(objects.get("temp").get("alive")).isEqualTo(false);
        assertThat(objects.get("userCache").get("alive")).isEqualTo(true);
        assertThat(objects.get("userCache").get("type")).isEqualTo("java.util.HashMap");
        Map<String, Object> db = Json.list(report, "pools").get(0);
        assertThat(db.get("pool")).isEqualTo("db");
        assertThat(Json.num(db, "borrows")).isEqualTo(6);
        assertThat(Json.num(db, "returns")).isEqualTo(5);
        assertThat(Json.num(db, "leaks")).isEqualTo(1);
        assertThat(Json.num(db, "notReturned")).isZero();
        Map<String, Object> leak = Json.list(report, "poolLeaks").get(0);
        assertThat(leak.get("kind")).isEqualTo("unreachable");
        assertThat(leak.get("resourceType")).isEqualTo("com.zaxxer.hikari.pool.HikariProxyConnection");
        assertThat(((List<?>) leak.get("stack")).get(1))
                .isEqualTo("memscope.fixtures.ApiFixture.leakOne(ApiFixture.java:" + line + ")");
        String summary = Files.readString(Jvms.summaryFile(out));
        assertThat(summary).contains("Scopes (time summed over threads").contains("request/parse")
                .contains("LEAK: lease").contains("at memscope.fixtures.ApiFixture.leakOne(ApiFixture.java:" + line)
                .contains("temp").contains("collected");
        assertThat(api.stream().filter(e -> e.type() == MemoryEventType.BORROW && e.address() == leaks.get(0).address()))
                .singleElement().satisfies(e -> assertThat(e.typeName())
                        .isEqualTo("com.zaxxer.hikari.pool.HikariProxyConnection"));
    }
}
