package io.memscope.accounting;

import io.memscope.internal.text.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints summary tables as aligned text, as the demo and {@code memscope accounting} show them: per table a title
 * line (the MySQL table name), a header and one line per row; only the owner columns that table has (THREAD:
 * THREAD_ID, THREAD_NAME, USER, HOST; ACCOUNT: USER, HOST; USER; HOST; GLOBAL: none, plus COUNT_ANOMALIES). NULL
 * stands for no user / host. Application strings are made safe for a terminal. (The tables' JSON and CSV forms are
 * written outside the application, by memscope-analysis's {@code AccountingJson} and {@code AccountingText}.)
 */
public final class SummaryTables {
    private SummaryTables() {
    }

    /** Formats the given tables as text, in the map's iteration order, a blank line between two tables. */
    public static String text(Map<SummaryTable, List<SummaryRow>> tables) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            text(sb, e.getKey(), e.getValue());
        }
        return sb.toString();
    }

    /** Formats one table as text. */
    public static String text(SummaryTable table, List<SummaryRow> rows) {
        StringBuilder sb = new StringBuilder();
        text(sb, table, rows);
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
}
