package io.memscope.scope;

import java.util.List;

/**
 * All figures of a {@link ScopeTracker} at one moment: one {@link ScopeStats} per path that has completed entries
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
public record ScopeSnapshot(List<ScopeStats> paths, int maxPaths, int distinctPaths, long foldedEntries,
                            long foldedDistinctPaths, boolean foldedDistinctExact, long outOfOrderExits,
                            long staleCloses, long foreignCloses, long invalidNames, long tooDeep, long abandoned,
                            boolean allocationMeasured) {

    /** @return the figures of {@code path}, or null when it has no completed entry */
    public ScopeStats path(String path) {
        for (ScopeStats s : paths) {
            if (s.path().equals(path)) {
                return s;
            }
        }
        return null;
    }
}
