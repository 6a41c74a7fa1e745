package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.Site;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Native memory blocks allocated through {@code jdk.internal.misc.Unsafe} (which backs {@code sun.misc.Unsafe},
 * direct {@code ByteBuffer}s and FFM arenas): address to size, site and stack while the block is outstanding.
 * Types: {@code native:direct-buffer} (the stack goes through a direct buffer), {@code native:arena} (an FFM arena
 * allocated it: its stack goes through {@code jdk.internal.foreign}, or memscope-ffm's tracking arena marked it),
 * else {@code native:unsafe}. One event per block the JDK allocated: its real address and size (for an arena segment
 * that is the base of the block, which the segment starts at unless it is aligned to more than 16 bytes, and the
 * segment's size rounded up as the JDK allocates it).
 *
 * <p>A free of an address freed before and not allocated since is a {@link Anomaly.Kind#DOUBLE_FREE}: it is recorded
 * and <em>not passed on</em> to the allocator (which would corrupt the heap or abort the JVM). A free of an address
 * never seen is an {@link Anomaly.Kind#UNKNOWN_FREE} (memory allocated before tracking began, or a bogus address) and is
 * passed on unchanged.
 */
final class NativeTracker {
    /** Anomalies kept in detail; later ones are only counted. */
    static final int KEPT_ANOMALIES = 256;
    /** Freed addresses remembered for double-free detection (the set is cleared when it grows past this). */
    static final int FREED_REMEMBERED = 1 << 16;

    /** One outstanding block: its size and site, and who allocated it when (for {@link HeldQuery}). */
    static final class Block {
        final long size;
        final int site;
        final long stack;
        final long threadId;
        /** {@link System#nanoTime()} when it was allocated. */
        final long allocatedNanos;

        @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
        Block(long size, int site, long stack) {
            this.size = size;
            this.site = site;
            this.stack = stack;
            this.threadId = Thread.currentThread().getId();
            this.allocatedNanos = System.nanoTime();
        }
    }

    private final ConcurrentHashMap<Long, Block> blocks = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Boolean> freed = new ConcurrentHashMap<>();
    /** Blocks allocated by memscope's own code (under the recursion guard): not reported, freed silently. */
    private final ConcurrentHashMap<Long, Boolean> own = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> sitesByFrame = new ConcurrentHashMap<>();
    private final List<Anomaly> anomalies = new ArrayList<>();
    private final AtomicLong anomalyCount = new AtomicLong();
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong jdkUnknownFrees = new AtomicLong();
    private final AllocationSink sink;
    private final int stackDepth;
    /** The capture's stack table. */
    private final StackTable stacks;

    NativeTracker(AllocationSink sink, StackTable stacks, int stackDepth) {
        this.sink = sink;
        this.stacks = stacks;
        this.stackDepth = stackDepth;
    }

    /**
     * @param forArena allocated for a memscope-ffm tracking arena ({@link Hooks#nativeArenaEnter}): typed
     *                 {@code native:arena}, its stack starts at the code that called the tracking arena
     */
    void allocated(long address, long size, boolean forArena) {
        if (address == 0) {
            return;
        }
        StackTable.Captured st = stacks.captureNative(Math.max(stackDepth, 16), forArena);
        int site = siteOf(st);
        blocks.put(address, new Block(size, site, st.id));
        freed.remove(address);
        own.remove(address);
        outstanding.addAndGet(size);
        sink.record(MemoryEventType.ALLOCATE, address, size, 0, site, stackDepth > 0 ? st.id : 0, st.nativeType());
    }

    void reallocated(long newAddress, long oldAddress, long size, boolean forArena) {
        if (newAddress == 0) {
            return;
        }
        long previous = 0;
        if (oldAddress != 0) {
            Block old = blocks.remove(oldAddress);
            if (old != null) {
                previous = old.size;
                outstanding.addAndGet(-old.size);
                sink.record(MemoryEventType.DEALLOCATE, oldAddress, old.size, 0, old.site, 0, null);
            }
        }
        StackTable.Captured st = stacks.captureNative(Math.max(stackDepth, 16), forArena);
        int site = siteOf(st);
        blocks.put(newAddress, new Block(size, site, st.id));
        freed.remove(newAddress);
        own.remove(newAddress);
        outstanding.addAndGet(size);
        sink.record(MemoryEventType.REALLOCATE, newAddress, size, previous, site, stackDepth > 0 ? st.id : 0,
                st.nativeType());
    }

    /**
     * @return whether the JDK frees memory that only it can have allocated: its per-thread cache of temporary
     *         direct buffers ({@code sun.nio.ch.Util}, possibly allocated before the hooks were installed, e.g. for
     *         memscope's own recording I/O), or an FFM arena's cleanup ({@code jdk.internal.foreign}: an arena
     *         that allocated before {@code memscope attach} and is closed now)
     */
    private boolean jdkOwnMemory(long stackId) {
        List<String> frames = stacks.frames(stackId);
        for (int i = 0; i < Math.min(6, frames.size()); i++) {
            String f = frames.get(i);
            if (f.startsWith("sun.nio.ch.Util.") || f.startsWith("jdk.internal.foreign.")) {
                return true;
            }
        }
        return false;
    }

    /** A block memscope's own code allocated: remembered only so that its free is not an anomaly. */
    void own(long address) {
        if (address != 0) {
            own.put(address, Boolean.TRUE);
        }
    }

    /** A free under the recursion guard: forget the block whoever allocated it, record nothing. */
    void freeingOwn(long address) {
        if (own.remove(address) == null) {
            Block b = blocks.remove(address);
            if (b != null) {
                outstanding.addAndGet(-b.size);
                sink.record(MemoryEventType.DEALLOCATE, address, b.size, 0, b.site, 0, null);
            }
        }
    }

    /** @return true if the free must be skipped (a double free) */
    boolean freeing(long address) {
        if (address == 0) {
            return false;
        }
        if (own.remove(address) != null) {
            return false;
        }
        Block b = blocks.remove(address);
        if (b != null) {
            outstanding.addAndGet(-b.size);
            if (freed.size() > FREED_REMEMBERED) {
                freed.clear();
            }
            freed.put(address, Boolean.TRUE);
            sink.record(MemoryEventType.DEALLOCATE, address, b.size, 0, b.site, 0, null);
            return false;
        }
        if (freed.containsKey(address)) {
            anomaly(Anomaly.Kind.DOUBLE_FREE.wireName(), address);
            return true;
        }
        StackTable.Captured st = stacks.captureFull(Math.max(stackDepth, 16));
        if (st.appFrame == null || jdkOwnMemory(st.id)) {
            // The JDK freeing its own memory, allocated before the hooks were installed: not the application's
            // problem; counted only.
            jdkUnknownFrees.incrementAndGet();
            return false;
        }
        anomaly(Anomaly.Kind.UNKNOWN_FREE.wireName(), address);
        return false;
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+; the EventStore uses the same id
    private void anomaly(String kind, long address) {
        anomalyCount.incrementAndGet();
        synchronized (anomalies) {
            if (anomalies.size() < KEPT_ANOMALIES) {
                anomalies.add(new Anomaly(kind, System.nanoTime(), address, 0, Thread.currentThread().getId(),
                        stacks.capture(Math.max(stackDepth, 16)), null));
            }
        }
    }

    private int siteOf(StackTable.Captured st) {
        StackWalker.StackFrame f = st.siteFrame;
        String type = st.nativeType();
        String cls = f == null ? "jdk" : f.getClassName();
        String method = f == null ? "internal" : f.getMethodName();
        String file = f == null ? null : f.getFileName();
        int line = f == null ? 0 : f.getLineNumber();
        String key = "native#" + type + "#" + cls + "#" + method + "#" + line;
        Integer id = sitesByFrame.get(key);
        if (id == null) {
            id = SiteTable.register(key, cls, method, file, line, type, false);
            if (!SiteTable.beyondBound(id)) {
                sitesByFrame.put(key, id); // beyond the bound: not cached, so that this map stays bounded too
            }
        }
        return id;
    }

    /** Calls {@code action} for each block outstanding now (any thread; blocks allocated or freed meanwhile may be missed). */
    void forEachOutstanding(java.util.function.Consumer<Block> action) {
        blocks.values().forEach(action);
    }

    long outstandingBytes() {
        return outstanding.get();
    }

    /** @return blocks allocated and not yet freed (memscope's own not included) */
    long outstandingBlocks() {
        return blocks.size();
    }

    List<Anomaly> anomalies() {
        synchronized (anomalies) {
            return List.copyOf(anomalies);
        }
    }

    /** @return frees of unknown addresses from JDK code alone (memory allocated before tracking began) */
    long jdkUnknownFrees() {
        return jdkUnknownFrees.get();
    }

    long anomalyCount() {
        return anomalyCount.get();
    }
}
