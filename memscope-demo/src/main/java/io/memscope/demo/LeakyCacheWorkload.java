package io.memscope.demo;

import java.util.HashMap;
import java.util.Map;

/**
 * A cache that grows forever: every request stores its response under a new key and nothing is ever evicted.
 * Its live bytes keep growing; memscope must name {@link #run()}'s {@code new byte[]} as a leak suspect.
 */
public final class LeakyCacheWorkload implements DemoMain.Workload {
    /** Never cleared: the leak. */
    static final Map<Integer, byte[]> CACHE = new HashMap<>();

    @Override
    public String name() {
        return "leaky-cache";
    }

    @Override
    public String description() {
        return "a response cache that is never evicted (a leak)";
    }

    @Override
    public void run() throws InterruptedException {
        for (int request = 0; request < 60_000; request++) {
            byte[] response = new byte[1024]; // the leaking allocation
            response[0] = (byte) request;
            CACHE.put(request, response);
            if (request % 4_000 == 0) {
                Thread.sleep(40); // requests arrive over time
            }
        }
        System.out.println("demo: leaky-cache holds " + CACHE.size() + " responses");
    }
}
