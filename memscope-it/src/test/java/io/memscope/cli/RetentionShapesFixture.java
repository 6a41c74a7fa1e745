package io.memscope.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * A JVM that holds buffers through the JDK's linked structures and through roots other than static fields, for the
 * paths-from-GC-roots tests (RetentionShapesTest): a static LinkedList, a static TreeMap, maps nested three deep
 * under a static map, a list held only by a JNI global reference (when the system property
 * {@code memscope.test.jni} names the test's JNI library), records holding one buffer in two fields, and a list
 * held only by a local variable of a thread's
 * frame (thread {@code holder}, method {@code hold}). Each grows for {@code args[0]} ms while garbage churns. With
 * {@code args[1]} = N, a static LinkedList of N small Integers is built first (a heap with many objects, for the
 * walk's budgets). With {@code args[2] = full}, instead: a static LinkedList of N arrays of 256 bytes, then live
 * arrays until the heap is 85% full, then only garbage for {@code args[0]} ms (a walk whose answer must fit in a
 * small Java heap).
 */
public final class RetentionShapesFixture {
    static final LinkedList<byte[]> QUEUE = new LinkedList<>();
    static final TreeMap<Integer, byte[]> INDEX = new TreeMap<>();
    static final Map<String, Map<String, Map<String, byte[]>>> TENANTS = new HashMap<>();
    static final LinkedList<Integer> MANY = new LinkedList<>();
    /** Two fields holding the same buffer: a path through either is a path through both. */
    record Twin(byte[] first, byte[] second) {
    }

    static final List<Twin> TWINS = new ArrayList<>();
    static final LinkedList<byte[]> CHAIN = new LinkedList<>();
    static final List<byte[]> BALLAST = new ArrayList<>();
    static final int BUFFER = 32 * 1024;

    static volatile Object sink;
    static volatile boolean running = true;

    /** Keeps its argument alive through a JNI global reference (the test's library). */
    static native void holdGlobal(Object o);

    /** @return the object held by the JNI global reference */
    static native Object global();

    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        int many = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        if (args.length > 2 && args[2].equals("full")) {
            full(millis, many);
            return;
        }
        for (int i = 0; i < many; i++) {
            MANY.add(i);
        }
        String jni = System.getProperty("memscope.test.jni");
        if (jni != null) {
            System.load(jni);
            holdGlobal(new ArrayList<byte[]>());
        }
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        Thread holder = new Thread(() -> hold(started, never), "holder");
        holder.setDaemon(true);
        holder.start();
        started.await();
        long end = System.nanoTime() + millis * 1_000_000L;
        int round = 0;
        while (System.nanoTime() < end) {
            QUEUE.add(new byte[BUFFER]); // QUEUE_BUFFER
            INDEX.put(round * 7919 % 100_003, new byte[BUFFER]); // INDEX_BUFFER
            byte[] doc = new byte[BUFFER]; // TENANT_BUFFER
            TENANTS.computeIfAbsent("tenant" + round % 5, k -> new HashMap<>())
                    .computeIfAbsent("user" + round % 3, k -> new HashMap<>()).put("doc" + round, doc);
            if (jni != null) {
                jniStore();
            }
            byte[] twin = new byte[BUFFER]; // TWIN_BUFFER
            TWINS.add(new Twin(twin, twin));
            round++;
            for (int i = 0; i < 100; i++) {
                sink = new byte[4096]; // churn: young collections
            }
            Thread.sleep(2);
        }
        running = false;
        System.out.println("rounds " + round);
        System.exit(0); // the holder still waits in hold(), its list on its stack, at the capture's end
    }

    private static void full(long millis, int links) throws InterruptedException {
        for (int i = 0; i < links; i++) {
            CHAIN.add(new byte[256]); // CHAIN_LINK
        }
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long used = rt.totalMemory() - rt.freeMemory();
        for (long b = used; b < rt.maxMemory() * 85 / 100; b += 64 << 10) {
            BALLAST.add(new byte[64 << 10]); // small enough never to be a humongous object of G1
        }
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 20; i++) {
                sink = new byte[4096];
            }
            Thread.sleep(2);
        }
        System.out.println("links " + CHAIN.size() + ", ballast " + BALLAST.size() / 16 + " MiB");
        System.exit(0);
    }

    @SuppressWarnings("unchecked")
    private static void jniStore() {
        ((List<byte[]>) global()).add(new byte[BUFFER]); // JNI_BUFFER
    }

    /** Keeps buffers in a local variable only, adds one a few times a millisecond while the main loop runs. */
    private static void hold(CountDownLatch started, CountDownLatch never) {
        List<byte[]> kept = new ArrayList<>();
        started.countDown();
        while (running) {
            kept.add(new byte[BUFFER]); // HOLDER_BUFFER
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
        try {
            never.await(); // HOLDER_WAIT
        } catch (InterruptedException e) {
            // the JVM exits
        }
        System.out.println("kept " + kept.size());
    }
}
