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
 * @param sites       the agent's sites holding the most ({@code site\0type} to held bytes; with method-level sites,
 *                    {@code pkg.Class.method(File.java)\0type}, the lines of a method summed), a few times more
 *                    than the binder shows, so that it can tell which shown site fell far behind
 * @param takenNanos  when it was taken
 */
record AccountingSnapshot(Map<String, SummaryRow> global, Map<String, SummaryRow> byUser,
                          Map<String, SummaryRow> byHost, Map<String, Budget> budgets, AgentTotals agent,
                          Map<String, Double> sites, long takenNanos) {

    /** The agent's totals at the snapshot. */
    record AgentTotals(long liveBytes, long heldBytes, long allocatedBytes, long nativeOutstandingBytes,
                       long droppedSamples, long failures, long unconfirmedBytes) {
    }

    static final AccountingSnapshot EMPTY = new AccountingSnapshot(Map.of(), Map.of(), Map.of(), Map.of(), null,
            Map.of(), 0);

    /**
     * @param siteRows      rows asked from the agent (0: none)
     * @param sitesByMethod whether sites are named by method (lines summed) instead of by line
     */
    static AccountingSnapshot take(MemoryAccounting acct, AgentClient agent, int siteRows, boolean sitesByMethod) {
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
        Map<String, Double> sites = new LinkedHashMap<>();
        if (agent != null && agent.isPresent()) {
            totals = new AgentTotals(agent.liveBytes(), agent.heldBytes(), agent.allocatedBytes(),
                    agent.nativeOutstandingBytes(), agent.droppedSamples(), agent.failures(), agent.unconfirmedBytes());
            if (siteRows > 0) {
                List<AgentClient.SiteUsage> top = agent.topSites(siteRows, AgentClient.SiteOrder.HELD);
                for (AgentClient.SiteUsage u : top) {
                    sites.merge(key(sitesByMethod ? method(u.site()) : u.site(), u.type()), (double) u.heldBytes(),
                            Double::sum);
                }
            }
        }
        return new AccountingSnapshot(global, byUser, byHost, budgets, totals, sites, System.nanoTime());
    }

    static String key(String a, String b) {
        return a + "\u0000" + (b == null ? "" : b);
    }

    /** @return a column of a row, or NaN when the row is gone (the meter then reads its last value) */
    static double value(SummaryRow r, Column c) {
        return r == null ? Double.NaN : r.get(c);
    }

    /**
     * @return a site frame without its line: {@code pkg.Class.method(File.java:42)} is
     *         {@code pkg.Class.method(File.java)}
     */
    static String method(String frame) {
        int colon = frame.lastIndexOf(':');
        int close = frame.lastIndexOf(')');
        if (colon > frame.lastIndexOf('(') && close > colon) {
            return frame.substring(0, colon) + frame.substring(close);
        }
        return frame;
    }
}
