package io.memscope.internal.store;

/**
 * Where {@link EventStore#record} takes its timestamps. Both give {@link System#nanoTime()} nanoseconds, so
 * timestamps from either are comparable and convert to wall-clock time with the store's clock pair.
 *
 * <p>Measured on the reference machine (2 cores, JDK 25, Linux, TSC clock source; see docs/benchmarks.md):
 * {@code System.nanoTime()} costs about 24 ns, which is most of a {@code record()} call. Hence the cheaper
 * option.
 */
public enum ClockSource {
    /** {@link System#nanoTime()} on every event: full precision. The default. */
    NANO_TIME,
    /**
     * The last value a shared daemon thread ({@code memscope-clock}) read from {@link System#nanoTime()}: it
     * reads about every millisecond, so timestamps have about 1 ms resolution (events in the same tick share a
     * timestamp and keep their recording order within a thread) and reading it costs a volatile load (about
     * 1 ns). The thread is started when the first store with this clock is built and runs, parked between ticks,
     * for the life of the JVM.
     */
    COARSE
}
