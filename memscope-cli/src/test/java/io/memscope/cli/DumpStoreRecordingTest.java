package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.Snapshot;
import io.memscope.internal.store.StringTable;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: threads record into an {@link EventStore}, the store is drained into a recording, and
 * {@code memscope dump --json} (through {@link Main#execute}) prints exactly the events of the snapshot taken
 * before the drain, field by field, with strings resolved and the clock pair applied.
 */
@Timeout(60)
class DumpStoreRecordingTest {
    @TempDir
    Path dir;

    private static final MemoryEventType[] TYPES = MemoryEventType.values();
    private static final String[] TYPE_NAMES = {"byte[]", "java.lang.String", "com.example.Order$Line", "int[]"};

    @Test
    void dumpJsonPrintsExactlyTheEventsOfTheSnapshotTakenBeforeTheDrain() throws Exception {
        EventStore store = EventStore.unbounded();
        StringTable strings = store.strings();
        String[] threadNames = {"main-worker", "pool \"A\"\\1", "ünïcödé\ttab"};
        Thread[] threads = new Thread[threadNames.length];
        for (int w = 0; w < threads.length; w++) {
            int worker = w;
            threads[w] = new Thread(() -> {
                for (long i = 0; i < 3_000; i++) {
                    MemoryEventType type = TYPES[(int) ((i + worker) % TYPES.length)];
                    int site = 1 + (int) (i % 5);
                    long prev = type == MemoryEventType.REALLOCATE ? (i % 2 == 0 ? 1L << 35 : 48) : 0;
                    store.record(type, (long) (worker + 1) << 44 | i * 16, 8 + i % 100, prev, i % 7 == 0 ? 0 : site,
                            i % 3 == 0 ? 0 : 0xC0FFEE00L + site, strings.intern(TYPE_NAMES[site % 4]),
                            strings.intern(i % 10 == 0 ? "var \"" + worker + "\"" : null));
                }
            }, threadNames[w]);
            threads[w].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        Snapshot snapshot = store.snapshot();
        List<MemoryEvent> expected = new ArrayList<>(snapshot.asList());

        Path file = dir.resolve("store.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).strings(strings)
                .clock(store.wallClockEpochNanos(), store.nanoTimeAtEpoch()).blockBytes(2048).open()) {
            for (int s = 1; s <= 5; s++) {
                w.site(s, "com.example.Site" + s, "alloc", "Site.java", s, TYPE_NAMES[s % 4]);
            }
            assertThat(store.drainTo(w)).isEqualTo(expected.size());
            // A second drain that starts older than the first one ended (negative time delta in the file).
            MemoryEvent older = new MemoryEvent(snapshot.timestampAt(0) - 1_000, MemoryEventType.DEALLOCATE, 0x10,
                    8, 0, 99, "late", null, "byte[]", 0, 1);
            store.record(older);
            assertThat(store.drainTo(w)).isEqualTo(1);
            expected.add(older);
        }

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream old = System.out;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            code = Main.execute("dump", "--json", file.toString());
        } finally {
            System.setOut(old);
        }
        assertThat(code).isZero();
        List<Map<String, String>> events = new ArrayList<>();
        Map<String, String> summary = null;
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            Map<String, String> o = parseFlatObject(line);
            if ("event".equals(o.get("kind"))) {
                events.add(o);
            } else if ("summary".equals(o.get("kind"))) {
                summary = o;
            }
        }
        assertThat(events).hasSize(expected.size()).hasSize(9_001);
        for (int i = 0; i < events.size(); i++) {
            Map<String, String> o = events.get(i);
            MemoryEvent e = expected.get(i);
            String where = "event " + i + ": " + o;
            assertThat(Long.parseLong(o.get("timestampNanos"))).as(where).isEqualTo(e.timestampNanos());
            long epochNanos = store.wallClockEpochNanos() + (e.timestampNanos() - store.nanoTimeAtEpoch());
            assertThat(Instant.parse(o.get("time"))).as(where).isEqualTo(Instant.ofEpochSecond(
                    Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L)));
            assertThat(o.get("type")).as(where).isEqualTo(e.type().name());
            assertThat(Long.parseUnsignedLong(o.get("address").substring(2), 16)).as(where).isEqualTo(e.address());
            assertThat(Long.parseLong(o.get("size"))).as(where).isEqualTo(e.size());
            assertThat(Long.parseLong(o.get("previousSize"))).as(where).isEqualTo(e.previousSize());
            assertThat(Long.parseLong(o.get("threadId"))).as(where).isEqualTo(e.threadId());
            assertThat(o.get("threadName")).as(where).isEqualTo(e.threadName());
            assertThat(o.get("typeName")).as(where).isEqualTo(e.typeName());
            assertThat(o.get("variable")).as(where).isEqualTo(e.variableName());
            assertThat(Integer.parseInt(o.get("siteId"))).as(where).isEqualTo(e.siteId());
            assertThat(o.get("site")).as(where).isEqualTo(e.siteId() == 0 ? null
                    : "com.example.Site" + e.siteId() + ".alloc(Site.java:" + e.siteId() + ")");
            assertThat(o.get("stackId")).as(where).isEqualTo(e.callStackHash() == 0 ? null
                    : "0x" + Long.toHexString(e.callStackHash()));
        }
        assertThat(summary).isNotNull().containsEntry("events", "9001").containsEntry("eventsWritten", "9001")
                .containsEntry("eventsDropped", "0").containsEntry("clean", "true").containsEntry("damage", null);
    }

    /**
     * Parses one flat JSON object (string, number, boolean and null values) into text values, null for JSON
     * null. Independent of the CLI's writer: enough of RFC 8259 for dump's event and summary lines.
     */
    static Map<String, String> parseFlatObject(String json) {
        Map<String, String> m = new LinkedHashMap<>();
        int[] at = {0};
        expect(json, at, '{');
        if (json.charAt(at[0]) == '}') {
            return m;
        }
        while (true) {
            String key = string(json, at);
            expect(json, at, ':');
            String value;
            char c = json.charAt(at[0]);
            if (c == '"') {
                value = string(json, at);
            } else if (c == '{') {                        // nested object (damage): keep it as raw text
                int end = json.indexOf('}', at[0]);
                value = json.substring(at[0], end + 1);
                at[0] = end + 1;
            } else {
                int end = at[0];
                while (end < json.length() && ",}".indexOf(json.charAt(end)) < 0) {
                    end++;
                }
                value = json.substring(at[0], end);
                at[0] = end;
                if (value.equals("null")) {
                    value = null;
                }
            }
            m.put(key, value);
            char next = json.charAt(at[0]++);
            if (next == '}') {
                return m;
            }
            if (next != ',') {
                throw new IllegalArgumentException("expected , or } at " + (at[0] - 1) + " in " + json);
            }
        }
    }

    private static void expect(String json, int[] at, char c) {
        if (json.charAt(at[0]) != c) {
            throw new IllegalArgumentException("expected " + c + " at " + at[0] + " in " + json);
        }
        at[0]++;
    }

    private static String string(String json, int[] at) {
        expect(json, at, '"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = json.charAt(at[0]++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = json.charAt(at[0]++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'r' -> b.append('\r');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(json.substring(at[0], at[0] + 4), 16));
                    at[0] += 4;
                }
                default -> b.append(e);                  // \" \\ \/
            }
        }
    }

    @Test
    void theTestParserReadsEscapes() {
        assertThat(parseFlatObject("{\"a\":\"x\\\"y\\\\z\\t\\u0001\",\"b\":12,\"c\":null,\"d\":{\"o\":1}}"))
                .containsEntry("a", "x\"y\\z\t\u0001").containsEntry("b", "12").containsEntry("c", null)
                .containsEntry("d", "{\"o\":1}");
    }
}
