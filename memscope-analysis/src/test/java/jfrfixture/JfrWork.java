package jfrfixture;

import java.util.ArrayList;
import java.util.List;

/**
 * Allocations for JfrSourceTest, outside {@code io.memscope} (whose classes the site rule passes over as memscope's
 * own): a churn of short-lived arrays and arrays kept.
 */
public final class JfrWork {
    public static volatile Object sink;
    public static final List<byte[]> KEPT = new ArrayList<>();

    private JfrWork() {
    }

    public static void churn() {
        for (int i = 0; i < 400_000; i++) {
            sink = new long[128];
        }
    }

    public static void keep() {
        for (int i = 0; i < 2000; i++) {
            KEPT.add(new byte[8192]);
        }
    }
}
