package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.OwnerScope;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AccountingTextTest {
    @Test
    void formatsTextWithTheOwnerColumnsOfEachTable() {
        MemoryAccounting acct = new MemoryAccounting();
        Instrument cache = acct.instrument("memory/cache/entries");
        try (OwnerScope s = acct.scope("al,ice", "h\"1")) {
            acct.alloc(cache, 42);
        }
        Map<SummaryTable, List<SummaryRow>> t = acct.summaries();
        String text = AccountingText.format(t, AccountingText.Format.TEXT);
        assertThat(text).contains("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME (1 row)", "CURRENT_NUMBER_OF_BYTES_USED",
                "memory/cache/entries", "COUNT_ANOMALIES");
        String users = AccountingText.format(Map.of(SummaryTable.USER, t.get(SummaryTable.USER)),
                AccountingText.Format.TEXT);
        assertThat(users.lines().toList().get(1)).matches("USER +EVENT_NAME +COUNT_ALLOC .*");
        assertThat(users).contains("al,ice").doesNotContain("THREAD_ID").doesNotContain("HOST");
    }
}
