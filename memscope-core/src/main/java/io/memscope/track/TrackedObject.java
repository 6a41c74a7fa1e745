package io.memscope.track;

/**
 * One object the application named with {@code Memscope.track(name, object)} (memscope-rs's {@code track_var}).
 *
 * @param name             the name the application gave (a variable, a cache, ...)
 * @param type             the object's class, as {@link Class#getTypeName()} ({@code byte[]}, {@code java.util.HashMap})
 * @param shallowBytes     the object's own size, header and fields, not what it refers to
 * @param sizeExact        false when {@code shallowBytes} is an estimate (instances measured without the agent)
 * @param trackedAtNanos   {@link System#nanoTime()} when it was tracked (taken as its allocation)
 * @param collectedAtNanos when memscope saw it collected, -1 while it is alive: the first look after the garbage
 *                         collector cleared it (any call of the tracker)
 * @param threadId         the thread that tracked it
 * @param threadName       that thread's name
 */
public record TrackedObject(String name, String type, long shallowBytes, boolean sizeExact, long trackedAtNanos,
                            long collectedAtNanos, long threadId, String threadName) {

    /** @return true while the object has not been seen collected */
    public boolean alive() {
        return collectedAtNanos < 0;
    }

    /** @return nanoseconds from tracking to collection, or to {@code nowNanos} while alive */
    public long ageNanos(long nowNanos) {
        return (alive() ? nowNanos : collectedAtNanos) - trackedAtNanos;
    }
}
