package io.memscope.accounting;

import io.memscope.internal.text.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints summary tables as an aligned text table, CSV or JSON; shared by the demo and {@code memscope accounting}.
 *
 * <ul>
 * <li>TEXT: per table a title line (the MySQL table name), a header and one line per row; only the owner
 *     columns that table has (THREAD: THREAD_ID, THREAD_NAME, USER, HOST; ACCOUNT: USER, HOST; USER; HOST;
 *     GLOBAL: none, plus COUNT_ANOMALIES). NULL stands for no user / host.</li>
 * <li>CSV (RFC 4180): one header, {@code TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME,<every Column>}, then
 *     one line per row of every table; TABLE is the MySQL table name; empty fields for absent values.</li>
 * <li>JSON: an object whose keys are MySQL table names, each an array of row objects with the same keys as the
 *     CSV header (absent strings are null, THREAD_ID is -1 outside the thread table).</li>
 * </ul>
 */
public final class SummaryTables {
    /** Output format. */
    public enum Format { TEXT, CSV, JSON }

    private SummaryTables() {
    }

    /** Formats the given tables, in the map's iteration order. */
    public static String format(Map<SummaryTable, List<SummaryRow>> tables, Format format) {
        StringBuilder sb = new StringBuilder();
        switch (format) {
            case CSV:
                sb.append("TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME");
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
            case JSON:
                sb.append("{");
                boolean firstTable = true;
                for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
                    sb.append(firstTable ? "\n  " : ",\n  ").append(json(e.getKey().tableName())).append(": [");
                    firstTable = false;
                    boolean firstRow = true;
                    for (SummaryRow r : e.getValue()) {
                        sb.append(firstRow ? "\n    {" : ",\n    {");
                        firstRow = false;
                        sb.append("\"THREAD_ID\": ").append(r.threadId())
                                .append(", \"THREAD_NAME\": ").append(json(r.threadName()))
                                .append(", \"USER\": ").append(json(r.user()))
                                .append(", \"HOST\": ").append(json(r.host()))
                                .append(", \"EVENT_NAME\": ").append(json(r.eventName()));
                        for (Column c : Column.values()) {
                            sb.append(", \"").append(c.name()).append("\": ").append(r.get(c));
                        }
                        sb.append('}');
                    }
                    sb.append(firstRow ? "]" : "\n  ]");
                }
                return sb.append(firstTable ? "}\n" : "\n}\n").toString();
            default:
                for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
                    if (sb.length() > 0) {
                        sb.append('\n');
                    }
                    text(sb, e.getKey(), e.getValue());
                }
                return sb.toString();
        }
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

    static String json(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (TerminalText.isControl(ch)) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
            }
        }
        return sb.append('"').toString();
    }
}
