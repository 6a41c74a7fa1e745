package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.analysis.json.JsonWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The accounting tables in their one JSON layout, and as CSV and text. */
class AccountingJsonTest {

    private static SummaryRow row(SummaryTable t, long threadId, String thread, String user, String host, long bytes) {
        long[] values = new long[Column.values().length];
        values[Column.CURRENT_NUMBER_OF_BYTES_USED.ordinal()] = bytes;
        return new SummaryRow(t, threadId, thread, user, host, "memory/cache/entries", values);
    }

    private static Map<SummaryTable, List<SummaryRow>> tables() {
        Map<SummaryTable, List<SummaryRow>> m = new LinkedHashMap<>();
        m.put(SummaryTable.THREAD, List.of(row(SummaryTable.THREAD, 7, "worker \"1\"", "al,ice", null, 42)));
        m.put(SummaryTable.ACCOUNT, List.of());
        m.put(SummaryTable.USER, List.of(row(SummaryTable.USER, -1, null, "al,ice", null, 42)));
        return m;
    }

    @Test
    void theCommandsJsonIsReportJsonsLayout() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(AccountingText.format(tables(), AccountingText.Format.JSON));
        JsonNode t = doc.get("tables");
        assertThat(t).hasSize(2); // the empty ACCOUNT table is left out, as in report.json
        assertThat(t.get(0).get("table").asText()).isEqualTo("THREAD");
        assertThat(t.get(0).get("name").asText()).isEqualTo("MEMORY_SUMMARY_BY_THREAD_BY_EVENT_NAME");
        JsonNode thread = t.get(0).get("rows").get(0);
        assertThat(thread.get("threadId").asLong()).isEqualTo(7);
        assertThat(thread.get("threadName").asText()).isEqualTo("worker \"1\"");
        assertThat(thread.get("host").isNull()).isTrue();
        assertThat(thread.get("instrument").asText()).isEqualTo("memory/cache/entries");
        assertThat(thread.get("CURRENT_NUMBER_OF_BYTES_USED").asLong()).isEqualTo(42);
        JsonNode user = t.get(1).get("rows").get(0);
        assertThat(user.has("threadId")).as("thread fields on THREAD rows only").isFalse();
        assertThat(user.get("user").asText()).isEqualTo("al,ice");

        // a dump line's row is the same object
        JsonWriter line = JsonWriter.compact().beginObject();
        AccountingJson.row(line, SummaryTable.USER, tables().get(SummaryTable.USER).get(0));
        assertThat(new ObjectMapper().readTree(line.endObject().toString())).isEqualTo(user);
    }

    @Test
    void csvAndText() {
        String csv = AccountingText.format(tables(), AccountingText.Format.CSV);
        assertThat(csv).startsWith("TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME,COUNT_ALLOC,")
                .contains("MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME,,,\"al,ice\",,memory/cache/entries,0,0,0,0,0,0,0,0,42,")
                .contains("MEMORY_SUMMARY_BY_THREAD_BY_EVENT_NAME,7,\"worker \"\"1\"\"\",\"al,ice\",,");
        String text = AccountingText.format(tables(), AccountingText.Format.TEXT);
        assertThat(text).contains("MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME (1 row)", "CURRENT_NUMBER_OF_BYTES_USED");
    }
}
