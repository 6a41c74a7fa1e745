package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What a page weighs besides its data: the skeleton, the styles, the inlined scripts and the licences. A small run's
 * page (the demo's: {@code memscope run --demo}, whose page data is about 61 KB) stays within 250 KB; a diff page
 * inlines less than a report page (no uPlot, no report sections).
 */
class PageSizeTest {
    /** The page data of {@code memscope run --demo} (measured 2026-11-27: 60,668 bytes), rounded up. */
    static final int DEMO_DATA_BYTES = 64 * 1024;
    static final int SMALL_PAGE_LIMIT = 250 * 1024;

    @Test
    void aSmallRunsPageIsAtMost250KB() {
        String data = PageFixture.shop().json();
        String page = new PageTemplate().render(data);
        int overhead = bytes(page) - bytes(PageTemplate.scriptJson(data));
        assertThat(overhead + DEMO_DATA_BYTES).as("a demo-size page: %d B besides its data", overhead)
                .isLessThanOrEqualTo(SMALL_PAGE_LIMIT);
        assertThat(bytes(page)).as("the fixture's page, %d B of data", bytes(data))
                .isLessThanOrEqualTo(SMALL_PAGE_LIMIT);
    }

    @Test
    void aDiffPageCarriesLessThanAReportPage() {
        String report = PageFixture.shop().json();
        String diff = PageFixture.diffJson();
        int reportOverhead = bytes(new PageTemplate().render(report)) - bytes(PageTemplate.scriptJson(report));
        int diffOverhead = bytes(new PageTemplate().render(diff)) - bytes(PageTemplate.scriptJson(diff));
        assertThat(diffOverhead).isLessThan(reportOverhead - 40 * 1024); // uPlot alone is about 50 KB
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
