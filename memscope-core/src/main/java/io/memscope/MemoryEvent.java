package io.memscope;

import java.util.Objects;

/**
 * One memory event: the unit every capture path (agent, native allocator, scopes, accounting) records and every
 * analysis reads. This is the convenient object form; the {@code EventStore} keeps events in a compact columnar
 * form with strings interned, and hands them back as {@code MemoryEvent} only on request.
 *
 * @param timestampNanos  when it happened, in {@link System#nanoTime()} nanoseconds (monotonic; a recording pairs
 *                        it once with wall-clock time)
 * @param type            what happened
 * @param address         native address for native memory; sample id for sampled heap objects; 0 if none
 * @param size            bytes concerned (the new size for {@link MemoryEventType#REALLOCATE}); never negative
 * @param previousSize    the old size for {@link MemoryEventType#REALLOCATE}, 0 otherwise (memscope-rs's event loses
 * it);
 *                        for a heap {@link MemoryEventType#DEALLOCATE}, the object's lifetime in nanoseconds
 * @param threadId        the recording thread's {@code Thread.threadId()}
 * @param threadName      the recording thread's name, or null
 * @param variableName    the variable or label the application gave, or null
 * @param typeName        the allocated type, exact (for example {@code byte[]}, {@code java.lang.String}), or null
 * @param callStackHash   id of the call stack in the recording's stack table, 0 if none
 * @param siteId          id of the allocation site in the recording's site table, 0 if none
 */
public record MemoryEvent(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                          long threadId, String threadName, String variableName, String typeName,
                          long callStackHash, int siteId) {

    public MemoryEvent {
        Objects.requireNonNull(type, "type");
    }

    /** A new ALLOCATE event now, on the current thread. */
    public static MemoryEvent allocate(long address, long size, long threadId) {
        return of(MemoryEventType.ALLOCATE, address, size, 0, threadId);
    }

    /** A new DEALLOCATE event now, on the current thread. */
    public static MemoryEvent deallocate(long address, long size, long threadId) {
        return of(MemoryEventType.DEALLOCATE, address, size, 0, threadId);
    }

    /** A new REALLOCATE event now: {@code address} is the new address, the old size is kept. */
    public static MemoryEvent reallocate(long address, long oldSize, long newSize, long threadId) {
        return of(MemoryEventType.REALLOCATE, address, newSize, oldSize, threadId);
    }

    /** Ownership of {@code address} moved to thread {@code threadId}. */
    public static MemoryEvent move(long address, long size, long threadId) {
        return of(MemoryEventType.MOVE, address, size, 0, threadId);
    }

    /** A pooled buffer was borrowed. */
    public static MemoryEvent borrow(long address, long size, long threadId) {
        return of(MemoryEventType.BORROW, address, size, 0, threadId);
    }

    /** A pooled buffer was returned. */
    public static MemoryEvent returned(long address, long size, long threadId) {
        return of(MemoryEventType.RETURN, address, size, 0, threadId);
    }

    private static MemoryEvent of(MemoryEventType type, long address, long size, long previousSize, long threadId) {
        return new MemoryEvent(System.nanoTime(), type, address, size, previousSize, threadId, null, null, null,
                0L, 0);
    }

    public MemoryEvent withTimestamp(long nanos) {
        return new MemoryEvent(nanos, type, address, size, previousSize, threadId, threadName, variableName,
                typeName, callStackHash, siteId);
    }

    public MemoryEvent withVariableName(String name) {
        return new MemoryEvent(timestampNanos, type, address, size, previousSize, threadId, threadName, name,
                typeName, callStackHash, siteId);
    }

    public MemoryEvent withTypeName(String name) {
        return new MemoryEvent(timestampNanos, type, address, size, previousSize, threadId, threadName,
                variableName, name, callStackHash, siteId);
    }

    public MemoryEvent withThreadName(String name) {
        return new MemoryEvent(timestampNanos, type, address, size, previousSize, threadId, name, variableName,
                typeName, callStackHash, siteId);
    }

    public MemoryEvent withCallStackHash(long hash) {
        return new MemoryEvent(timestampNanos, type, address, size, previousSize, threadId, threadName,
                variableName, typeName, hash, siteId);
    }

    public MemoryEvent withSiteId(int id) {
        return new MemoryEvent(timestampNanos, type, address, size, previousSize, threadId, threadName,
                variableName, typeName, callStackHash, id);
    }

    /** @return true for ALLOCATE and REALLOCATE: memory came into use (as memscope-rs defines it) */
    public boolean isAllocation() {
        return type == MemoryEventType.ALLOCATE || type == MemoryEventType.REALLOCATE;
    }

    /** @return true for DEALLOCATE: memory went out of use (a heap object collected, native memory freed) */
    public boolean isDeallocation() {
        return type == MemoryEventType.DEALLOCATE;
    }

    public boolean isReallocation() {
        return type == MemoryEventType.REALLOCATE;
    }

    public boolean isMove() {
        return type == MemoryEventType.MOVE;
    }

    public boolean isBorrow() {
        return type == MemoryEventType.BORROW;
    }

    public boolean isReturn() {
        return type == MemoryEventType.RETURN;
    }
}
