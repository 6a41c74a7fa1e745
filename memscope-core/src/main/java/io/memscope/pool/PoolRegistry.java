package io.memscope.pool;

import io.memscope.internal.link.AgentLink;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A set of named pool trackers: the same name gives the same {@link PoolTracker}, at most
 * {@link PoolTracker#MAX_POOLS} of them. {@link PoolTracker#of} and {@link PoolTracker#all} use the process-wide
 * registry ({@link #process()}), whose trackers are linked to the memscope agent (borrows and returns recorded,
 * leases lost while borrowed reported at the end of a capture). Any other registry is an ordinary object: its
 * trackers are not linked, and it shares nothing with another registry.
 */
final class PoolRegistry {
    /**
     * The process-wide registry behind {@link PoolTracker#of}: static because every library in the JVM that names
     * pool "db" must find the same tracker, and the agent asks this registry (through {@link AgentLink}) for leaks.
     */
    private static final PoolRegistry PROCESS = new PoolRegistry(true);

    static {
        // At the end of an agent's capture (after its full GC), leases lost while borrowed are reported.
        AgentLink.atCaptureEnd(PROCESS::pollAll);
    }

    private final Map<String, PoolTracker> pools = new ConcurrentHashMap<>();
    private final boolean linked;

    /** @param linked whether this registry's trackers record to the memscope agent when one captures */
    PoolRegistry(boolean linked) {
        this.linked = linked;
    }

    static PoolRegistry process() {
        return PROCESS;
    }

    /** @return the tracker named {@code name}, created on first use */
    PoolTracker of(String name) {
        PoolText.validate(name);
        PoolTracker p = pools.get(name);
        if (p != null) {
            return p;
        }
        synchronized (pools) {
            p = pools.get(name);
            if (p == null) {
                if (pools.size() >= PoolTracker.MAX_POOLS) {
                    throw PoolText.tooManyPools(name, PoolTracker.MAX_POOLS);
                }
                p = new PoolTracker(name, linked);
                pools.put(name, p);
            }
            return p;
        }
    }

    /** @return every tracker of this registry, by name */
    List<PoolTracker> all() {
        return pools.values().stream().sorted((a, b) -> a.name().compareTo(b.name())).collect(Collectors.toList());
    }

    /** Takes the leases the collector cleared, in every tracker of this registry. */
    void pollAll() {
        long now = System.nanoTime();
        for (PoolTracker p : pools.values()) {
            p.poll(now);
        }
    }
}
