package io.memscope.events;

import io.memscope.internal.error.Failures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
 */
public final class RuntimeEvents {
    static volatile boolean enabled;
    private static volatile EventsFile file;
    private static final ThreadLocal<RingWriter> WRITER = new ThreadLocal<>();
    private static final List<Owned> OWNED = new CopyOnWriteArrayList<>();
    private static final List<Runnable> BEFORE_STOP = new CopyOnWriteArrayList<>();
    private static Thread reaper;
    private static Thread hook;

    private RuntimeEvents() {
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
    public static synchronized boolean start(EventsSettings settings) {
        if (file != null) {
            return true;
        }
        if (!ProducerClaim.claim()) {
            return false;
        }
        try {
            EventsFile f = EventsFile.create(settings, ProcessHandle.current().pid());
            file = f;
            enabled = true;
            reaper = new Thread(RuntimeEvents::reap, "memscope-events-reaper");
            reaper.setDaemon(true);
            reaper.start();
            if (hook == null) {
                hook = new Thread(RuntimeEvents::stopAtExit, "memscope-events-shutdown");
                Runtime.getRuntime().addShutdownHook(hook);
            }
            return true;
        } catch (RuntimeException e) {
            ProducerClaim.release();
            Failures.report("events.start", e);
            return false;
        }
    }

    private static void stopAtExit() {
        try {
            stop();
        } catch (Throwable t) {
            Failures.report("events.shutdown", t);
        }
    }

    /**
     * Stops writing: runs the registered stop actions (the JVM bridge flushes), marks the file closed and deletes
     * it unless the settings preserve it.
     */
    public static void stop() {
        for (Runnable r : BEFORE_STOP) {
            try {
                r.run();
            } catch (Throwable t) {
                Failures.report("events.beforeStop", t);
            }
        }
        synchronized (RuntimeEvents.class) {
            EventsFile f = file;
            if (f == null) {
                return;
            }
            enabled = false;
            file = null;
            if (reaper != null) {
                reaper.interrupt();
                reaper = null;
            }
            OWNED.clear();
            try {
                f.markClosed();
                if (!f.settings.preserve()) {
                    Files.deleteIfExists(f.path);
                }
            } catch (Throwable t) {
                Failures.report("events.stop", t);
            }
            ProducerClaim.release();
        }
    }

    /** Runs {@code action} at the start of {@link #stop()} (also at JVM exit), while writing is still possible. */
    public static void beforeStop(Runnable action) {
        BEFORE_STOP.add(action);
    }

    /** @return true while events are being written */
    public static boolean enabled() {
        return enabled;
    }

    /** @return the ring file while running, else null */
    public static Path file() {
        EventsFile f = file;
        return f == null ? null : f.path;
    }

    /** @return the monotonic clock used for timestamps, in ns ({@link System#nanoTime()}) */
    public static long now() {
        return System.nanoTime();
    }

    /** @return a span handle (begin/end), registering its name if new */
    public static Span span(String name) {
        return new Span(NameRegistry.event(RingLayout.EVENT_SPAN, name, 0).id, name);
    }

    /** @return a counter handle, registering its name if new */
    public static Counter counter(String name) {
        return new Counter(NameRegistry.event(RingLayout.EVENT_COUNTER, name, 0).id, name);
    }

    /** @return a lifecycle event handle, registering its name if new */
    public static Lifecycle lifecycle(String name) {
        return new Lifecycle(NameRegistry.event(RingLayout.EVENT_LIFECYCLE, name, 0).id, name);
    }

    /** Registers a named custom event with a payload type; the name is stored in the file for outside readers. */
    public static <T> UserEvent<T> register(String name, EventType<T> type) {
        return new UserEvent<>(NameRegistry.event(RingLayout.EVENT_CUSTOM, name, type.id()).id, name, type);
    }

    static void published(NameRegistry.Entry e) {
        EventsFile f = file;
        if (f != null) {
            f.append(e);
        }
    }

    /** @return this thread's writer for the current file, claiming a slot if needed; null if none is free */
    static RingWriter writer() {
        RingWriter w = WRITER.get();
        EventsFile f = file;
        if (w != null && w.file == f) {
            return w;
        }
        if (f == null) {
            return null;
        }
        return claim(f);
    }

    private static RingWriter claim(EventsFile f) {
        Thread t = Thread.currentThread();
        RingWriter w = f.claim(t);
        if (w == null) {
            f.countDropped();
            return null;
        }
        WRITER.set(w);
        OWNED.add(new Owned(t, w));
        return w;
    }

    static void write(int kind, int id, long timestamp) {
        RingWriter w = writer();
        if (w != null) {
            w.write(kind, id, timestamp);
        }
    }

    static void write(int kind, int id, long timestamp, long value) {
        RingWriter w = writer();
        if (w != null) {
            w.write(kind, id, timestamp, value);
        }
    }

    /** Retires the slots of ended threads and frees slots whose grace period passed, every 100 ms. */
    private static void reap() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            try {
                reapOnce();
            } catch (Throwable t) {
                Failures.report("events.reaper", t);
            }
        }
    }

    static void reapOnce() {
        EventsFile f = file;
        if (f == null) {
            return;
        }
        List<Owned> dead = new ArrayList<>();
        for (Iterator<Owned> it = OWNED.iterator(); it.hasNext(); ) {
            Owned o = it.next();
            Thread t = o.thread.get();
            if (t == null || !t.isAlive()) {
                dead.add(o);
            }
        }
        for (Owned o : dead) {
            if (o.writer.file == f) {
                f.retire(o.writer.slot);
            }
            OWNED.remove(o);
        }
        f.freeExpired(f.settings.graceMillis() * 1_000_000L);
    }

    /** A slot and the thread that owns it, held weakly so that tracking never keeps a thread alive. */
    private static final class Owned {
        final java.lang.ref.WeakReference<Thread> thread;
        final RingWriter writer;

        Owned(Thread t, RingWriter w) {
            this.thread = new java.lang.ref.WeakReference<>(t);
            this.writer = w;
        }
    }
}
