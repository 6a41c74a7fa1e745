package io.memscope.micrometer;

import io.memscope.accounting.Budget;
import io.memscope.accounting.Column;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.jmx.AgentClient;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the meters read, taken at once: the accounting's global, user and host tables, its budgets, and the
 * agent's figures. Meters read the latest snapshot; a scrape takes a new one when the last is older than the
 * binder's {@code maxAge} (one table read per scrape, not one per meter).
 *
 * @param global      instrument name to its GLOBAL row
 * @param byUser      "instrument\0user" to its USER row (user may be null: no user)
 * @param byHost      "instrument\0host" to its HOST row
 * @param budgets     "kind\0target" to the budget
 * @param agent       the agent's totals, or null without an agent
 * @param topSites    the agent's top sites by held bytes ({@code site\0type} to the site's figures)
 * @param takenNanos  when it was taken
 */
record AccountingSnapshot(Map<String, SummaryRow> global, Map<String, SummaryRow> byUser,
                          Map<String, SummaryRow> byHost, Map<String, Budget> budgets, AgentTotals agent,
                          Map<String, AgentClient.SiteUsage> topSites, long takenNanos) {

    /** The agent's totals at the snapshot. */
    record AgentTotals(long liveBytes, long heldBytes, long allocatedBytes, long nativeOutstandingBytes,
                       long droppedSamples, long failures, long unconfirmedBytes) {
    }

    static final AccountingSnapshot EMPTY = new AccountingSnapshot(Map.of(), Map.of(), Map.of(), Map.of(), null,
            Map.of(), 0);

    static AccountingSnapshot take(MemoryAccounting acct, AgentClient agent, int topSites) {
        Map<String, SummaryRow> global = new LinkedHashMap<>();
        Map<String, SummaryRow> byUser = new HashMap<>();
        Map<String, SummaryRow> byHost = new HashMap<>();
        Map<String, Budget> budgets = new LinkedHashMap<>();
        if (acct != null) {
            for (SummaryRow r : acct.summary(SummaryTable.GLOBAL)) {
                global.put(r.eventName(), r);
            }
            for (SummaryRow r : acct.summary(SummaryTable.USER)) {
                byUser.put(key(r.eventName(), r.user()), r);
            }
            for (SummaryRow r : acct.summary(SummaryTable.HOST)) {
                byHost.put(key(r.eventName(), r.host()), r);
            }
            for (Budget b : acct.budgets()) {
                budgets.put(key(b.kind().name().toLowerCase(java.util.Locale.ROOT), b.target()), b);
            }
        }
        AgentTotals totals = null;
        Map<String, AgentClient.SiteUsage> sites = new LinkedHashMap<>();
        if (agent != null && agent.isPresent()) {
            totals = new AgentTotals(agent.liveBytes(), agent.heldBytes(), agent.allocatedBytes(),
                    agent.nativeOutstandingBytes(), agent.droppedSamples(), agent.failures(), agent.unconfirmedBytes());
            if (topSites > 0) {
                List<AgentClient.SiteUsage> top = agent.topSites(topSites, AgentClient.SiteOrder.HELD);
                for (AgentClient.SiteUsage u : top) {
                    sites.put(key(u.site(), u.type()), u);
                }
            }
        }
        return new AccountingSnapshot(global, byUser, byHost, budgets, totals, sites, System.nanoTime());
    }

    static String key(String a, String b) {
        return a + "\u0000" + (b == null ? "" : b);
    }

    /** @return a column of a row, or NaN when the row is gone (a meter of a row that left the top N) */
    static double value(SummaryRow r, Column c) {
        return r == null ? Double.NaN : r.get(c);
    }
}
