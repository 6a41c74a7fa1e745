package io.memscope.events;

import io.memscope.internal.error.Failures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One writer of a runtime-events file {@code <dir>/<pid>.events}: its file, its threads' ring writers, the slots
 * they own, the reaper thread that frees the slots of ended threads, the names it has registered, and the shutdown
 * hook that stops it at JVM exit. Every handle ({@link Span}, {@link Counter}, {@link Lifecycle},
 * {@link UserEvent}) belongs to the producer that made it and writes only to its file. Can be started, stopped and
 * started again.
 *
 * <p>{@link RuntimeEvents} is the static facade over the process-wide producer, the one that writes the file
 * outside tools look for and that claims the JVM against other copies of memscope-core (see
 * {@code ProducerClaim}). Other producers are ordinary objects: each needs a directory of its own (settings), as
 * two producers never write one file; they share nothing with each other or with the process-wide one.
 */
public final class EventsProducer {
    /**
     * The files being written by a producer of this copy of memscope-core: a second producer asked to write a file
     * that another one writes refuses (the file system is shared, so this set is too).
     */
    private static final Set<Path> WRITING = ConcurrentHashMap.newKeySet();

    /** True while this producer writes: the one volatile read of every handle's write. */
    volatile boolean enabled;
    private volatile EventsFile file;
    private final boolean claimsJvm;
    private final ThreadLocal<RingWriter> writers = new ThreadLocal<>();
    private final List<Owned> owned = new CopyOnWriteArrayList<>();
    private final List<Runnable> beforeStop = new CopyOnWriteArrayList<>();
    final NameRegistry names = new NameRegistry(this);
    private Thread reaper;
    private final Object reapLock = new Object();
    private Thread hook;

    /** A producer of its own, stopped; give it a directory of its own with {@link #start(EventsSettings)}. */
    public EventsProducer() {
        this(false);
    }

    /** @param claimsJvm whether starting claims the JVM's events file against other copies of memscope-core */
    EventsProducer(boolean claimsJvm) {
        this.claimsJvm = claimsJvm;
    }

    /** Starts with these settings; no-op if already running. @return true if running */
    public synchronized boolean start(EventsSettings settings) {
        if (file != null) {
            return true;
        }
        if (claimsJvm && !ProducerClaim.claim()) {
            return false;
        }
        Path path = settings.directory().resolve(ProcessHandle.current().pid() + ".events").toAbsolutePath();
        if (!WRITING.add(path)) {
            release(null);
            Failures.report("events.start", io.memscope.error.MemscopeException.configuration(
                    "runtime events stay off: another producer of this JVM writes " + path));
            return false;
        }
        try {
            EventsFile f = EventsFile.create(settings, ProcessHandle.current().pid(), names.all());
            file = f;
            enabled = true;
            reaper = new Thread(this::reap, "memscope-events-reaper");
            reaper.setDaemon(true);
            reaper.start();
            if (hook == null) {
                hook = new Thread(this::stopAtExit, "memscope-events-shutdown");
                Runtime.getRuntime().addShutdownHook(hook);
            }
            return true;
        } catch (RuntimeException e) {
            release(path);
            Failures.report("events.start", e);
            return false;
        }
    }

    private void release(Path path) {
        if (path != null) {
            WRITING.remove(path);
        }
        if (claimsJvm) {
            ProducerClaim.release();
        }
    }

    private void stopAtExit() {
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
    public void stop() {
        for (Runnable r : beforeStop) {
            try {
                r.run();
            } catch (Throwable t) {
                Failures.report("events.beforeStop", t);
            }
        }
        synchronized (this) {
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
            owned.clear();
            try {
                f.markClosed();
                if (!f.settings.preserve()) {
                    Files.deleteIfExists(f.path);
                }
            } catch (Throwable t) {
                Failures.report("events.stop", t);
            }
            release(f.path.toAbsolutePath());
            if (!claimsJvm && hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook); // a producer of its own leaves nothing behind
                    hook = null;
                } catch (IllegalStateException shuttingDown) {
                    // the JVM exits: the hook runs (and finds the producer stopped)
                }
            }
        }
    }

    /** Runs {@code action} at the start of {@link #stop()} (also at JVM exit), while writing is still possible. */
    public void beforeStop(Runnable action) {
        beforeStop.add(action);
    }

    /** @return true while events are being written */
    public boolean enabled() {
        return enabled;
    }

    /** @return the ring file while running, else null */
    public Path file() {
        EventsFile f = file;
        return f == null ? null : f.path;
    }

    /** @return a span handle (begin/end) writing to this producer, registering its name if new */
    public Span span(String name) {
        return new Span(this, names.event(RingLayout.EVENT_SPAN, name, 0).id, name);
    }

    /** @return a counter handle writing to this producer, registering its name if new */
    public Counter counter(String name) {
        return new Counter(this, names.event(RingLayout.EVENT_COUNTER, name, 0).id, name);
    }

    /** @return a lifecycle event handle writing to this producer, registering its name if new */
    public Lifecycle lifecycle(String name) {
        return new Lifecycle(this, names.event(RingLayout.EVENT_LIFECYCLE, name, 0).id, name);
    }

    /** Registers a named custom event with a payload type; the names are stored in the file for outside readers. */
    public <T> UserEvent<T> register(String name, EventType<T> type) {
        names.type(type);
        return new UserEvent<>(this, names.event(RingLayout.EVENT_CUSTOM, name, type.id()).id, name, type);
    }

    void published(NameRegistry.Entry e) {
        EventsFile f = file;
        if (f != null) {
            f.append(e);
        }
    }

    /** @return this thread's writer for the current file, claiming a slot if needed; null if none is free */
    RingWriter writer() {
        RingWriter w = writers.get();
        EventsFile f = file;
        if (w != null && w.file == f) {
            return w;
        }
        if (f == null) {
            return null;
        }
        return claim(f);
    }

    private RingWriter claim(EventsFile f) {
        Thread t = Thread.currentThread();
        RingWriter w = f.claim(t);
        if (w == null) {
            f.countDropped();
            return null;
        }
        writers.set(w);
        owned.add(new Owned(t, w));
        return w;
    }

    void write(int kind, int id, long timestamp) {
        RingWriter w = writer();
        if (w != null) {
            w.write(kind, id, timestamp);
        }
    }

    void write(int kind, int id, long timestamp, long value) {
        RingWriter w = writer();
        if (w != null) {
            w.write(kind, id, timestamp, value);
        }
    }

    /** Retires the slots of ended threads and frees slots whose grace period passed, every 100 ms. */
    private void reap() {
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

    /**
     * Retires the slots of ended threads and frees expired ones. One caller at a time, and a slot is retired only
     * by the caller that removed its owner from the list: the background reaper, a direct call and the reaper of
     * an earlier start that is still finishing must not retire one thread's slot twice.
     */
    void reapOnce() {
        synchronized (reapLock) {
            reapOnce(file);
        }
    }

    private void reapOnce(EventsFile f) {
        if (f == null) {
            return;
        }
        List<Owned> dead = new ArrayList<>();
        for (Iterator<Owned> it = owned.iterator(); it.hasNext(); ) {
            Owned o = it.next();
            Thread t = o.thread.get();
            if (t == null || !t.isAlive()) {
                dead.add(o);
            }
        }
        for (Owned o : dead) {
            if (owned.remove(o) && o.writer.file == f) {
                f.retire(o.writer);
            }
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
