package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;

import memscope.fixtures.BudgetFixture;
import org.junit.jupiter.api.Test;

/** {@link MemoryBudget}: the exact high-water mark of an accounting instrument during the test. */
class MemoryBudgetTest {

    @Test
    void aPeakOverTheBudgetFailsEvenWhenEverythingWasFreed() {
        Fixtures.Outcome o = Fixtures.runOne(BudgetFixture.class, "overBudget");
        assertThat(o.passed()).isFalse();
        assertThat(o.message()).isEqualTo("@MemoryBudget: instrument memory/fixturecache/entries held 2.00 MiB at its "
                + "peak during the test, 1.00 MiB over its budget of 1.00 MiB (100% over); it holds 0 B now.");
        // the budget installed for the test is gone
        assertThat(BudgetFixture.ENTRIES.budget()).isNull();
    }

    @Test
    void aPeakWithinTheBudgetPasses() {
        Fixtures.Outcome o = Fixtures.runOne(BudgetFixture.class, "withinBudget");
        assertThat(o.passed()).as(o.message()).isTrue();
    }

    @Test
    void anUnknownInstrumentIsNamed() {
        Fixtures.Outcome o = Fixtures.runOne(BudgetFixture.class, "unknownInstrument");
        assertThat(o.message()).startsWith("@MemoryBudget: no instrument \"memory/fixturecache/entires\" is registered")
                .contains("memory/fixturecache/entries");
    }

    @Test
    void theApplicationsOwnBudgetIsKeptAndItsPeakRestarted() {
        var acct = io.memscope.accounting.MemoryAccounting.global();
        var own = acct.setBudget(BudgetFixture.ENTRIES, 64L << 20);
        try {
            Fixtures.Outcome o = Fixtures.runOne(BudgetFixture.class, "overBudget");
            assertThat(o.message()).contains("held 2.00 MiB at its peak");
            assertThat(BudgetFixture.ENTRIES.budget()).isSameAs(own);
        } finally {
            acct.removeBudget(own);
        }
    }
}
