package io.memscope.demo;

import java.util.HashMap;
import java.util.Map;

/**
 * A cache that grows forever: every request stores its response under a new key and nothing is ever evicted.
 * Its live bytes keep growing; memscope must name {@link #run()}'s {@code new byte[]} as a leak suspect.
 *
 * <p>Each request also keeps a session among the latest {@value #RECENT_SESSIONS} only: a bounded working set that
 * is not a leak. Its sessions live long enough to reach the old generation and die there, so each of G1's
 * concurrent markings frees some of them: that is what shows memscope that the marking completed (a Remark pause
 * that freed nothing proves nothing), and so what gives the leak's growth its whole-heap reference points. The
 * sessions are as large as the responses (8 MiB kept, 60 MiB churned) so that enough sampled ones die between two
 * markings: with half of that, a marking now and then freed no sampled session and counted for nothing.
 */
public final class LeakyCacheWorkload implements DemoMain.Workload {
    /** Never cleared: the leak. */
    static final Map<Integer, byte[]> CACHE = new HashMap<>();
    /** How many of the latest requests keep their session. */
    static final int RECENT_SESSIONS = 8_192;
    /** The latest requests' sessions, the oldest replaced by the newest: bounded. */
    static final byte[][] SESSIONS = new byte[RECENT_SESSIONS][];

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
            SESSIONS[request % RECENT_SESSIONS] = new byte[1024]; // a bounded working set: the oldest session dropped
            if (request % 4_000 == 0) {
                Thread.sleep(40); // requests arrive over time
            }
        }
        System.out.println("demo: leaky-cache holds " + CACHE.size() + " responses");
    }
}
