package io.memscope.recording;

/**
 * Something wrong the capture observed (and survived), for example a double free or a free of an unknown address.
 *
 * @param kind           the kind's name as recorded, for example {@code double-free} ({@link Kind#wireName()}); a
 *                       name this reader does not know is kept as it is ({@link #type()} is then {@link Kind#OTHER})
 * @param timestampNanos when, {@link System#nanoTime()} ns of the recorded JVM
 * @param address        the address concerned, 0 if none
 * @param size           the size concerned in bytes, 0 if none or unknown
 * @param threadId       the thread that did it ({@code Thread.getId()}), 0 if unknown
 * @param stackId        the stack at that point (id in the stack table), 0 if none
 * @param detail         free text, or null
 */
public record Anomaly(String kind, long timestampNanos, long address, long size, long threadId, long stackId,
                      String detail) {
    /**
     * The kinds of anomaly memscope records (docs/formats/recording.md, the ANOMALY block), each with the name
     * written in the recording.
     */
    public enum Kind {
        /**
         * A native address freed before and not allocated again since: the agent did not pass the second free on to
         * the allocator.
         */
        DOUBLE_FREE(Area.NATIVE, "double-free"),
        /**
         * A free, by application code, of a native address never seen allocated while memscope was tracking
         * (allocated before it started, or bogus); passed on unchanged.
         */
        UNKNOWN_FREE(Area.NATIVE, "unknown-free"),
        /** A scope closed while scopes opened inside it were still open (they are closed with it). */
        SCOPE_OUT_OF_ORDER(Area.SCOPE, "scope-out-of-order"),
        /** A scope closed a second time, or after its thread's scopes were reset. */
        SCOPE_STALE_CLOSE(Area.SCOPE, "scope-stale-close"),
        /** A scope closed by a thread other than the one that opened it. */
        SCOPE_FOREIGN_CLOSE(Area.SCOPE, "scope-foreign-close"),
        /** A leased resource that became unreachable without being returned ({@code detail}: the pool). */
        POOL_LEAK(Area.POOL, "pool-leak"),
        /** A resource returned twice to its pool. */
        POOL_DOUBLE_RETURN(Area.POOL, "pool-double-return"),
        /** A resource returned to a pool that never lent it. */
        POOL_UNKNOWN_RETURN(Area.POOL, "pool-unknown-return"),
        /** A kind this reader does not know (a newer writer's): its name is the anomaly's {@link Anomaly#kind()}. */
        OTHER(Area.OTHER, null);

        /** What an anomaly is about. */
        public enum Area {
            /** Native memory (the agent's native tracking). */
            NATIVE,
            /** Scopes (the API's {@code Memscope.scope}). */
            SCOPE,
            /** Pooled resources (the API's {@code PoolTracker}). */
            POOL,
            /** Unknown to this reader. */
            OTHER
        }

        private final Area area;
        private final String wireName;

        Kind(Area area, String wireName) {
            this.area = area;
            this.wireName = wireName;
        }

        /** @return the name written in the recording; null for {@link #OTHER} */
        public String wireName() {
            return wireName;
        }

        /** @return what the anomaly is about */
        public Area area() {
            return area;
        }

        /** @return whether the kind is the memscope API's (scopes, pools), not native memory's */
        public boolean api() {
            return area == Area.SCOPE || area == Area.POOL;
        }

        /** @return the kind of that recorded name; {@link #OTHER} for a name this reader does not know, or null */
        public static Kind of(String wireName) {
            if (wireName != null) {
                for (Kind k : values()) {
                    if (wireName.equals(k.wireName)) {
                        return k;
                    }
                }
            }
            return OTHER;
        }
    }

    /** @return the kind of this anomaly; {@link Kind#OTHER} when its recorded name ({@link #kind()}) is unknown */
    public Kind type() {
        return Kind.of(kind);
    }
}
