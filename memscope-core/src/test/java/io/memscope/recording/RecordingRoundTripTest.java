package io.memscope.recording;

import io.memscope.internal.recording.RecordingFormat;
import io.memscope.internal.recording.RecordingWriter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.error.CorruptFileException;
import io.memscope.internal.error.Failures;
import io.memscope.internal.store.StringTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

@Timeout(60)
class RecordingRoundTripTest {
    @TempDir
    Path dir;

    /** What a random recording should read back as. */
    static final class Expected {
        final List<MemoryEvent> events = new ArrayList<>();
        final Map<Integer, Site> sites = new LinkedHashMap<>();
        final Map<Long, List<String>> stacks = new LinkedHashMap<>();
        final List<GcRecord> gc = new ArrayList<>();
        final Map<Integer, SiteCount> siteCounts = new LinkedHashMap<>();
        final Map<String, String> metadata = new LinkedHashMap<>();
        final List<Anomaly> anomalies = new ArrayList<>();
        final Map<Integer, ScopePath> scopePaths = new LinkedHashMap<>();
        final List<ScopePath.Edge> scopeEdges = new ArrayList<>();
        final List<MemoryEvent> apiEvents = new ArrayList<>();
        final Map<List<String>, FunctionStats> functions = new LinkedHashMap<>();
    }

    static long anyLong(SplittableRandom r) {
        switch (r.nextInt(6)) {
            case 0: return 0;
            case 1: return r.nextLong();
            case 2: return r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            case 3: return r.nextInt(100);
            case 4: return -r.nextInt(100);
            default: return r.nextLong(1L << 40);
        }
    }

