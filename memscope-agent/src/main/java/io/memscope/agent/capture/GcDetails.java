package io.memscope.agent.capture;

/**
 * One bean collection: what its notification or the bean's last-collection figures say, and when it arrived.
 */
final class GcDetails {
    final String name;
    final String action;
    final String cause;
    final long key;
    final long startMillis;
    final long durationMillis;
    final long before;
    final long after;
    final long committed;
    final long receivedNanos;
    /** From a notification (cause and action known), not only the bean's last-collection figures. */
    final boolean notified;

    GcDetails(String name, String action, String cause, long key, long startMillis, long durationMillis,
            long before, long after, long committed, long receivedNanos, boolean notified) {
        this.name = canonical(name);
        this.action = canonical(action);
        this.cause = canonical(cause);
        this.key = key;
        this.startMillis = startMillis;
        this.durationMillis = durationMillis;
        this.before = before;
        this.after = after;
        this.committed = committed;
        this.receivedNanos = receivedNanos;
        this.notified = notified;
    }

    /**
     * A collector's name, action or cause as one shared string: each notification brings new copies of a few
     * texts, and the records kept for the MXBean would otherwise hold a copy each.
     */
    static String canonical(String s) {
        return s == null ? null : s.intern();
    }

    /** @return the key of a bean's collection: the bean's index in the upper 16 bits, the collection's id below */
    static long key(int bean, long id) {
        return (long) bean << 48 | (id & 0xFFFF_FFFF_FFFFL);
    }
}
