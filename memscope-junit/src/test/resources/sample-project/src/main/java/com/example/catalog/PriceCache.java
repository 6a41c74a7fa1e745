package com.example.catalog;

import java.lang.ref.SoftReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Price tables computed on first use and kept for good (a memo, not a leak), and price histories kept while memory
 * allows (a soft-reference cache: the JVM drops them when it needs the memory).
 */
public final class PriceCache {
    private static final Map<String, long[]> TABLES = new ConcurrentHashMap<>();
    private static final Map<String, SoftReference<long[]>> HISTORIES = new ConcurrentHashMap<>();

    private PriceCache() {
    }

    /** The table of a currency: 8 MiB, computed once. */
    public static long[] table(String currency) {
        return TABLES.computeIfAbsent(currency, c -> new long[1 << 20]); // the memo
    }

    /** The price history of a currency: 8 MiB, loaded again when the JVM dropped it. */
    public static long[] history(String currency) {
        SoftReference<long[]> cached = HISTORIES.get(currency);
        long[] h = cached == null ? null : cached.get();
        if (h == null) {
            h = new long[1 << 20]; // the history, cached softly
            HISTORIES.put(currency, new SoftReference<>(h));
        }
        return h;
    }
}
