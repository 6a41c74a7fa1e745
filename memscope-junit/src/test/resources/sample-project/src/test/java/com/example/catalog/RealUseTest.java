package com.example.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.memscope.junit.MaxAllocation;
import io.memscope.junit.NoLeaks;
import java.util.Locale;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The extension as real suites use it: repetitions run at the same time, the JDK's locale data and an application's
 * soft-reference cache, an allocation limit whose failure names its site. Isolated: a full GC that clears soft
 * references is JVM-wide.
 */
@Isolated
class RealUseTest {
    static volatile Object sink;

    /** Every locale's name in its own language: the JDK loads each locale's data on first use. */
    private static int localeNames() {
        int n = 0;
        for (Locale l : Locale.getAvailableLocales()) {
            n += l.getDisplayName(l).length() + l.getDisplayCountry(Locale.ROOT).length();
        }
        return n;
    }

    /** Repetitions at the same time; the first one is slow to start, so another fills the memo: its warm-up. */
    @RepeatedTest(4)
    @Execution(ExecutionMode.CONCURRENT)
    @NoLeaks
    void pricesAreComputedOnce(RepetitionInfo info) throws InterruptedException {
        if (info.getCurrentRepetition() == 1) {
            Thread.sleep(300);
        }
        assertEquals(1 << 20, PriceCache.table("EUR").length);
    }

    /**
     * Every locale's name, in its own language: the JDK loads the locales' data on first use and keeps it (its
     * classes' literals, per-locale providers) or caches it softly (about 12 MiB on JDK 17). Not the test's leak.
     */
    @Test
    @NoLeaks
    void localeNamesAreShown() {
        sink = localeNames();
    }

    /** A soft-reference cache the application fills: memory the JVM gives back on demand, not a leak. */
    @Test
    @NoLeaks
    void historiesAreOnlyCached() {
        assertEquals(1 << 20, PriceCache.history("EUR").length);
    }

    /** The same, counted on request: the build shows it as held. */
    @Test
    @NoLeaks(countSoftlyReachable = true)
    void historiesCountedWhenAsked() {
        assertEquals(1 << 20, PriceCache.history("USD").length);
    }

    /** 40 MiB at one site, over the limit: the message names the site with about all of it. */
    @Test
    @MaxAllocation("1MB")
    void exportIsCheap() {
        for (int i = 0; i < 40 * 16; i++) {
            sink = new byte[64 * 1024]; // the export buffer
        }
    }
}
