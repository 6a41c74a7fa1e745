package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.List;

/**
 * Pauses that ended between two cuts, and the bean collections counted meanwhile, to be placed by time (guarded by
 * {@link CollectionLog}'s lock).
 */
final class PauseGroup {
    final List<GcPause> pauses = new ArrayList<>(2);
    final List<Long> open = new ArrayList<>(2);

    boolean complete() {
        return open.isEmpty();
    }
}
