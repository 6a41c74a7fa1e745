package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A diff matches a site whose type (or frame) is a hidden class across runs: a lambda's class has another number
 * and address in every JVM (Caffeine's eviction lambda was {@code BoundedLocalCache$$Lambda$112.0x00007f62941069c8}
 * in one run and {@code $$Lambda$84.0x00007fd4780b4498} in the next), and a diff that keyed on the raw name showed
 * one site as "gone" and "new" at once instead of one change.
 */
class DiffHiddenClassTest {
    private static final String SITE =
            "com.github.benmanes.caffeine.cache.BoundedLocalCache.evictEntry(BoundedLocalCache.java:1024)";

    private static SiteProfile site(String type, long bytes, long samples) {
        return new SiteProfile(SITE, type, false, bytes, bytes / 16, samples, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, false,
                false, List.of(SITE), 0, 0, 0, null);
    }

    private static Report run(SiteProfile... sites) {
        long bytes = 0;
        long samples = 0;
        for (SiteProfile s : sites) {
            bytes += s.allocatedBytes();
            samples += s.samples();
        }
        return DiffSignificanceTest.report(List.of(sites), new Report.Totals(bytes, bytes / 16, 0, 0, samples, 1000,
                false, Double.NaN, null, 0, 0, 0, Double.NaN));
    }

    @Test
    void aLambdaClassOfAnotherNumberAndAddressIsTheSameSite() {
        Report base = run(site("com.github.benmanes.caffeine.cache.BoundedLocalCache$$Lambda$112.0x00007f62941069c8",
                39L << 16, 39));
        Report newer = run(site("com.github.benmanes.caffeine.cache.BoundedLocalCache$$Lambda$84.0x00007fd4780b4498",
                93L << 16, 93));

        RunDiff d = DiffBuilder.diff(base, newer, DiffMetric.ALLOCATED, false, null);

        assertThat(d.sites()).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo("com.github.benmanes.caffeine.cache.BoundedLocalCache$$Lambda");
            assertThat(e.base().allocatedBytes()).isEqualTo(39L << 16);
            assertThat(e.newer().allocatedBytes()).isEqualTo(93L << 16);
            assertThat(e.base().allocatedSamples()).isEqualTo(39);
            assertThat(e.newer().allocatedSamples()).isEqualTo(93);
        });
    }

    @Test
    void twoLambdaClassesOfOneSiteInOneRunAreSummed() {
        Report base = run(site("app.Foo$$Lambda/0x0000000801001234", 10L << 16, 10),
                site("app.Foo$$Lambda/0x0000000801001a00", 5L << 16, 5));
        Report newer = run(site("app.Foo$$Lambda/0x0000000801002000", 15L << 16, 15));

        RunDiff d = DiffBuilder.diff(base, newer, DiffMetric.ALLOCATED, false, null);

        assertThat(d.sites()).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo("app.Foo$$Lambda");
            assertThat(e.base().allocatedBytes()).isEqualTo(15L << 16);
            assertThat(e.newer().allocatedBytes()).isEqualTo(15L << 16);
            assertThat(e.significant()).isFalse();
        });
    }

    @Test
    void onlyTheChangingPartsOfHiddenClassNamesAreLeftOut() {
        // JDK 17 through JVMTI, JDK 21+ through JVMTI and through Class.getName, a frame of a lambda's method
        assertThat(DiffBuilder.withoutHiddenAddresses("a.B$$Lambda$84.0x00007fd4780b4498")).isEqualTo("a.B$$Lambda");
        assertThat(DiffBuilder.withoutHiddenAddresses("a.B$$Lambda.0x0000000801001234")).isEqualTo("a.B$$Lambda");
        assertThat(DiffBuilder.withoutHiddenAddresses("a.B$$Lambda/0x0000000801001234")).isEqualTo("a.B$$Lambda");
        assertThat(DiffBuilder.withoutHiddenAddresses("a.B$$Lambda$7/0x0000000800c0b448.run(Unknown Source)"))
                .isEqualTo("a.B$$Lambda.run(Unknown Source)");
        assertThat(DiffBuilder.withoutHiddenAddresses("java.lang.invoke.LambdaForm$MH/0x0000000800c0c000"))
                .isEqualTo("java.lang.invoke.LambdaForm$MH");
        // names without a hidden class, and native libraries' offsets, stay as they are
        assertThat(DiffBuilder.withoutHiddenAddresses("a.B$1.run(B.java:12)")).isEqualTo("a.B$1.run(B.java:12)");
        assertThat(DiffBuilder.withoutHiddenAddresses("libzstd.so+0x1a2b3c")).isEqualTo("libzstd.so+0x1a2b3c");
        assertThat(DiffBuilder.withoutHiddenAddresses("a.B$$Lambda$3")).isEqualTo("a.B$$Lambda");
    }
}
