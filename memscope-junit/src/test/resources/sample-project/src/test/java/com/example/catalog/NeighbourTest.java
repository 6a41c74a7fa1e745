package com.example.catalog;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.memscope.junit.MaxAllocation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Runs in parallel with CatalogTest, and leaks and allocates a lot while one of its tests runs. */
class NeighbourTest {
    static final List<byte[]> KEPT = new ArrayList<>();
    static volatile Object sink;

    static void leak(int megabytes) {
        for (int i = 0; i < megabytes * 4; i++) {
            synchronized (KEPT) {
                KEPT.add(new byte[256 * 1024]);
            }
        }
    }

    @Test
    @MaxAllocation("1GB")
    void leaksAndAllocatesWhileCatalogRuns() throws InterruptedException {
        assertTrue(Rendezvous.CATALOG_RUNNING.await(60, TimeUnit.SECONDS));
        try {
            leak(8);
            for (int i = 0; i < 512; i++) {
                sink = new byte[64 * 1024];
            }
            Thread t = new Thread(() -> leak(8), "neighbour-worker");
            t.start();
            t.join();
        } finally {
            Rendezvous.NEIGHBOUR_DONE.countDown();
        }
    }
}
