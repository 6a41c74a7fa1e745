package io.memscope.events;

import io.memscope.internal.error.Failures;

import java.nio.file.Path;

/**
 * Runtime events of this JVM, written to per-thread rings in the memory-mapped file {@code <dir>/<pid>.events}
 * (after OCaml's runtime events). Start with {@link #start()} (settings from the environment, see
 * {@link EventsSettings}) and write through handles: {@link #span(String)}, {@link #counter(String)},
 * {@link #lifecycle(String)} and custom events {@link #register(String, EventType)}.
 *
 * <p>Costs: when stopped every write is one volatile read and one branch and allocates nothing. When started, a
 * write is a thread-local lookup plus a few plain stores into the thread's ring and one store-release; the first
 * write of a thread claims a ring slot. Threads beyond the slot count lose their events (counted in the file
 * header). Nothing here throws into the application: failures go to {@link Failures}.
 *
 * <p>One copy of memscope-core writes a JVM's events file: when two are loaded (two class loaders, maybe two
 * versions), the one started first owns it and {@link #start} of the other returns false with one line on stderr
 * naming the owner (see {@code ProducerClaim}).
 *
 * <p>The file is deleted at normal JVM exit unless {@code MEMSCOPE_EVENTS_PRESERVE=1}; after {@code kill -9} it
 * stays and remains readable by {@link EventCursor}.
 *
 * <p>This class is a static facade over the process-wide {@link EventsProducer}: static because handles are
 * typically {@code static final} fields of application classes, created before anything starts, and outside
 * tools find this JVM's file by its pid. Code that wants a producer of its own (a test, a second file) creates
 * an {@link EventsProducer}.
 */
public final class RuntimeEvents {
    /** The process-wide producer; the one that claims the JVM against other copies of memscope-core. */
    private static final EventsProducer PROCESS = new EventsProducer(true);

    private RuntimeEvents() {
    }

    /** @return the process-wide producer this facade delegates to */
    public static EventsProducer producer() {
        return PROCESS;
    }

    /** Starts with settings from the environment. @return true if running (also if it already was) */
    public static boolean start() {
        try {
            return start(EventsSettings.fromEnvironment());
        } catch (RuntimeException e) {
            Failures.report("events.start", e);
            return false;
        }
    }

    /** Starts with these settings; no-op if already running. @return true if running */
    public static boolean start(EventsSettings settings) {
        return PROCESS.start(settings);
    }

    /**
     * Stops writing: runs the registered stop actions (the JVM bridge flushes), marks the file closed and deletes
     * it unless the settings preserve it.
     */
    public static void stop() {
        PROCESS.stop();
    }

    /** Runs {@code action} at the start of {@link #stop()} (also at JVM exit), while writing is still possible. */
    public static void beforeStop(Runnable action) {
        PROCESS.beforeStop(action);
    }

    /** @return true while events are being written */
    public static boolean enabled() {
        return PROCESS.enabled;
    }

    /** @return the ring file while running, else null */
    public static Path file() {
        return PROCESS.file();
    }

    /** @return the monotonic clock used for timestamps, in ns ({@link System#nanoTime()}) */
    public static long now() {
        return System.nanoTime();
    }

    /** @return a span handle (begin/end), registering its name if new */
    public static Span span(String name) {
        return PROCESS.span(name);
    }

    /** @return a counter handle, registering its name if new */
    public static Counter counter(String name) {
        return PROCESS.counter(name);
    }

    /** @return a lifecycle event handle, registering its name if new */
    public static Lifecycle lifecycle(String name) {
        return PROCESS.lifecycle(name);
    }

    /** Registers a named custom event with a payload type; the name is stored in the file for outside readers. */
    public static <T> UserEvent<T> register(String name, EventType<T> type) {
        return PROCESS.register(name, type);
    }

    /** Reaps the process-wide producer's slots now (tests). */
    static void reapOnce() {
        PROCESS.reapOnce();
    }
}
