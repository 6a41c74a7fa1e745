package io.memscope.analysis;

import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.recording.AccountingSnapshot;
import java.util.List;
import java.util.Map;

/**
 * The accounting summary tables (memscope-core's {@code MemoryAccounting}, MySQL performance schema's layout) as
 * JSON, in the one layout docs/formats/report-json.md defines for report.json's {@code accounting}: a table is
 * {@code {table, name, rows}}, a row {@code {threadId, threadName} (THREAD rows only), user, host, instrument} and
 * one field per {@link Column}. report.json, {@code memscope accounting --format json} and {@code memscope dump
 * --json} all write tables and rows here.
 */
public final class AccountingJson {
    private AccountingJson() {
    }

    /** The key {@code accounting} of report.json: null without a snapshot. */
    static void section(JsonWriter w, AccountingSnapshot a, double atMs) {
        if (a == null) {
            w.nullField("accounting");
            return;
        }
        w.name("accounting").beginObject().field("atMs", atMs);
        Map<SummaryTable, List<SummaryRow>> tables = new java.util.EnumMap<>(SummaryTable.class);
        for (SummaryTable t : SummaryTable.values()) {
            tables.put(t, a.rows(t));
        }
        tables(w, tables);
        w.endObject();
    }

    /** The field {@code tables}: one entry per table with rows, in the map's order. */
    public static void tables(JsonWriter w, Map<SummaryTable, List<SummaryRow>> tables) {
        w.name("tables").beginArray();
        for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            SummaryTable t = e.getKey();
            w.beginObject().field("table", t.name()).field("name", t.tableName());
            w.name("rows").beginArray();
            for (SummaryRow row : e.getValue()) {
                w.beginObject();
                row(w, t, row);
                w.endObject();
            }
            w.endArray().endObject();
        }
        w.endArray();
    }

    /** The fields of one row, into the object {@code w} is in. */
    public static void row(JsonWriter w, SummaryTable t, SummaryRow row) {
        if (t == SummaryTable.THREAD) {
            w.field("threadId", row.threadId()).field("threadName", row.threadName());
        }
        w.field("user", row.user()).field("host", row.host()).field("instrument", row.eventName());
        for (Column c : Column.values()) {
            w.field(c.name(), row.get(c));
        }
    }

    /** @return {@code {"tables": [...]}}, indented, with a final newline: {@code memscope accounting --format json} */
    public static String document(Map<SummaryTable, List<SummaryRow>> tables) {
        JsonWriter w = new JsonWriter();
        w.beginObject();
        tables(w, tables);
        w.endObject();
        return w + "\n";
    }
}
