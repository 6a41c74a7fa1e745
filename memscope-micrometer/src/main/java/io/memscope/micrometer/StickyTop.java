package io.memscope.micrometer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which rows of a changing ranking have meters of their own (the users or hosts of an instrument, the agent's sites),
 * kept stable across refreshes so that a monitoring system stores a bounded number of series over time, not one per
 * row that was ever briefly among the largest.
 *
 * <p>At most {@code size} rows are shown. A free place goes to the largest row not shown. A shown row stays for at
 * least {@code tenure} refreshes; after that it gives its place to a row not shown that holds more than
 * {@value #MARGIN} times as much (the smallest such shown row first), or leaves when it holds nothing. So each place
 * changes hands at most once per {@code tenure} refreshes: over {@code n} refreshes at most
 * {@code size × (1 + n / tenure)} distinct rows are ever shown, whatever the ranking does.
 *
 * <p>Not thread-safe: the binder calls it under its lock.
 */
final class StickyTop {
    /** How many times more a row must hold to take the place of a shown row. */
    static final double MARGIN = 2;

    private final int size;
    private final int tenure;
    /** Shown rows and the refreshes each has been shown, in the order they came. */
    private final LinkedHashMap<String, Integer> shown = new LinkedHashMap<>();

    /**
     * @param size   rows shown at most
     * @param tenure refreshes a shown row keeps its place at least (at least 1)
     */
    StickyTop(int size, int tenure) {
        this.size = size;
        this.tenure = Math.max(1, tenure);
    }

    /**
     * One refresh.
     *
     * @param values every row's value now (rows absent hold nothing)
     * @return the rows shown after it
     */
    Set<String> update(Map<String, Double> values) {
        shown.replaceAll((k, age) -> age + 1);
        // rows that hold nothing leave once their tenure is over
        shown.entrySet().removeIf(e -> e.getValue() >= tenure && value(values, e.getKey()) <= 0);
        List<Map.Entry<String, Double>> waiting = new ArrayList<>();
        for (Map.Entry<String, Double> e : values.entrySet()) {
            if (!shown.containsKey(e.getKey()) && e.getValue() > 0) {
                waiting.add(e);
            }
        }
        waiting.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry::getKey));
        int next = 0;
        while (shown.size() < size && next < waiting.size()) {
            shown.put(waiting.get(next++).getKey(), 0);
        }
        while (next < waiting.size()) {
            Map.Entry<String, Double> candidate = waiting.get(next);
            String weakest = null;
            double weakestValue = Double.MAX_VALUE;
            for (Map.Entry<String, Integer> e : shown.entrySet()) {
                double v = value(values, e.getKey());
                if (e.getValue() >= tenure && v < weakestValue) {
                    weakest = e.getKey();
                    weakestValue = v;
                }
            }
            if (weakest == null || candidate.getValue() <= MARGIN * weakestValue) {
                break;
            }
            shown.remove(weakest);
            shown.put(candidate.getKey(), 0);
            next++;
        }
        return Set.copyOf(shown.keySet());
    }

    private static double value(Map<String, Double> values, String key) {
        Double v = values.get(key);
        return v == null ? 0 : v;
    }
}
