package com.example.catalog;

import java.util.concurrent.CountDownLatch;

/** Makes CatalogTest and NeighbourTest (parallel classes) overlap for sure. */
final class Rendezvous {
    static final CountDownLatch CATALOG_RUNNING = new CountDownLatch(1);
    static final CountDownLatch NEIGHBOUR_DONE = new CountDownLatch(1);

    private Rendezvous() {
    }
}
