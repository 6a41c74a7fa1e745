package io.memscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChromeTraceWriterTest {
    private static final String HOSTILE = "a\"b\\c\n\u0000\u001b[31m\u2028\uD800";

    @Test
    void everyKindOfEventWithHostileNamesParsesBack() throws Exception {
        StringWriter out = new StringWriter();
        ChromeTraceWriter t = new ChromeTraceWriter(out);
        t.metadata("process_name", 7, 0, a -> a.field("name", HOSTILE));
        t.complete(HOSTILE, "cat", 7, 3, 1_234_567, 1_500, a -> a.field("cause", HOSTILE));
        t.counter("c", 7, 3, -1_500, a -> a.field("value", 42));
        t.instant("i", "p", 7, 3, 5, null);
        t.end();
        t.counter("after the end", 7, 3, 0, null);
        assertThat(t.events()).isEqualTo(4);

        String text = out.toString();
        assertThat(text).startsWith("[\n").endsWith("\n]\n").doesNotContain("\u001b").doesNotContain("\u2028");
        assertThat(text.lines().filter(l -> l.startsWith("{"))).hasSize(4);
        JsonNode events = new ObjectMapper().readTree(text);
        assertThat(events).hasSize(4);
        assertThat(events.get(0).get("args").get("name").asText()).isEqualTo(HOSTILE);
        JsonNode x = events.get(1);
        assertThat(x.get("name").asText()).isEqualTo(HOSTILE);
        assertThat(names(x)).containsExactly("name", "cat", "ph", "ts", "dur", "pid", "tid", "args");
        assertThat(text).contains("\"ts\":1234.567,\"dur\":1.500,");
        assertThat(events.get(2).get("ts").asDouble()).as("a negative nanoTime").isEqualTo(-1.5);
        assertThat(names(events.get(3))).containsExactly("name", "ph", "ts", "pid", "tid", "s");
    }

    @Test
    void microsecondsAreExact() {
        assertThat(ChromeTraceWriter.micros(0)).isEqualTo("0.000");
        assertThat(ChromeTraceWriter.micros(23_155_456_881_110L)).isEqualTo("23155456881.110");
        assertThat(ChromeTraceWriter.micros(-1)).isEqualTo("-0.001");
        assertThat(ChromeTraceWriter.micros(Long.MIN_VALUE)).isEqualTo("-9223372036854775.808");
    }

    @Test
    void aRecordingsTimelineIsATraceJacksonReads() throws Exception {
        Path rec = Path.of(getClass().getResource("/recordings/v1.4-demo.msrec").toURI());
        Report r = ReportBuilder.build(rec);
        StringWriter out = new StringWriter();
        RecordingTraceEvents.write(r, 13463, out);
        JsonNode events = new ObjectMapper().readTree(out.toString());
        assertThat(events.get(0).get("name").asText()).isEqualTo("process_name");
        long gcs = 0;
        for (JsonNode e : events) {
            assertThat(e.get("pid").asLong()).isEqualTo(13463);
            if ("X".equals(e.get("ph").asText())) {
                gcs++;
                assertThat(e.get("cat").asText()).isEqualTo("memscope.gc");
            }
        }
        assertThat(gcs).isEqualTo(r.gc().collections().size()).isPositive();
    }

    private static List<String> names(JsonNode n) {
        List<String> l = new ArrayList<>();
        n.fieldNames().forEachRemaining(l::add);
        return l;
    }
}
