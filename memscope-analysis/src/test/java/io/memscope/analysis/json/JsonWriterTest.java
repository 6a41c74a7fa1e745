package io.memscope.analysis.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonWriterTest {
    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void everyC0ControlIsEscapedAndReadsBackAsItself() throws Exception {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            all.append(c);
        }
        String quoted = JsonWriter.quote(all.toString());
        for (int i = 0; i < quoted.length(); i++) {
            assertThat((int) quoted.charAt(i)).as("raw control at %d of %s", i, quoted).isGreaterThanOrEqualTo(0x20);
        }
        assertThat(quoted).startsWith("\"\\u0000\\u0001").contains("\\b\\t\\n\\u000b\\f\\r").endsWith("\\u001f\"");
        assertThat(mapper.readTree(quoted).asText()).isEqualTo(all.toString());
    }

    @Test
    void quoteAndBackslashAreEscaped() throws Exception {
        assertThat(JsonWriter.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
        assertThat(mapper.readTree(JsonWriter.quote("a\"b\\c")).asText()).isEqualTo("a\"b\\c");
    }

    @Test
    void loneSurrogatesAreEscapedAndPairsKept() throws Exception {
        String pair = "\uD83D\uDE00"; // one code point outside the BMP
        assertThat(JsonWriter.quote(pair)).isEqualTo("\"" + pair + "\"");
        assertThat(JsonWriter.quote("a\uD83Db")).isEqualTo("\"a\\ud83db\"");
        assertThat(JsonWriter.quote("\uDE00" + "x\uD83D")).isEqualTo("\"\\ude00x\\ud83d\"");
        assertThat(JsonWriter.quote("\uDE00\uD83D")).as("low then high: no pair").isEqualTo("\"\\ude00\\ud83d\"");
        // the UTF-8 bytes of the output hold no replacement character: the escape survives encoding
        byte[] utf8 = JsonWriter.quote("a\uD83Db").getBytes(StandardCharsets.UTF_8);
        assertThat(new String(utf8, StandardCharsets.UTF_8)).doesNotContain("?");
        assertThat(mapper.readTree(utf8).asText()).isEqualTo("a\uD83Db");
    }

    @Test
    void lineAndParagraphSeparatorsAndOtherInvisibleControlsAreEscaped() throws Exception {
        assertThat(JsonWriter.quote("a\u2028b\u2029c")).isEqualTo("\"a\\u2028b\\u2029c\"");
        assertThat(JsonWriter.quote("\u007f\u009b\u202e")).isEqualTo("\"\\u007f\\u009b\\u202e\"");
        assertThat(JsonWriter.quote("é漢")).isEqualTo("\"é漢\"");
    }

    @Test
    void documentsNestAndCompactAndIndentedFormsReadTheSame() throws Exception {
        for (JsonWriter w : new JsonWriter[] {new JsonWriter(), JsonWriter.compact()}) {
            w.beginObject().field("s", "x\ny").field("n", -3).field("d", 2.5).field("whole", 2.0)
                    .field("nan", Double.NaN).field("b", true).nullField("none").unsignedField("u", -1L)
                    .rawField("raw", "{\"k\":[1]}").field("nullString", (String) null);
            w.name("list").beginArray().value(1).value("two").beginObject().endObject().beginArray().endArray()
                    .endArray().endObject();
            JsonNode n = mapper.readTree(w.toString());
            assertThat(n.get("s").asText()).isEqualTo("x\ny");
            assertThat(n.get("n").asLong()).isEqualTo(-3);
            assertThat(n.get("d").asDouble()).isEqualTo(2.5);
            assertThat(n.get("whole").isIntegralNumber()).isTrue();
            assertThat(n.get("nan").isNull()).isTrue();
            assertThat(n.get("none").isNull()).isTrue();
            assertThat(n.get("u").bigIntegerValue().toString()).isEqualTo("18446744073709551615");
            assertThat(n.get("raw").get("k").get(0).asInt()).isEqualTo(1);
            assertThat(n.get("nullString").isNull()).isTrue();
            assertThat(n.get("list").size()).isEqualTo(4);
        }
        assertThat(JsonWriter.compact().beginObject().field("a", 1).field("b", "c").endObject().toString())
                .isEqualTo("{\"a\":1,\"b\":\"c\"}");
    }

    @Test
    void aCompactWriterAppendsToTheLineItIsGiven() {
        StringBuilder line = new StringBuilder("prefix ");
        JsonWriter.compact(line).beginObject().field("kind", "x").endObject();
        assertThat(line).hasToString("prefix {\"kind\":\"x\"}");
    }
}
