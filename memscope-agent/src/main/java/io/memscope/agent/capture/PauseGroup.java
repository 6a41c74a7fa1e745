package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Pauses that ended between two cuts, and the bean collections counted meanwhile, to be placed by time (guarded by
 * {@link CollectionLog}'s lock).
 */
final class PauseGroup {
    final List<GcPause> pauses = new ArrayList<>(2);
    /** The bean collections (their keys) not yet placed: a set, a backlog's group holds thousands. */
    final Set<Long> open = new HashSet<>(4);

    boolean complete() {
        return open.isEmpty();
    }
}
