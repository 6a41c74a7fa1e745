package io.memscope.recording;

import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import java.util.List;

/**
 * The application's accounting summary tables ({@link io.memscope.accounting.MemoryAccounting}) at one moment, as
 * an ACCOUNTING block of a recording carries them (format 1.3): every row of every table, with its low, current and
 * high watermarks. A recording may hold several; the last one is the latest state (written at the end of the
 * capture; a JVM killed before keeps the last one written).
 *
 * @param timestampNanos {@code System.nanoTime()} of the recorded JVM when the tables were read
 * @param rows           the rows, table by table, in the tables' order
 */
public record AccountingSnapshot(long timestampNanos, List<SummaryRow> rows) {
    /**
     * Most rows in one snapshot; a writer leaves the rest out (THREAD rows first, they are the most numerous).
     */
    public static final int MAX_ROWS = 20_000;

    public AccountingSnapshot {
        rows = List.copyOf(rows);
    }

    /** @return the rows of one table */
    public List<SummaryRow> rows(SummaryTable table) {
        return rows.stream().filter(r -> r.table() == table).toList();
    }
}
