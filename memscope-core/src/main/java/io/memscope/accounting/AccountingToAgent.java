package io.memscope.accounting;

import io.memscope.internal.accounting.AccountingSnapshots;
import io.memscope.internal.link.AgentLink;
import io.memscope.recording.AccountingSnapshot;
import java.util.List;

/**
 * Hands the process-wide registry's summary tables to the memscope agent when one captures in this JVM, so that
 * the recording (and the reports built from it) show them: at the end of the capture, and every few seconds while
 * it runs (the agent asks, from its own thread; see {@link AgentLink#snapshot()}). Without an agent nothing happens:
 * the link calls nothing. Reading the tables costs what a JMX read costs (one pass over the live threads' stats);
 * it never throws into the caller.
 */
final class AccountingToAgent {
    private AccountingToAgent() {
    }

    /** Registers the registry with the link (once, when the process-wide registry is created). */
    static void register(MemoryAccounting accounting) {
        try {
            AgentLink.atSnapshot(() -> send(accounting));
        } catch (Throwable t) {
            // the link is optional: accounting works without it
        }
    }

    /** Reads every table and passes the rows to the agent (the layout of {@code AgentLink}'s apiAccounting). */
    static void send(MemoryAccounting accounting) {
        if (!AgentLink.active()) {
            return;
        }
        long now = System.nanoTime();
        // at most AccountingSnapshot.MAX_ROWS rows, THREAD rows left out first: bounded work and memory
        List<SummaryRow> rows = AccountingSnapshots.of(now, accounting.summaries()).rows();
        int n = rows.size();
        Column[] columns = Column.values();
        String[] text = new String[n * 4];
        long[] values = new long[n * (2 + columns.length)];
        int i = 0;
        for (SummaryRow r : rows) {
            text[i * 4] = r.threadName();
            text[i * 4 + 1] = r.user();
            text[i * 4 + 2] = r.host();
            text[i * 4 + 3] = r.eventName();
            int at = i * (2 + columns.length);
            values[at] = r.table().ordinal();
            values[at + 1] = r.threadId();
            for (int c = 0; c < columns.length; c++) {
                values[at + 2 + c] = r.get(columns[c]);
            }
            i++;
        }
        AgentLink.accounting(now, text, values);
    }
}
