package io.memscope.junit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registered on a fixture method after {@code @MemoryBudget}, so that it runs after the test body and before the
 * extension judges: records the budgets its engine run has installed at that moment.
 */
public final class InstalledBudgetsProbe implements AfterTestExecutionCallback {
    /** What one test saw: its engine run's installed budgets (the object) and how many it held. */
    public record Seen(Object installed, int count) {
    }

    /** By test method name. */
    public static final Map<String, Seen> SEEN = new ConcurrentHashMap<>();

    @Override
    public void afterTestExecution(ExtensionContext context) {
        BudgetCheck.Installed installed = context.getRoot().getStore(MemscopeExtension.NS)
                .get(MemscopeExtension.INSTALLED_BUDGETS, BudgetCheck.Installed.class);
        SEEN.put(context.getRequiredTestMethod().getName(), new Seen(installed, installed == null ? -1 : installed.size()));
    }
}
