package io.memscope.agent.capture;

import java.util.Map;

/**
 * What the malloc hooks' stack ids stand for (src/main/native/malloc_hooks.c, "Stacks by id"), for one capture: the
 * hooks send a stack's frames once, with an id, and afterwards only the id; the drain thread resolves the frames
 * once ({@link #define}) and from then on turns an id into its recorded stack and site with two array loads. Also
 * the estimate of outstanding bytes per id, for the push.
 *
 * <p>Ids are 1 to {@value #CAPACITY} (the hooks' table size); 0 is "no id". An id is defined before any record naming
 * it is drained: the hooks publish the record with the frames before they hand the id out. Written by the drain
 * thread; {@link #outstandingInto} is read by the push thread, under this object's lock, as is every change to the
 * estimates.
 */
final class MallocStackIds {
    /** The hooks' table of stacks: STACK_SLOTS in malloc_hooks.c. */
    static final int CAPACITY = 1 << 16;
    private static final byte UNKNOWN = 0;
    private static final byte RECORDED = 1;
    private static final byte OWN = 2;

    private final byte[] state = new byte[CAPACITY + 1];
    private final long[] stacks = new long[CAPACITY + 1];
    private final int[] sites = new int[CAPACITY + 1];
    private final long[] outstanding = new long[CAPACITY + 1];
    private int defined;

    /** Id now stands for a recorded stack and site. */
    void define(int id, long stack, int site) {
        if (id > 0 && id <= CAPACITY) {
            stacks[id] = stack;
            sites[id] = site;
            if (state[id] == UNKNOWN) {
                defined++;
            }
            state[id] = RECORDED;
        }
    }

    /** Id now stands for a stack of memscope's own (never recorded). */
    void defineOwn(int id) {
        if (id > 0 && id <= CAPACITY) {
            if (state[id] == UNKNOWN) {
                defined++;
            }
            state[id] = OWN;
        }
    }

    /** @return whether id stands for a recorded stack */
    boolean recorded(int id) {
        return id > 0 && id <= CAPACITY && state[id] == RECORDED;
    }

    /** @return whether id stands for a stack of memscope's own */
    boolean own(int id) {
        return id > 0 && id <= CAPACITY && state[id] == OWN;
    }

    long stack(int id) {
        return stacks[id];
    }

    int site(int id) {
        return sites[id];
    }

    /** @return the ids defined so far */
    int defined() {
        return defined;
    }

    /** Adds bytes (negative: a free) to the outstanding estimate of a recorded id. */
    synchronized void outstanding(int id, long bytes) {
        outstanding[id] += bytes;
    }

    /**
     * Adds the outstanding estimate of every recorded id into a map keyed by (stack, site) key, value {bytes, site,
     * stack}, as the sampler keeps those of samples without id.
     */
    synchronized void outstandingInto(Map<Long, long[]> into, KeyOf key) {
        for (int id = 1; id <= CAPACITY; id++) {
            if (state[id] == RECORDED && outstanding[id] > 0) {
                long k = key.of(stacks[id], sites[id]);
                long[] t = into.get(k);
                if (t == null) {
                    t = new long[] {0, sites[id], stacks[id]};
                    into.put(k, t);
                }
                t[0] += outstanding[id];
            }
        }
    }

    /** The key of a (stack, site) pair. */
    interface KeyOf {
        long of(long stack, int site);
    }
}
