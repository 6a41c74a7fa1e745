package io.memscope.bench.scope;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * memscope-rs's scope tracker, as its source shows it, in Java: an active-scope map and a per-thread stack map behind
 * read-write locks, the thread keyed by its formatted id, a {@code ScopeInfo} per entry moved to a completed list
 * (bounded here to the last 1024, so that the benchmark measures time, not growth), a mutex-protected hierarchy.
 */
final class MemscopeRsScopeTracker {
    private final ReadWriteLock activeLock = new ReentrantReadWriteLock();
    private final Map<Long, ScopeInfo> active = new HashMap<>();
    private final ReentrantLock completedLock = new ReentrantLock();
    private final List<ScopeInfo> completed = new ArrayList<>();
    private final ReadWriteLock stackLock = new ReentrantReadWriteLock();
    private final Map<String, List<Long>> stacks = new HashMap<>();
    private final AtomicLong nextId = new AtomicLong();

    static final class ScopeInfo {
        final String name;
        final String parent;
        final int depth;
        final long start;
        long end;

        ScopeInfo(String name, String parent, int depth, long start) {
            this.name = name;
            this.parent = parent;
            this.depth = depth;
            this.start = start;
        }
    }

    @SuppressWarnings("deprecation")
    long enter(String name) {
        long id = nextId.incrementAndGet();
        String thread = "ThreadId(" + Thread.currentThread().getId() + ")";
        long now = System.nanoTime();
        String parent = null;
        int depth = 0;
        stackLock.readLock().lock();
        try {
            List<Long> s = stacks.get(thread);
            if (s != null && !s.isEmpty()) {
                activeLock.readLock().lock();
                try {
                    ScopeInfo p = active.get(s.get(s.size() - 1));
                    if (p != null) {
                        parent = p.name;
                        depth = p.depth + 1;
                    }
                } finally {
                    activeLock.readLock().unlock();
                }
            }
        } finally {
            stackLock.readLock().unlock();
        }
        activeLock.writeLock().lock();
        try {
            active.put(id, new ScopeInfo(name, parent, depth, now));
        } finally {
            activeLock.writeLock().unlock();
        }
        stackLock.writeLock().lock();
        try {
            stacks.computeIfAbsent(thread, k -> new ArrayList<>()).add(id);
        } finally {
            stackLock.writeLock().unlock();
        }
        return id;
    }

    @SuppressWarnings("deprecation")
    void exit(long id) {
        String thread = "ThreadId(" + Thread.currentThread().getId() + ")";
        ScopeInfo info;
        activeLock.writeLock().lock();
        try {
            info = active.remove(id);
        } finally {
            activeLock.writeLock().unlock();
        }
        stackLock.writeLock().lock();
        try {
            List<Long> s = stacks.get(thread);
            if (s != null) {
                s.remove(id);
            }
        } finally {
            stackLock.writeLock().unlock();
        }
        if (info != null) {
            info.end = System.nanoTime();
            completedLock.lock();
            try {
                if (completed.size() == 1024) {
                    completed.clear();
                }
                completed.add(info);
            } finally {
                completedLock.unlock();
            }
        }
    }
}
