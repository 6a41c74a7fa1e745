package io.memscope.cli;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A JVM that holds memory four ways, for the paths-from-GC-roots tests (RetentionTest): listeners registered on a
 * static event bus and never removed, each capturing a buffer; pages (inner class instances) keeping their
 * documents (outer instances) and the documents' contents; a ThreadLocal buffer on each thread of a pool (bounded:
 * set once per thread at the start); and a plugin class loader held by a static, whose plugin class keeps buffers in
 * a static list. The three leaks grow for {@code args[0]} ms while garbage churns (young collections); with
 * {@code args[1] = wait} it then prints "ready" and waits for a line on stdin (for {@code memscope paths}).
 *
 * <p>Held means reachable, and only a collection that examined the whole heap says what is: a few seconds of young
 * churn in a 512 MiB heap have none. So the fixture asks for a full collection ({@code System.gc()}) at each quarter
 * of its run, while the leaks are held and growing (the leak rule's reference points, as a long-running service's
 * old-generation collections would be), and once more before "ready" (so a running JVM's held figures exist).
 */
public final class RetentionFixture {
    /** A listener of the event bus. */
    interface Listener {
        int onEvent(String event);
    }

    /** Listeners, registered and never removed. */
    static final class EventBus {
        private final List<Listener> listeners = new ArrayList<>();

        void register(Listener l) {
            listeners.add(l);
        }
    }

    static final EventBus BUS = new EventBus();

    /** A document whose pages are inner class instances: each keeps its document alive. */
    static final class Document {
        final byte[] content;

        Document(int size) {
            content = new byte[size]; // DOCUMENT_CONTENT
        }

        Page page(int number) {
            return new Page(number);
        }

        final class Page {
            final int number;

            Page(int number) {
                this.number = number;
            }

            int length() {
                return content.length; // an inner class that uses its outer instance
            }
        }
    }

    static final List<Document.Page> PAGES = new ArrayList<>();

    static final ThreadLocal<byte[]> SCRATCH = new ThreadLocal<>();

    /** A class loader that defines the plugin class itself (child first for that one class). */
    static final class PluginLoader extends ClassLoader {
        PluginLoader() {
            super(RetentionFixture.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(PLUGIN)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] b = in.readAllBytes();
                        c = defineClass(name, b, 0, b.length);
                    } catch (java.io.IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c;
            }
        }
    }

    static final String PLUGIN = "io.memscope.cli.RetentionPlugin";
    static ClassLoader PLUGIN_LOADER;

    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        PLUGIN_LOADER = new PluginLoader();
        Runnable store = plugin();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        for (int i = 0; i < 30; i++) {
            pool.submit(RetentionFixture::scratch);
        }
        long start = System.nanoTime();
        long end = start + millis * 1_000_000L;
        int round = 0;
        int quartersCollected = 0;
        while (System.nanoTime() < end) {
            int quarter = (int) ((System.nanoTime() - start) * 4 / (end - start));
            if (quarter > quartersCollected) { // a whole-heap collection at each quarter, the leaks held
                quartersCollected = quarter;
                System.gc();
            }
            listen();
            paginate(round);
            store.run();
            round++;
            for (int i = 0; i < 200; i++) {
                sink = new byte[4096]; // churn: young collections
            }
            Thread.sleep(2);
        }
        store = null;
        System.out.println("rounds " + round);
        if (args.length > 1 && args[1].equals("wait")) {
            System.gc(); // what is held now, judged: memscope live, top and paths show held figures
            System.out.println("ready");
            System.out.flush();
            System.in.read();
        }
        System.exit(0); // the pool's threads, and their ThreadLocals, still alive at the capture's end
    }

    private static void listen() {
        byte[] buffer = new byte[48 * 1024]; // LISTENER_BUFFER
        BUS.register(event -> buffer.length + event.length());
    }

    private static void paginate(int round) {
        PAGES.add(new Document(48 * 1024).page(round));
    }

    private static void scratch() {
        if (SCRATCH.get() == null) {
            // 4 MiB: eight mean sampling intervals, so each is sampled all but surely (of three 512 KiB buffers, at
            // one interval each, none was sampled in one run of twenty)
            SCRATCH.set(new byte[4 * 1024 * 1024]); // SCRATCH_BUFFER
        }
    }

    /** Loads the plugin class in its own loader and returns its store() as a task (no Class or Method kept here). */
    private static Runnable plugin() throws Exception {
        java.lang.reflect.Method m = PLUGIN_LOADER.loadClass(PLUGIN).getMethod("store");
        return () -> {
            try {
                m.invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
    }
}
