package com.example.forks.render;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

class PageTest {
    @Test
    void rendersPagesKeepingTheLastFew() {
        ArrayDeque<String> recent = new ArrayDeque<>();
        long chars = 0;
        for (int i = 0; i < 3_000; i++) {
            String page = Page.table(200 + i % 300);
            chars += page.length();
            recent.addLast(page);
            if (recent.size() > 50) {
                recent.removeFirst();
            }
            if (i % 1_000 == 999) {
                System.gc();
            }
        }
        assertTrue(chars > 10_000_000L);
    }
}
