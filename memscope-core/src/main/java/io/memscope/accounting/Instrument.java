package io.memscope.accounting;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A named kind of memory the application allocates and frees itself, for example {@code memory/cache/entries}.
 * Obtained from {@link MemoryAccounting#instrument(String)} (per-owner) or
 * {@link MemoryAccounting#globalInstrument(String)} (global).
 *
 * <p>A <b>per-owner</b> instrument keeps statistics per thread, carried upward to the thread's account, user,
 * host and the global row. A <b>global</b> instrument has no owner: one set of shared atomic statistics
 * (MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME only), for memory that belongs to the process rather than to a request.
 *
 * <p>An instrument is enabled when registered. A disabled instrument costs one branch per call and records
 * nothing; frees of memory recorded while it was enabled are still recorded, so that the statistics stay
 * balanced.
 */
public final class Instrument {
    final MemoryAccounting registry;
    final String name;
    final int index;
    final boolean global;
    volatile boolean enabled = true;
    /** Byte limit over all owners of this instrument, or null. */
    volatile Budget budget;
    /** Bad calls seen on this instrument (bad sizes, over-frees, unknown owners); exact. */
    final AtomicLong anomalies = new AtomicLong();

    Instrument(MemoryAccounting registry, String name, int index, boolean global) {
        this.registry = registry;
        this.name = name;
        this.index = index;
        this.global = global;
    }

    /** @return the full name, {@code memory/<component>/<what>} (the tables' EVENT_NAME) */
    public String name() {
        return name;
    }

    /** @return the registry this instrument belongs to (pass the instrument to its alloc and free) */
    public MemoryAccounting accounting() {
        return registry;
    }

    /** @return the dense index of this instrument in its registry, 0 &le; index &lt; {@link MemoryAccounting#MAX_INSTRUMENTS} */
    public int index() {
        return index;
    }

    /** @return true for a global instrument (no owner, shared atomic statistics) */
    public boolean isGlobal() {
        return global;
    }

    public boolean isEnabled() {
        return enabled;
    }

    /** Enables or disables recording for this instrument, effective for the next call on any thread. */
    public void setEnabled(boolean value) {
        enabled = value;
    }

    /** @return the number of bad calls counted on this instrument since start or the last truncate */
    public long anomalies() {
        return anomalies.get();
    }

    /** @return the budget of this instrument, or null */
    public Budget budget() {
        return budget;
    }

    @Override
    public String toString() {
        return name + (global ? " (global)" : "");
    }
}
