package com.example.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.memscope.junit.MaxAllocation;
import io.memscope.junit.MaxNativeMemory;
import io.memscope.junit.NoLeaks;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CatalogTest {

    @Test
    @NoLeaks
    void listenersDoNotLeak() {
        Catalog c = new Catalog();
        for (int i = 0; i < 32; i++) {
            c.onChange(() -> { });
        }
    }

    @Test
    @MaxAllocation("2MB")
    void renderingIsCheap() {
        Catalog c = new Catalog();
        for (int i = 0; i < 2000; i++) {
            c.add("p" + i, "product number " + i);
        }
        assertTrue(c.render().length() > 0);
    }

    @Test
    @NoLeaks
    @MaxAllocation("16MB")
    void addingProductsKeepsNothingBehind() throws InterruptedException {
        Catalog c = new Catalog();
        for (int i = 0; i < 1000; i++) {
            c.add("p" + i, "product " + i);
        }
        assertEquals(1000, c.size());
        // NeighbourTest leaks and allocates on other threads while this test runs: none of it is this test's
        Rendezvous.CATALOG_RUNNING.countDown();
        assertTrue(Rendezvous.NEIGHBOUR_DONE.await(60, TimeUnit.SECONDS));
    }

    @Test
    @MaxNativeMemory("1MB")
    void directBuffersAreReleased() {
        ByteBuffer b = ByteBuffer.allocateDirect(4 << 20);
        b.putInt(0, 42);
        assertEquals(42, b.getInt(0));
    }
}
