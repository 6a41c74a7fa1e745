package io.memscope.scope;

/**
 * The figures of one scope path, over every thread, since the tracker started. A scope counts when it is exited
 * (scopes still open are not in these figures). Times are {@link System#nanoTime()} differences summed over
 * threads: two threads each 10 ms inside {@code request} make 20 ms, as allocated bytes add up over threads.
 *
 * @param path                 the full path, names joined by {@code /}, e.g. {@code request/parse}; the folded
 *                             paths are {@code "(other)"}
 * @param name                 the last name of the path
 * @param parentPath           the path of the enclosing scope, {@code ""} for a root scope
 * @param depth                1 for a root scope, 2 for its children, ...
 * @param entries              exits of scopes with this path (entries that have completed), tasks included
 * @param tasks                of {@code entries}, runs of tasks handed to a thread by {@code wrap} (and the
 *                             scoped executors) under this path
 * @param totalNanos           time inside the path, children included: the sum of each entry's duration
 * @param maxNanos             the longest single entry, children included
 * @param selfNanos            time inside the path but not inside another scope opened on the same thread
 * @param allocatedBytes       heap bytes allocated on the entering thread while the scope was open, children
 *                             included: exact ({@code ThreadMXBean} per-thread allocated bytes, see
 *                             {@link ScopeTracker}), memscope's own allocations left out; only entries whose
 *                             thread could measure it (not {@code entriesWithoutAllocation})
 * @param selfAllocatedBytes   of {@code allocatedBytes}, the bytes not allocated inside another scope opened on the
 *                             same thread
 * @param maxAllocatedBytes    the most one entry allocated, children included
 * @param entriesWithoutAllocation entries whose thread could not measure allocated bytes (virtual threads, a JVM
 *                             without per-thread allocation counting): they count in times, not in bytes
 * @param forcedExits          entries that were not closed by their own {@code close()} but by the exit of an
 *                             enclosing scope (out-of-order exit, repaired)
 */
public record ScopeStats(String path, String name, String parentPath, int depth, long entries, long tasks,
                         long totalNanos, long maxNanos, long selfNanos, long allocatedBytes,
                         long selfAllocatedBytes, long maxAllocatedBytes, long entriesWithoutAllocation,
                         long forcedExits) {
}