    static String anyString(SplittableRandom r) {
        int len = r.nextInt(30);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < len; i++) {
            switch (r.nextInt(4)) {
                case 0: b.append((char) ('a' + r.nextInt(26))); break;
                case 1: b.append("é中"); break;
                case 2: b.appendCodePoint(0x1F600 + r.nextInt(50)); break;   // outside the BMP: 4 UTF-8 bytes
                default: b.append((char) r.nextInt(0x20, 0x7f));
            }
        }
        return b.toString();
    }

    /** Writes a random recording with every block type, interleaved, and returns what it should contain. */
    static Expected writeRandom(Path file, long seed, int events, int blockBytes) {
        SplittableRandom r = new SplittableRandom(seed);
        Expected x = new Expected();
        StringTable table = new StringTable();
        try (RecordingWriter w = RecordingWriter.builder(file).strings(table).blockBytes(blockBytes)
                .maxEventsPerBlock(1 + r.nextInt(500)).clock(123_456_789_000L, -5_000L).process(4242, 99).open()) {
            List<Integer> stringIds = new ArrayList<>();
            stringIds.add(0);
            for (int i = 0; i < events; i++) {
                int what = r.nextInt(100);
                if (what < 8) {
                    String s = anyString(r);
                    stringIds.add(table.intern(s));
                } else if (what < 11) {
                    int id = 1 + r.nextInt(50);
                    String line = anyString(r);
                    Site s = new Site(id, "pkg.C" + r.nextInt(9), r.nextBoolean() ? null : "m" + line,
                            r.nextBoolean() ? null : "F.java", r.nextInt(3) == 0 ? 0 : r.nextInt(100_000),
                            r.nextBoolean() ? null : anyString(r));
                    w.site(s.id(), s.className(), s.methodName(), s.fileName(), s.line(), s.typeName());
                    x.sites.put(id, s);
                } else if (what < 13) {
                    long id = r.nextLong();
                    if (id == 0) {
                        continue;
                    }
                    List<String> frames = new ArrayList<>();
                    for (int f = r.nextInt(20); f > 0; f--) {
                        frames.add(anyString(r) + "(X.java:" + f + ")");
                    }
                    w.stack(id, frames);
                    x.stacks.put(id, List.copyOf(frames));
                } else if (what < 14) {
                    GcRecord g = new GcRecord(anyLong(r), r.nextLong(1L << 40), anyString(r),
                            r.nextBoolean() ? null : anyString(r), anyLong(r), anyLong(r), anyLong(r),
                            r.nextBoolean() ? null : anyString(r));
                    w.gc(g);
                    x.gc.add(g);
                } else if (what < 15) {
                    SiteCount c = new SiteCount(r.nextInt(), anyLong(r), anyLong(r));
                    w.siteCount(c.siteId(), c.allocations(), c.bytes());
                    x.siteCounts.put(c.siteId(), c);
                } else if (what < 16) {
                    String k = "key" + r.nextInt(5);
                    String v = r.nextInt(5) == 0 ? null : anyString(r);
                    w.metadata(k, v);
                    x.metadata.put(k, v);
                } else if (what < 17) {
                    Anomaly a = new Anomaly("kind" + r.nextInt(3), anyLong(r), anyLong(r), anyLong(r), anyLong(r),
                            anyLong(r), r.nextBoolean() ? null : anyString(r));
                    w.anomaly(a.kind(), a.timestampNanos(), a.address(), a.size(), a.threadId(), a.stackId(),
                            a.detail());
                    x.anomalies.add(a);
                } else if (what < 18) {
                    w.flush();
                } else if (what < 19) {
                    ScopePath sp = new ScopePath(1 + r.nextInt(40), r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(40),
                            anyString(r));
                    w.scopePath(sp.id(), sp.parentId(), sp.name());
                    x.scopePaths.put(sp.id(), sp);
                } else if (what < 22) {
                    boolean exit = r.nextBoolean();
                    int tn = stringIds.get(r.nextInt(stringIds.size()));
                    ScopePath.Edge edge = new ScopePath.Edge(anyLong(r), r.nextInt(4), table.get(tn), exit,
                            r.nextInt(4) == 0 ? r.nextInt() | 1 : 1 + r.nextInt(40),
                            !exit && r.nextBoolean() ? anyLong(r) : 0,
                            exit && r.nextBoolean() ? r.nextLong(Long.MAX_VALUE) : -1);
                    w.scopeEdge(edge.timestampNanos(), edge.threadId(), tn, exit, edge.pathId(), edge.taskId(),
                            edge.allocatedBytes());
                    x.scopeEdges.add(edge);
                } else if (what < 25) {
                    FunctionStats f = new FunctionStats("pkg.C" + r.nextInt(4) + ".m", r.nextBoolean() ? null : "()V",
                            r.nextInt(3) == 0 ? null : "pkg.D.n(D.java:" + r.nextInt(3) + ")", r.nextLong(1L << 50),
                            r.nextLong(1L << 50), r.nextLong(Long.MAX_VALUE), r.nextLong(Long.MAX_VALUE),
                            r.nextLong(Long.MAX_VALUE), r.nextLong(1000));
                    w.functionStats(f.function(), f.descriptor(), f.callSite(), f.calls(), f.recursiveCalls(),
                            f.totalNanos(), f.maxNanos(), f.allocatedBytes(), f.callsWithoutAllocation());
                    x.functions.remove(java.util.Arrays.asList(f.function(), f.descriptor(), f.callSite()));
                    x.functions.put(java.util.Arrays.asList(f.function(), f.descriptor(), f.callSite()), f);
                } else if (what < 27) {
                    MemoryEventType t = MemoryEventType.ofCode(r.nextInt(6));
                    int vn = stringIds.get(r.nextInt(stringIds.size()));
                    MemoryEvent api = new MemoryEvent(anyLong(r), t, anyLong(r), anyLong(r), anyLong(r),
                            r.nextInt(4), null, table.get(vn), null, r.nextBoolean() ? 0 : anyLong(r), 0);
                    w.apiEvent(api.timestampNanos(), t, api.address(), api.size(), api.previousSize(), api.threadId(),
                            0, vn, 0, api.callStackHash(), 0);
                    x.apiEvents.add(api);
                }
                MemoryEventType type = MemoryEventType.ofCode(r.nextInt(6));
                int tn = stringIds.get(r.nextInt(stringIds.size()));
                int vn = r.nextInt(3) == 0 ? stringIds.get(r.nextInt(stringIds.size())) : 0;
                int ty = stringIds.get(r.nextInt(stringIds.size()));
                MemoryEvent e = new MemoryEvent(anyLong(r), type, anyLong(r), anyLong(r),
                        r.nextInt(4) == 0 ? anyLong(r) : 0, r.nextInt(3) == 0 ? anyLong(r) : r.nextInt(4),
                        table.get(tn), table.get(vn), table.get(ty), r.nextBoolean() ? 0 : anyLong(r),
                        r.nextInt(4) == 0 ? r.nextInt() : r.nextInt(10));
                w.accept(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(), tn, vn,
                        ty, e.callStackHash(), e.siteId());
                x.events.add(e);
            }
            w.addDropped(7);
        }
        return x;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 42, 1234567})
    void everyBlockTypeRoundTripsWithRandomData(long seed) throws Exception {
        Path file = dir.resolve("r" + seed + ".msrec");
        Expected x = writeRandom(file, seed, 3000, 256 + (int) (seed * 997 % 8000));
        Recording rec = RecordingReader.readStrict(file);

        assertThat(rec.header()).isEqualTo(new RecordingHeader(1, RecordingFormat.VERSION_MINOR, 0, 123_456_789_000L, -5_000L, 4242, 99));
        assertThat(rec.scopePaths()).containsExactlyInAnyOrderEntriesOf(x.scopePaths);
        assertThat(rec.scopeEdges()).containsExactlyElementsOf(x.scopeEdges);
        assertThat(rec.apiEvents()).containsExactlyElementsOf(x.apiEvents);
        assertThat(rec.functionStats()).containsExactlyInAnyOrderElementsOf(x.functions.values());
        assertThat(rec.events()).containsExactlyElementsOf(x.events);
        assertThat(rec.sites()).containsExactlyInAnyOrderEntriesOf(x.sites);
        assertThat(rec.stacks()).containsExactlyInAnyOrderEntriesOf(x.stacks);
        assertThat(rec.gcRecords()).containsExactlyElementsOf(x.gc);
        assertThat(rec.siteCounts()).containsExactlyInAnyOrderEntriesOf(x.siteCounts);
        assertThat(rec.metadata()).containsExactlyEntriesOf(x.metadata);
        assertThat(rec.anomalies()).containsExactlyElementsOf(x.anomalies);
        assertThat(rec.totals()).get().satisfies(t -> {
            assertThat(t.eventsWritten()).isEqualTo(x.events.size());
            assertThat(t.eventsDropped()).isEqualTo(7);
            assertThat(t.clean()).isTrue();
        });
        assertThat(rec.damage()).isEmpty();
        assertThat(rec.fileBytes()).isEqualTo(Files.size(file));

        // The streaming API sees the same events, in the same order, with the same string ids.
        List<MemoryEvent> streamed = new ArrayList<>();
        List<String> strings = new ArrayList<>();
        strings.add(null);
        Optional<Damage> damage = RecordingReader.stream(file, new RecordingVisitor() {
            @Override
            public void string(int id, String value) {
                assertThat(id).isEqualTo(strings.size());
                strings.add(value);
            }

            @Override
            public void accept(EventView e) {
                streamed.add(new MemoryEvent(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(),
                        e.threadId(), strings.get(e.threadNameId()), strings.get(e.variableNameId()),
                        strings.get(e.typeNameId()), e.stackId(), e.siteId()));
            }
        });
        assertThat(damage).isEmpty();
        assertThat(streamed).isEqualTo(x.events);
    }

    @Test
    void closeFromAnotherThreadWhileEventsArriveLeavesASoundFile() throws Exception {
        Path file = dir.resolve("hook.msrec");
        RecordingWriter w = RecordingWriter.builder(file).blockBytes(1024).open();
        Thread producer = new Thread(() -> {
            for (long i = 0; w.eventsRefused() == 0; i++) {
                w.accept(i, MemoryEventType.ALLOCATE, i, 8, 0, 1, 0, 0, 0, 0, 0);
            }
        });
        producer.start();
        await("20,000 events written").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1)).until(() -> w.eventsWritten() >= 20_000);
        w.close(false);                          // what a shutdown hook does
        producer.join(10_000);
        assertThat(producer.isAlive()).isFalse();
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.totals().get().clean()).isFalse();
        assertThat((long) rec.eventCount()).isEqualTo(rec.totals().get().eventsWritten()).isGreaterThanOrEqualTo(20_000);
        for (int i = 0; i < rec.eventCount(); i++) {
            assertThat(rec.event(i).address()).isEqualTo(i);
        }
    }

    @Test
    void clockPairGivesAbsoluteTime() {
        RecordingHeader h = new RecordingHeader(1, 0, 0, 1_700_000_000_123_456_789L, 5_000, 1, 0);
        assertThat(h.toEpochNanos(6_000)).isEqualTo(1_700_000_000_123_457_789L);
        assertThat(h.toInstant(6_000).toString()).isEqualTo("2023-11-14T22:13:20.123457789Z");
    }

    @Test
    void emptyRecordingIsValid() {
        Path file = dir.resolve("empty.msrec");
        RecordingWriter.open(file).close();
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.eventCount()).isZero();
        assertThat(rec.totals()).get().isEqualTo(new Totals(0, 0, true, rec.header().nanoTime()));
        assertThat(rec.header().pid()).isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void eventWithUnknownStringIdIsRefusedAndCounted() {
        Failures.reset();
        Path file = dir.resolve("refused.msrec");
        try (RecordingWriter w = RecordingWriter.open(file)) {
            int name = w.strings().intern("main");
            w.accept(1, MemoryEventType.ALLOCATE, 1, 8, 0, 1, name, 0, 0, 0, 0);
            w.accept(2, MemoryEventType.ALLOCATE, 2, 8, 0, 1, name + 5, 0, 0, 0, 0);
            w.accept(3, MemoryEventType.ALLOCATE, 3, 8, 0, 1, 0, -1, 0, 0, 0);
        }
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.eventCount()).isEqualTo(1);
        assertThat(rec.totals().get().eventsDropped()).isEqualTo(2);
        assertThat(Failures.total()).isEqualTo(2);
        Failures.reset();
    }

    @Test
    void stringsInternedWhileWritingAreWrittenBeforeTheEventsThatUseThem() {
        Path file = dir.resolve("late.msrec");
        StringTable table = new StringTable();
        try (RecordingWriter w = RecordingWriter.builder(file).strings(table).maxEventsPerBlock(3).open()) {
            for (int i = 0; i < 20; i++) {
                int t = table.intern("type" + i);
                w.accept(i, MemoryEventType.ALLOCATE, i, i, 0, 1, 0, 0, t, 0, 0);
            }
        }
        Recording rec = RecordingReader.readStrict(file);
        for (int i = 0; i < 20; i++) {
            assertThat(rec.event(i).typeName()).isEqualTo("type" + i);
        }
    }

    @Test
    void longStringsAndDeepStacksAreCutToTheLimits() {
        Path file = dir.resolve("limits.msrec");
        String longName = "é".repeat(RecordingFormat.MAX_STRING_BYTES);   // 2 MiB of UTF-8
        List<String> deep = new ArrayList<>();
        for (int i = 0; i < RecordingFormat.MAX_FRAMES + 10; i++) {
            deep.add("f" + i);
        }
        try (RecordingWriter w = RecordingWriter.open(file)) {
            w.metadata("long", longName);
            w.stack(9, deep);
        }
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.metadata().get("long")).hasSize(RecordingFormat.MAX_STRING_BYTES / 2);
        assertThat(rec.stacks().get(9L)).hasSize(RecordingFormat.MAX_FRAMES).startsWith("f0", "f1");
    }

    @Test
    void writerRejectsReservedIdsAndUseAfterClose() {
        Path file = dir.resolve("closed.msrec");
        RecordingWriter w = RecordingWriter.open(file);
        assertThatThrownBy(() -> w.site(0, "a", "b", "c", 1, "d")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.stack(0, List.of())).isInstanceOf(IllegalArgumentException.class);
        w.close();
        w.close();   // idempotent
        w.accept(1, MemoryEventType.ALLOCATE, 1, 1, 0, 1, 0, 0, 0, 0, 0);
        assertThat(w.eventsRefused()).isEqualTo(1);
        assertThatThrownBy(() -> w.metadata("k", "v")).hasMessageContaining("closed");
        assertThat(RecordingReader.readStrict(file).eventCount()).isZero();
    }

    @Test
    void typicalAllocationStreamTakesAtMostTenBytesPerEvent() throws Exception {
        Path file = dir.resolve("typical.msrec");
        int n = 200_000;
        long sideTables;
        try (RecordingWriter w = RecordingWriter.open(file)) {
            new TypicalStream(0, 7).writeTo(w);
            w.flush();
            sideTables = w.bytesWritten();
        }
        Files.delete(file);
        try (RecordingWriter w = RecordingWriter.open(file)) {
            new TypicalStream(n, 7).writeTo(w);
        }
        long size = Files.size(file);
        double perEvent = (double) (size - sideTables) / n;
        System.out.printf("typical stream: %d events, %d bytes, %.2f bytes/event (excluding %d bytes of "
                + "site/stack/string tables), %.2f including%n", n, size, perEvent, sideTables, (double) size / n);
        assertThat(perEvent).isLessThanOrEqualTo(10.0);
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.eventCount()).isEqualTo(n);
    }

    @Test
    void corruptFileExceptionNamesTheOffset() {
        Path file = dir.resolve("magic.msrec");
        assertThatThrownBy(() -> RecordingReader.read(dir.resolve("missing.msrec")))
                .hasMessageContaining("no such file");
        try {
            Files.write(file, "hello, this is not a recording at all, really not at all".getBytes());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThatThrownBy(() -> RecordingReader.read(file)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("at offset 0").hasMessageContaining("bad magic");
    }
}
