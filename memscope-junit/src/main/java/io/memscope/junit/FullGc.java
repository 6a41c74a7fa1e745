package io.memscope.junit;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A full GC that is known to have happened: {@link System#gc()} until a fresh weakly reachable object is cleared
 * (a JVM with {@code -XX:+DisableExplicitGC} never clears it: the caller says so instead of reporting leaks), then
 * until its reference has been enqueued, which the JVM's Reference Handler thread does, as it runs the Cleaners of
 * unreachable direct buffers.
 */
final class FullGc {
    private FullGc() {
    }

    /** @return whether a full GC cleared weak references */
    static boolean run() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> canary = new WeakReference<>(new Object(), queue);
        for (int i = 0; i < 5 && !canary.refersTo(null); i++) {
            System.gc();
        }
        if (!canary.refersTo(null)) {
            return false;
        }
        try {
            queue.remove(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    /**
     * Waits until {@code reading} is at most {@code limit}, or gives the same value twice in a row 20 ms apart (the
     * Cleaners the GC made due have run), at most one second.
     */
    static long settle(LongSupplier reading, long limit) {
        long previous = reading.getAsLong();
        for (int i = 0; i < 50 && previous > limit; i++) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = reading.getAsLong();
            if (now == previous) {
                return now;
            }
            previous = now;
        }
        return previous;
    }
}
