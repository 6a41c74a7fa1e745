package com.example.catalog;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import io.memscope.accounting.OwnerScope;
import java.util.ArrayList;
import java.util.List;

/** Session state per user, accounted by user and host (memscope's accounting API): users come and go all the time. */
public final class Sessions {
    private final MemoryAccounting accounting;
    private final Instrument entries;
    private final List<List<Owner>> held = new ArrayList<>();
    private final List<byte[]> kept = new ArrayList<>();

    public Sessions(MemoryAccounting accounting, int users) {
        this.accounting = accounting;
        this.entries = accounting.instrument("memory/sessions/entries");
        for (int u = 0; u < users; u++) {
            held.add(new ArrayList<>());
        }
    }

    /** User {@code user} takes ({@code change > 0}) or gives back session entries of 1 KiB. */
    public void change(int user, int change) {
        List<Owner> mine = held.get(user);
        for (int k = 0; k < change; k++) {
            try (OwnerScope s = accounting.scope("user-" + user, "host-" + user % 3)) {
                mine.add(accounting.alloc(entries, 1024));
            }
        }
        for (int k = 0; k < -change && !mine.isEmpty(); k++) {
            accounting.free(entries, 1024, mine.remove(mine.size() - 1));
        }
    }

    /** Keeps 16 MiB of session snapshots in the heap. */
    public void snapshot() {
        for (int i = 0; i < 64; i++) {
            kept.add(new byte[256 * 1024]); // snapshots
        }
    }
}
