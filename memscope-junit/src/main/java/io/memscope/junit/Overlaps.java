package io.memscope.junit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tells whether other measured tests ran during a test's window (parallel execution), which decides what can be
 * attributed to the test beyond its own thread. One per JVM: the question is about the JVM's threads.
 */
final class Overlaps {
    private static final AtomicInteger IN_FLIGHT = new AtomicInteger();
    private static final AtomicLong STARTED = new AtomicLong();

    private final long startedAtOpen;
    private boolean overlapped;
    private boolean closed;

    private Overlaps(long startedAtOpen, boolean overlapped) {
        this.startedAtOpen = startedAtOpen;
        this.overlapped = overlapped;
    }

    /** Opens a window: overlapped already when another window is open. */
    static Overlaps open() {
        boolean others = IN_FLIGHT.getAndIncrement() > 0;
        return new Overlaps(STARTED.incrementAndGet(), others);
    }

    /** @return whether another window was open at some moment of this one so far */
    boolean overlapped() {
        return overlapped || IN_FLIGHT.get() > (closed ? 0 : 1) || STARTED.get() != startedAtOpen;
    }

    /** Closes the window (once). */
    void close() {
        if (!closed) {
            overlapped = overlapped();
            closed = true;
            IN_FLIGHT.decrementAndGet();
        }
    }
}
