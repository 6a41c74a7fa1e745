package io.memscope.scope;

import java.util.List;

/**
 * All figures of a {@link ScopeTracker} at one moment: one {@link PathStats} per path that has completed entries
 * (parents before their children, siblings in the order they were first entered), the bound on distinct paths and
 * what it folded, and the anomalies of scope use. Read while threads run, each path's figures may lag its threads
 * by an exit or two; read when they are quiet, it is exact.
 *
 * @param paths                  per path
 * @param maxPaths               the bound on distinct paths (the folded {@code "(other)"} not counted)
 * @param distinctPaths          distinct paths registered (at most {@code maxPaths})
 * @param foldedEntries          entries of scopes whose path did not fit, counted under {@code "(other)"}
 *                               (exact; nested folded entries included)
 * @param foldedDistinctPaths    distinct names refused a path (exact while {@code foldedDistinctExact})
 * @param foldedDistinctExact    false when so many distinct names were folded that memscope stopped remembering
 *                               them: {@code foldedDistinctPaths} is then a lower bound
 * @param outOfOrderExits        scopes closed by the exit of an enclosing scope because they were still open
 * @param staleCloses            {@code close()} of a scope that was no longer open (a second close, or after an
 *                               out-of-order exit repaired it): ignored
 * @param foreignCloses          {@code close()} on another thread than the one that entered the scope: ignored (the
 *                               scope stays open until an enclosing scope closes or its thread ends)
 * @param invalidNames           names that were null, empty, longer than {@value ScopeTracker#MAX_NAME} characters
 *                               or contained {@code /}: used as {@code (invalid)}, truncated or with {@code /}
 *                               replaced by {@code _}
 * @param tooDeep                scopes refused because {@value ThreadScopes#MAX_DEPTH} were open on the thread
 * @param abandoned              scopes still open when their thread ended (never counted in the figures)
 * @param allocationMeasured     whether this JVM measures per-thread allocated bytes at all
 */
public record ScopeSnapshot(List<PathStats> paths, int maxPaths, int distinctPaths, long foldedEntries,
                            long foldedDistinctPaths, boolean foldedDistinctExact, long outOfOrderExits,
                            long staleCloses, long foreignCloses, long invalidNames, long tooDeep, long abandoned,
                            boolean allocationMeasured) {

    /** @return the figures of {@code path}, or null when it has no completed entry */
    public PathStats path(String path) {
        for (PathStats s : paths) {
            if (s.path().equals(path)) {
                return s;
            }
        }
        return null;
    }

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
    public record PathStats(String path, String name, String parentPath, int depth, long entries, long tasks,
                             long totalNanos, long maxNanos, long selfNanos, long allocatedBytes,
                             long selfAllocatedBytes, long maxAllocatedBytes, long entriesWithoutAllocation,
                             long forcedExits) {
    }
}
