package io.memscope.internal.accounting;

import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.recording.AccountingSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes the {@link AccountingSnapshot} a writer puts in a recording (the global registry's tables handed to the
 * agent, the tests' recordings): bounded at {@link AccountingSnapshot#MAX_ROWS} rows.
 */
public final class AccountingSnapshots {
    private AccountingSnapshots() {
    }

    /** A snapshot of all tables, read now; THREAD rows are left out first when there are too many rows. */
    public static AccountingSnapshot of(long timestampNanos, Map<SummaryTable, List<SummaryRow>> tables) {
        List<SummaryRow> rows = new ArrayList<>();
        int others = 0;
        for (Map.Entry<SummaryTable, List<SummaryRow>> e : tables.entrySet()) {
            if (e.getKey() != SummaryTable.THREAD) {
                others += e.getValue().size();
            }
        }
        for (SummaryTable t : SummaryTable.values()) {
            List<SummaryRow> table = tables.getOrDefault(t, List.of());
            int room = t == SummaryTable.THREAD ? Math.max(0, AccountingSnapshot.MAX_ROWS - others)
                    : AccountingSnapshot.MAX_ROWS - rows.size();
            rows.addAll(table.subList(0, Math.max(0, Math.min(table.size(), room))));
        }
        return new AccountingSnapshot(timestampNanos, rows);
    }
}
