package io.memscope.agent.capture;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's own {@link AllocationSink} until the core EventStore takes over: an in-memory list of events. Only
 * sampled heap objects, their collection and native memory operations reach it (a few thousand events per second
 * at the default interval), so one lock is not a bottleneck. Timestamps are {@link System#nanoTime()}.
 */
public final class EventLog implements AllocationSink {
    private final List<MemoryEvent> events = new ArrayList<>(1024);

    @Override
    @SuppressWarnings("deprecation") // Thread.getId: threadId() is JDK 19+
    public void record(MemoryEventType type, long address, long size, long previousSize, int siteId, long stackId,
                       String typeName) {
        MemoryEvent e = new MemoryEvent(System.nanoTime(), type, address, size, previousSize,
                Thread.currentThread().getId(), null, null, typeName, stackId, siteId);
        synchronized (events) {
            events.add(e);
        }
    }

    /** @return a copy of every event recorded so far, in recording order */
    public List<MemoryEvent> snapshot() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    public int size() {
        synchronized (events) {
            return events.size();
        }
    }
}
