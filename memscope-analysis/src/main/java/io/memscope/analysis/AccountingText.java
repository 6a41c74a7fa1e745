package io.memscope.analysis;

import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.accounting.SummaryTables;
import io.memscope.analysis.text.TerminalText;
import java.util.List;
import java.util.Map;

/**
 * Prints accounting summary tables as {@code memscope accounting --format} asks: text (memscope-core's
 * {@link SummaryTables}, as the application's own printing shows them), JSON ({@link AccountingJson}, report.json's
 * layout) or CSV (RFC 4180): one header, {@code TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME,<every Column>},
 * then one line per row of every table; TABLE is the MySQL table name; empty fields for absent values.
 */
public final class AccountingText {
    /** Output format. */
    public enum Format { TEXT, CSV, JSON }

    private AccountingText() {
    }

    /** Formats the given tables, in the map's iteration order. */
    public static String format(Map<SummaryTable, List<SummaryRow>> tables, Format format) {
        return switch (format) {
            case TEXT -> SummaryTables.text(tables);
            case JSON -> AccountingJson.document(tables);
            case CSV -> csv(tables);
        };
    }

    private static String csv(Map<SummaryTable, List<SummaryRow>> tables) {
        StringBuilder sb = new StringBuilder("TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME");
        for (Column c : Column.values()) {
            sb.append(',').append(c.name());
        }
        sb.append('\n');
        for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
            for (SummaryRow r : e.getValue()) {
                sb.append(e.getKey().tableName()).append(',')
                        .append(r.threadId() >= 0 ? Long.toString(r.threadId()) : "").append(',')
                        .append(csv(r.threadName())).append(',').append(csv(r.user())).append(',')
                        .append(csv(r.host())).append(',').append(csv(r.eventName()));
                for (Column c : Column.values()) {
                    sb.append(',').append(r.get(c));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String csv(String s) {
        if (s == null) {
            return "";
        }
        s = TerminalText.safe(s); // one row per line, nothing that acts on a terminal
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }
}
