package io.memscope.analysis;

import io.memscope.analysis.text.TerminalText;

import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.recording.AccountingSnapshot;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The report's accounting section: the application's accounting summary tables (memscope-core's
 * {@code MemoryAccounting}, MySQL performance schema's low / current / high watermarks) as the recording last carried
 * them ({@link Report#accounting()}) in the terminal summary (report.json's {@code accounting}:
 * {@link AccountingJson}). The figures are the application's own (exact counts of its alloc and free calls, bytes as it passed them), not
 * memscope's samples; LOW and HIGH mean what docs/accounting.md says (exact per thread, bounds in aggregate tables).
 */
public final class AccountingSection {
    /** Rows per table in the terminal summary. */
    static final int ROWS = 10;

    private AccountingSection() {
    }

    /** @return the snapshot's time in ms after the capture started */
    public static double atMs(Report r) {
        return (r.accounting().timestampNanos() - r.window().runStartNanos()) / 1e6;
    }

    /** The terminal summary's lines: users, hosts and instruments by high watermark, largest first. */
    static void summary(StringBuilder sb, Report r) {
        AccountingSnapshot a = r.accounting();
        if (a == null || a.rows().isEmpty()) {
            return;
        }
        sb.append(String.format(Locale.ROOT, "  Accounting (the application's MemoryAccounting at %.1f s; bytes low /"
                + " current / high):%n", atMs(r) / 1000));
        for (SummaryTable t : List.of(SummaryTable.USER, SummaryTable.HOST, SummaryTable.GLOBAL)) {
            List<SummaryRow> rows = a.rows(t).stream()
                    .sorted(Comparator.comparingLong(SummaryRow::highBytes).reversed()).toList();
            if (rows.isEmpty()) {
                continue;
            }
            sb.append("    ").append(title(t)).append(":\n");
            int i = 0;
            for (SummaryRow row : rows) {
                if (i++ == ROWS) {
                    sb.append("      ... ").append(rows.size() - ROWS).append(" more in report.json\n");
                    break;
                }
                sb.append(String.format(Locale.ROOT, "      %-16s %10s %10s %10s  %s%n",
                        TerminalText.safe(owner(t, row)), Summary.bytes(row.lowBytes()),
                        Summary.bytes(row.currentBytes()), Summary.bytes(row.highBytes()),
                        TerminalText.safe(row.eventName())));
            }
        }
    }

    /** @return how a table is named on reports */
    public static String title(SummaryTable t) {
        return switch (t) {
            case THREAD -> "by thread";
            case ACCOUNT -> "by account (user@host)";
            case USER -> "by user";
            case HOST -> "by host";
            case GLOBAL -> "global";
        };
    }

    /** @return the row's owner in its table: thread, user@host, user, host, or {@code (all)} */
    public static String owner(SummaryTable t, SummaryRow row) {
        String owner = switch (t) {
            case THREAD -> row.threadName() == null ? "thread " + row.threadId() : row.threadName();
            case ACCOUNT -> row.user() + "@" + row.host();
            case USER -> row.user();
            case HOST -> row.host();
            case GLOBAL -> "(all)";
        };
        return owner == null ? "(none)" : owner;
    }
}
