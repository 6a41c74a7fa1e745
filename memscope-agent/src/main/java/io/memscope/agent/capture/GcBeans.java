package io.memscope.agent.capture;

import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JVM's garbage collector beans, as the collection log reads them: how many collections each has counted
 * ({@code getCollectionCount()}, updated inside the collection's pause before the JVM reports its end through JVMTI)
 * and what the last one was ({@code getLastGcInfo()}: its id, that bean's collection count at the time, its start
 * and duration on the JVM's management clock, heap used before and after). An interface, so that the log's matching
 * can be tested on made-up collections.
 */
interface GcBeans {
    /** One collection as a bean reports it; heap figures summed over the heap's pools. */
    record Collection(int bean, long id, long startMillis, long durationMillis, long usedBefore, long usedAfter,
                      long committedAfter) {
    }

    /** @return the number of beans */
    int size();

    /** @return the name of bean {@code i} ({@code G1 Young Generation}, ...) */
    String name(int i);

    /** @return the collections bean {@code i} has counted since the JVM started */
    long count(int i);

    /** @return the last collection of bean {@code i}, or null when none or unreadable */
    Collection last(int i);

    /** @return the index of the bean of this name, or -1 */
    default int indexOf(String name) {
        for (int i = 0; i < size(); i++) {
            if (name(i).equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** @return the bean names */
    default List<String> names() {
        List<String> l = new ArrayList<>(size());
        for (int i = 0; i < size(); i++) {
            l.add(name(i));
        }
        return l;
    }

    /** The platform's beans ({@code ManagementFactory}: loads JMX). */
    final class Platform implements GcBeans {
        private final List<GarbageCollectorMXBean> beans;
        private final Set<String> heapPools = new HashSet<>();

        Platform() {
            this.beans = new ArrayList<>(ManagementFactory.getGarbageCollectorMXBeans());
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) {
                    heapPools.add(p.getName());
                }
            }
        }

        /** @return the beans themselves (their notifications) */
        List<GarbageCollectorMXBean> beans() {
            return beans;
        }

        @Override
        public int size() {
            return beans.size();
        }

        @Override
        public String name(int i) {
            return beans.get(i).getName();
        }

        @Override
        public long count(int i) {
            return beans.get(i).getCollectionCount();
        }

        @Override
        public Collection last(int i) {
            GarbageCollectorMXBean b = beans.get(i);
            if (!(b instanceof com.sun.management.GarbageCollectorMXBean)) {
                return null;
            }
            GcInfo gi = ((com.sun.management.GarbageCollectorMXBean) b).getLastGcInfo();
            return gi == null ? null : collection(i, gi);
        }

        /** @return a collection of bean {@code i} as its GcInfo describes it */
        Collection collection(int i, GcInfo gi) {
            return new Collection(i, gi.getId(), gi.getStartTime(), gi.getDuration(),
                    heap(gi.getMemoryUsageBeforeGc(), false), heap(gi.getMemoryUsageAfterGc(), false),
                    heap(gi.getMemoryUsageAfterGc(), true));
        }

        private long heap(Map<String, MemoryUsage> usage, boolean committed) {
            long sum = 0;
            for (Map.Entry<String, MemoryUsage> e : usage.entrySet()) {
                if (heapPools.contains(e.getKey())) {
                    sum += committed ? e.getValue().getCommitted() : e.getValue().getUsed();
                }
            }
            return sum;
        }
    }
}
