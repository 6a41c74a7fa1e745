package io.memscope.analysis;

import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.analysis.text.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints accounting summary tables as {@code memscope accounting --format} asks: text, JSON ({@link AccountingJson},
 * report.json's layout) or CSV (RFC 4180).
 *
 * <p>Text: per table a title line (the MySQL table name and its row count), a header and one line per row, columns
 * aligned; only the owner columns that table has (THREAD: THREAD_ID, THREAD_NAME, USER, HOST; ACCOUNT: USER, HOST;
 * USER; HOST; GLOBAL: none), then EVENT_NAME and every {@link Column}; NULL stands for no user / host; a blank line
 * between two tables.
 *
 * <p>CSV: one header, {@code TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME,<every Column>}, then one line per row
 * of every table; TABLE is the MySQL table name; empty fields for absent values.
 *
 * <p>Application strings are made safe for a terminal in both.
 */
public final class AccountingText {
    /** Output format. */
    public enum Format { TEXT, CSV, JSON }

    private AccountingText() {
    }

    /** Formats the given tables, in the map's iteration order. */
    public static String format(Map<SummaryTable, List<SummaryRow>> tables, Format format) {
        return switch (format) {
            case TEXT -> text(tables);
            case JSON -> AccountingJson.document(tables);
            case CSV -> csv(tables);
        };
    }

    private static String text(Map<SummaryTable, List<SummaryRow>> tables) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            text(sb, e.getKey(), e.getValue());
        }
        return sb.toString();
    }

    private static void text(StringBuilder sb, SummaryTable table, List<SummaryRow> rows) {
        List<String> header = new ArrayList<>();
        switch (table) {
            case THREAD:
                header.addAll(List.of("THREAD_ID", "THREAD_NAME", "USER", "HOST"));
                break;
            case ACCOUNT:
                header.addAll(List.of("USER", "HOST"));
                break;
            case USER:
                header.add("USER");
                break;
            case HOST:
                header.add("HOST");
                break;
            default:
                break;
        }
        int owners = header.size();
        header.add("EVENT_NAME");
        int numbers = Column.values().length - (table == SummaryTable.GLOBAL ? 0 : 1);
        for (int i = 0; i < numbers; i++) {
            header.add(Column.values()[i].name());
        }
        List<String[]> lines = new ArrayList<>();
        lines.add(header.toArray(new String[0]));
        for (SummaryRow r : rows) {
            String[] cells = new String[header.size()];
            int c = 0;
            if (table == SummaryTable.THREAD) {
                cells[c++] = Long.toString(r.threadId());
                cells[c++] = nul(r.threadName());
            }
            if (table == SummaryTable.THREAD || table == SummaryTable.ACCOUNT || table == SummaryTable.USER) {
                cells[c++] = nul(r.user());
            }
            if (table == SummaryTable.THREAD || table == SummaryTable.ACCOUNT || table == SummaryTable.HOST) {
                cells[c++] = nul(r.host());
            }
            assert c == owners;
            cells[c++] = TerminalText.safe(r.eventName());
            for (int i = 0; i < numbers; i++) {
                cells[c++] = Long.toString(r.get(Column.values()[i]));
            }
            lines.add(cells);
        }
        int[] widths = new int[header.size()];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                widths[i] = Math.max(widths[i], l[i].length());
            }
        }
        sb.append(table.tableName()).append(" (").append(rows.size()).append(rows.size() == 1 ? " row)\n" : " rows)\n");
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                boolean number = i > owners;
                String cell = l[i];
                String pad = " ".repeat(widths[i] - cell.length());
                if (i > 0) {
                    sb.append("  ");
                }
                sb.append(number && l != lines.get(0) ? pad + cell : (i == l.length - 1 ? cell : cell + pad));
            }
            sb.append('\n');
        }
    }

    private static String nul(String s) {
        return s == null ? "NULL" : TerminalText.safe(s);
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
