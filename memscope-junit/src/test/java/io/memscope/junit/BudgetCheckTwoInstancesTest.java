package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.TwoRunsFixture;
import org.junit.jupiter.api.Test;

/**
 * Two launches of the JUnit engine in one JVM, at the same time, each keep their own {@code @MemoryBudget} state:
 * the budgets a run installed for its tests are counted in that run's root store, not in a static map shared by
 * every run, and each verdict is the one its own test earned.
 */
class BudgetCheckTwoInstancesTest {

    @Test
    void twoEngineLaunchesKeepTheirOwnInstalledBudgets() throws Exception {
        // the instruments exist before the runs, so that each run installs a budget for its test
        assertThat(TwoRunsFixture.FIRST.budget()).isNull();
        assertThat(TwoRunsFixture.SECOND.budget()).isNull();
        CompletableFuture<Fixtures.Outcome> first =
                CompletableFuture.supplyAsync(() -> Fixtures.runOne(TwoRunsFixture.class, "first"));
        assertThat(TwoRunsFixture.FIRST_HOLDS.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(TwoRunsFixture.FIRST.budget()).as("installed by the first run while its test runs").isNotNull();

        Fixtures.Outcome second = Fixtures.runOne(TwoRunsFixture.class, "second");
        TwoRunsFixture.SECOND_DONE.countDown();
        Fixtures.Outcome firstOutcome = first.get(60, TimeUnit.SECONDS);

        assertThat(second.passed()).as(second.message()).isTrue();
        assertThat(firstOutcome.passed()).isFalse();
        assertThat(firstOutcome.message()).isEqualTo("@MemoryBudget: instrument memory/tworuns/first held 2.00 MiB at "
                + "its peak during the test, 1.00 MiB over its budget of 1.00 MiB (100% over); it holds 0 B now.");

        InstalledBudgetsProbe.Seen a = InstalledBudgetsProbe.SEEN.get("first");
        InstalledBudgetsProbe.Seen b = InstalledBudgetsProbe.SEEN.get("second");
        assertThat(a.installed()).isNotNull().isNotSameAs(b.installed());
        assertThat(a.count()).as("the first run's own budget only").isEqualTo(1);
        assertThat(b.count()).as("the second run's own budget only, while the first run's was installed").isEqualTo(1);
        assertThat(((BudgetCheck.Installed) a.installed()).size()).isZero();
        assertThat(((BudgetCheck.Installed) b.installed()).size()).isZero();
        assertThat(TwoRunsFixture.FIRST.budget()).as("each run removed its own").isNull();
        assertThat(TwoRunsFixture.SECOND.budget()).isNull();
    }
}
