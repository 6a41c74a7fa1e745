package io.memscope.micrometer;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import io.memscope.accounting.OwnerScope;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Users {@code user-0 .. user-(n-1)} on host {@code eu-1} taking and giving back 1 KiB entries of one instrument,
 * each round a random -6 to +6 per user: the ranking of who holds most keeps changing (seeded, repeatable).
 */
final class UserChurn {
    private final MemoryAccounting acct;
    private final Instrument entries;
    private final SplittableRandom random;
    private final List<List<Owner>> held = new ArrayList<>();

    UserChurn(MemoryAccounting acct, Instrument entries, int users, long seed) {
        this.acct = acct;
        this.entries = entries;
        this.random = new SplittableRandom(seed);
        for (int u = 0; u < users; u++) {
            held.add(new ArrayList<>());
        }
    }

    /** Every user takes or gives back some entries. */
    void round() {
        for (int u = 0; u < held.size(); u++) {
            List<Owner> mine = held.get(u);
            int change = random.nextInt(-6, 7);
            for (int k = 0; k < change; k++) {
                try (OwnerScope s = acct.scope("user-" + u, "eu-1")) {
                    mine.add(acct.alloc(entries, 1024));
                }
            }
            for (int k = 0; k < -change && !mine.isEmpty(); k++) {
                acct.free(entries, 1024, mine.remove(mine.size() - 1));
            }
        }
    }

    /** @return whether user {@code u} holds any entry now */
    boolean holds(int u) {
        return !held.get(u).isEmpty();
    }
}
