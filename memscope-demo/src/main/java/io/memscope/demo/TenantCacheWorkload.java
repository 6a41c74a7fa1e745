package io.memscope.demo;

import io.memscope.accounting.Budget;
import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import io.memscope.accounting.OwnerScope;
import io.memscope.accounting.SummaryTable;
import io.memscope.accounting.SummaryRow;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Per-tenant caches reported to memory accounting: each request runs as its tenant (user) on its region (host),
 * caches values under {@code memory/tenantcache/entries} and their keys under {@code memory/tenantcache/keys};
 * a shared arena is a global instrument. Every tenant has a 256 KiB budget; tenant {@code carol} caches far more
 * than the others, crosses her budget (a listener prints it), gets refused by {@code tryAlloc}, and is brought
 * back under it by eviction. Prints the tables by user and global at the end.
 */
public final class TenantCacheWorkload implements DemoMain.Workload {
    static final long BUDGET = 256 * 1024;
    private static final String[][] TENANTS = {{"alice", "eu-1"}, {"bob", "eu-1"}, {"carol", "us-1"}};

    @Override
    public String name() {
        return "tenant-cache";
    }

    @Override
    public String description() {
        return "per-tenant caches under memory accounting; tenant carol crosses her 256 KiB budget";
    }

    @Override
    @SuppressWarnings("try") // OwnerScope is a scope guard: its body need not reference it
    public void run() throws Exception {
        MemoryAccounting acct = MemoryAccounting.global();
        Instrument entries = acct.instrument("memory/tenantcache/entries");
        Instrument keys = acct.instrument("memory/tenantcache/keys");
        Instrument arena = acct.globalInstrument("memory/tenantcache/arena");
        for (String[] t : TENANTS) {
            acct.setUserBudget(t[0], BUDGET);
        }
        acct.addBudgetListener((Budget b, boolean exceeded, long used) -> System.out.printf(
                "demo: tenant-cache: budget of %s %s %s: %d of %d bytes%n", b.kind().name().toLowerCase(),
                b.target(), exceeded ? "EXCEEDED" : "back under", used, b.limitBytes()));
        byte[] arenaBlock = new byte[1 << 20];
        Owner arenaOwner = acct.alloc(arena, arenaBlock.length);

        Map<String, Cache> caches = new HashMap<>();
        for (String[] t : TENANTS) {
            caches.put(t[0], new Cache(acct, entries, keys));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread th = new Thread(r, "tenant-cache-worker");
            th.setDaemon(true);
            return th;
        });
        try {
            Random rnd = new Random(42);
            for (int round = 0; round < 3; round++) {
                List<Future<?>> pending = new java.util.ArrayList<>();
                for (int req = 0; req < 300; req++) {
                    String[] t = TENANTS[rnd.nextInt(10) < 5 ? 2 : rnd.nextInt(2)];
                    int valueSize = t[0].equals("carol") ? 2048 + rnd.nextInt(2048) : 256 + rnd.nextInt(512);
                    long seed = rnd.nextLong();
                    pending.add(pool.submit(() -> {
                        try (OwnerScope s = acct.scope(t[0], t[1])) {
                            caches.get(t[0]).put("k" + seed, valueSize);
                        }
                    }));
                }
                for (Future<?> f : pending) {
                    f.get();
                }
            }
            Cache carol = caches.get("carol");
            System.out.printf("demo: tenant-cache: carol holds %d entries, %d tryAlloc refusals;"
                    + " an import charges 64 KiB with alloc, then eviction to 192 KiB%n", carol.size(), carol.refused);
            // Refused tryAllocs keep carol just under her budget, so whether the requests above cross it depends on
            // how the two workers interleave. An import charged with alloc (which is never refused) takes her over
            // for certain, and the eviction brings her back under.
            pool.submit(() -> {
                try (OwnerScope s = acct.scope("carol", "us-1")) {
                    carol.putCharged("import", 64 * 1024);
                    carol.evictTo(192 * 1024);
                }
            }).get();
        } finally {
            pool.shutdown();
        }
        acct.free(arena, arenaBlock.length, arenaOwner);

        // the application reads the tables as rows (memscope accounting <pid> prints them whole)
        for (SummaryTable table : List.of(SummaryTable.USER, SummaryTable.GLOBAL)) {
            System.out.println(table.tableName() + " (current and high bytes)");
            for (SummaryRow r : acct.summary(table)) {
                String owner = table == SummaryTable.USER ? (r.user() == null ? "NULL" : r.user()) + "  " : "";
                System.out.println(owner + r.eventName() + "  " + r.currentBytes() + "  " + r.highBytes());
            }
        }
    }

    /** One tenant's cache: values and keys are real heap memory, reported to accounting. Thread-safe. */
    static final class Cache {
        private final MemoryAccounting acct;
        private final Instrument entries;
        private final Instrument keys;
        private final ArrayDeque<Object[]> lru = new ArrayDeque<>();
        private long bytes;
        long refused;

        Cache(MemoryAccounting acct, Instrument entries, Instrument keys) {
            this.acct = acct;
            this.entries = entries;
            this.keys = keys;
        }

        synchronized void put(String key, int valueSize) {
            // the value is reported with tryAlloc: past the tenant's budget it is refused and not cached
            Owner valueOwner = acct.tryAlloc(entries, valueSize);
            if (valueOwner == null) {
                refused++;
                // make room, as a real cache would, then charge anyway (alloc may go over the budget)
                evictTo(Math.max(0, bytes - valueSize));
                valueOwner = acct.alloc(entries, valueSize);
            }
            Owner keyOwner = acct.alloc(keys, key.length() * 2L);
            lru.addLast(new Object[] {key, new byte[valueSize], valueOwner, keyOwner});
            bytes += valueSize + key.length() * 2L;
        }

        /** Caches a value charged with {@code alloc}: it is never refused and may take the user over budget. */
        synchronized void putCharged(String key, int valueSize) {
            Owner valueOwner = acct.alloc(entries, valueSize);
            Owner keyOwner = acct.alloc(keys, key.length() * 2L);
            lru.addLast(new Object[] {key, new byte[valueSize], valueOwner, keyOwner});
            bytes += valueSize + key.length() * 2L;
        }

        synchronized void evictTo(long target) {
            while (bytes > target && !lru.isEmpty()) {
                Object[] e = lru.removeFirst();
                String key = (String) e[0];
                byte[] value = (byte[]) e[1];
                acct.free(entries, value.length, (Owner) e[2]);
                acct.free(keys, key.length() * 2L, (Owner) e[3]);
                bytes -= value.length + key.length() * 2L;
            }
        }

        synchronized int size() {
            return lru.size();
        }
    }
}
