package io.memscope.junit;

import io.memscope.accounting.Budget;
import io.memscope.accounting.Column;
import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link MemoryBudget}: the high-water mark of an instrument's bytes while the test method ran, exact, from the
 * {@link Budget} of the instrument ({@link Budget#peakBytes()}). An instrument without a budget gets one for the
 * test, with a limit nothing reaches ({@link MemoryAccounting#MAX_SIZE}: {@code tryAlloc} refuses nothing and
 * listeners hear nothing), removed afterwards; an instrument with the application's own budget has that budget's
 * peak restarted ({@link Budget#resetPeak()}).
 */
final class BudgetCheck {
    /**
     * The budgets one run of the extension installed for its tests, with the number of tests using each (tests in
     * parallel share one). One per engine run: {@link MemscopeExtension} keeps it in the root context's store, so
     * two runs in one JVM (two launches of the JUnit Platform) each count their own. Two runs at the same moment
     * that watch the same instrument of {@code MemoryAccounting.global()} see each other's budget as the
     * application's own (they restart its peak and leave it in place).
     */
    static final class Installed {
        private final Map<Budget, int[]> users = new HashMap<>();

        /** @return the number of budgets installed now (tests) */
        synchronized int size() {
            return users.size();
        }
    }

    private final Installed installed;
    private final Map<String, Long> limits;
    private final Map<String, Budget> watched = new LinkedHashMap<>();

    private BudgetCheck(Installed installed, Map<String, Long> limits) {
        this.installed = installed;
        this.limits = limits;
    }

    static BudgetCheck start(Installed installed, Map<String, Long> limits) {
        BudgetCheck c = new BudgetCheck(installed, limits);
        if (limits.isEmpty()) {
            return c;
        }
        MemoryAccounting acct = MemoryAccounting.global();
        for (String name : limits.keySet()) {
            Instrument i = acct.find(name);
            if (i == null) {
                continue; // registered during the test, or never: judged at the end
            }
            synchronized (installed) {
                Budget b = i.budget();
                if (b == null) {
                    b = acct.setBudget(i, MemoryAccounting.MAX_SIZE);
                    installed.users.put(b, new int[] {1});
                } else if (installed.users.containsKey(b)) {
                    installed.users.get(b)[0]++;
                } else {
                    b.resetPeak();
                }
                c.watched.put(name, b);
            }
        }
        return c;
    }

    /** @return one failure message per instrument over its limit (empty when none); removes installed budgets */
    List<String> finish() {
        List<String> failures = new ArrayList<>();
        if (limits.isEmpty()) {
            return failures;
        }
        MemoryAccounting acct = MemoryAccounting.global();
        for (Map.Entry<String, Long> e : limits.entrySet()) {
            String name = e.getKey();
            long limit = e.getValue();
            Budget b = watched.get(name);
            long peak;
            String precision = "";
            if (b != null) {
                peak = b.peakBytes();
                release(acct, installed, b);
            } else if (acct.find(name) == null) {
                failures.add("@MemoryBudget: no instrument \"" + name + "\" is registered in MemoryAccounting.global() "
                        + "(registered instruments: " + acct.instruments().stream().map(Instrument::name).toList() + ")");
                continue;
            } else {
                peak = globalRow(acct, name, Column.HIGH_NUMBER_OF_BYTES_USED);
                precision = " (an upper bound: the instrument was registered during the test, so its exact peak was "
                        + "not watched; the summary tables' HIGH is used)";
            }
            if (peak > limit) {
                failures.add("@MemoryBudget: instrument " + name + " held " + Sizes.format(peak) + " at its peak during "
                        + "the test, " + Sizes.format(peak - limit) + " over its budget of " + Sizes.format(limit) + " ("
                        + AllocationCheck.percent(peak - limit, limit) + " over)" + precision + "; it holds "
                        + Sizes.format(globalRow(acct, name, Column.CURRENT_NUMBER_OF_BYTES_USED)) + " now"
                        + topOwners(acct, name));
            }
        }
        return failures;
    }

    private static void release(MemoryAccounting acct, Installed installed, Budget b) {
        synchronized (installed) {
            int[] users = installed.users.get(b);
            if (users != null && --users[0] == 0) {
                installed.users.remove(b);
                acct.removeBudget(b);
            }
        }
    }

    private static long globalRow(MemoryAccounting acct, String name, Column column) {
        for (SummaryRow r : acct.summary(SummaryTable.GLOBAL)) {
            if (r.eventName().equals(name)) {
                return r.get(column);
            }
        }
        return 0;
    }

    /** @return the accounts (user@host) holding the most of the instrument now, for the message */
    private static String topOwners(MemoryAccounting acct, String name) {
        List<SummaryRow> rows = new ArrayList<>();
        for (SummaryRow r : acct.summary(SummaryTable.ACCOUNT)) {
            if (r.eventName().equals(name) && r.get(Column.HIGH_NUMBER_OF_BYTES_USED) > 0) {
                rows.add(r);
            }
        }
        if (rows.isEmpty()) {
            return ".";
        }
        rows.sort((a, c) -> Long.compare(c.get(Column.HIGH_NUMBER_OF_BYTES_USED), a.get(Column.HIGH_NUMBER_OF_BYTES_USED)));
        StringBuilder sb = new StringBuilder(". Accounts by high-water mark (upper bounds, see docs/accounting.md):");
        for (SummaryRow r : rows.subList(0, Math.min(5, rows.size()))) {
            sb.append(String.format("%n  %12s high  %12s now  %s@%s", Sizes.format(r.get(Column.HIGH_NUMBER_OF_BYTES_USED)),
                    Sizes.format(r.get(Column.CURRENT_NUMBER_OF_BYTES_USED)), r.user(), r.host()));
        }
        return sb.toString();
    }
}
