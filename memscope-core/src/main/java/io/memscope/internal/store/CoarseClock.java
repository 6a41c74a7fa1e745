package io.memscope.internal.store;

import java.util.concurrent.locks.LockSupport;

/** The ticker behind {@link ClockSource#COARSE}: one daemon thread per JVM, started on first use. */
final class CoarseClock {
    static final long TICK_NANOS = 1_000_000L;

    private static volatile long now = System.nanoTime();
    private static volatile boolean started;

    private CoarseClock() {
    }

    static void start() {
        if (started) {
            return;
        }
        synchronized (CoarseClock.class) {
            if (started) {
                return;
            }
            Thread t = new Thread(CoarseClock::tick, "memscope-clock");
            t.setDaemon(true);
            t.start();
            started = true;
        }
    }

    private static void tick() {
        while (true) {
            LockSupport.parkNanos(TICK_NANOS);
            long t = System.nanoTime();
            if (t > now) {
                now = t;
            }
        }
    }

    static long now() {
        return now;
    }
}
