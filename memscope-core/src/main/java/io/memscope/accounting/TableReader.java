package io.memscope.accounting;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one summary table of a {@link MemoryAccounting} registry in one consistent-enough pass over its live
 * threads (their stats as they would be after a pending truncate and their queued remote operations) and its
 * account, user, host and global nodes, which hold what ended threads and watermark carries left there.
 * One reader per read: it fixes the number of instruments when created.
 */
final class TableReader {
    private final MemoryAccounting registry;
    private final Instrument[] instruments;
    private final int n;
    private final int width;

    TableReader(MemoryAccounting registry) {
        this.registry = registry;
        this.instruments = registry.instruments;
        this.n = registry.instrumentCount;
        this.width = n * Stats.WIDTH;
    }

    List<SummaryRow> read(SummaryTable table) {
        List<ThreadRecord> recs = registry.threads.live();
        List<SummaryRow> rows = new ArrayList<>();
        Map<Node, long[]> byAccount = new IdentityHashMap<>();
        long[] noAccount = new long[width];
        for (ThreadRecord rec : recs) {
            Owner seg = rec.segment;
            long[] v = threadView(rec, seg);
            if (table == SummaryTable.THREAD) {
                for (int k = 1; k < n; k++) {
                    if (!instruments[k].global && used(v, k * Stats.WIDTH)) {
                        rows.add(SummaryRow.of(table, rec.threadId, rec.threadName(), seg.user(), seg.host(),
                                instruments[k].name, v, k * Stats.WIDTH, 0));
                    }
                }
            } else if (seg.account == null) {
                add(noAccount, v);
            } else {
                add(byAccount.computeIfAbsent(seg.account, this::own), v);
            }
        }
        if (table == SummaryTable.THREAD) {
            return rows;
        }
        for (Node a : registry.accounts.values()) {
            byAccount.computeIfAbsent(a, this::own);
        }
        if (table == SummaryTable.ACCOUNT) {
            for (Map.Entry<Node, long[]> e : sorted(byAccount)) {
                Node a = e.getKey();
                emit(rows, table, a.user == null ? null : a.user.name, a.host == null ? null : a.host.name, e.getValue(), false);
            }
            return rows;
        }
        Map<Node, long[]> byUser = new IdentityHashMap<>();
        Map<Node, long[]> byHost = new IdentityHashMap<>();
        long[] global = own(registry.globalNode);
        add(global, noAccount);
        for (Map.Entry<Node, long[]> e : byAccount.entrySet()) {
            Node a = e.getKey();
            if (a.user != null) {
                add(byUser.computeIfAbsent(a.user, this::own), e.getValue());
            }
            if (a.host != null) {
                add(byHost.computeIfAbsent(a.host, this::own), e.getValue());
            } else {
                add(global, e.getValue());
            }
        }
        for (Node u : registry.users.values()) {
            byUser.computeIfAbsent(u, this::own);
        }
        for (Node h : registry.hosts.values()) {
            byHost.computeIfAbsent(h, this::own);
        }
        if (table == SummaryTable.USER) {
            for (Map.Entry<Node, long[]> e : sorted(byUser)) {
                emit(rows, table, e.getKey().name, null, e.getValue(), false);
            }
            return rows;
        }
        if (table == SummaryTable.HOST) {
            for (Map.Entry<Node, long[]> e : sorted(byHost)) {
                emit(rows, table, null, e.getKey().name, e.getValue(), false);
            }
            return rows;
        }
        for (long[] h : byHost.values()) {
            add(global, h);
        }
        emit(rows, table, null, null, global, true);
        return rows;
    }

    private void emit(List<SummaryRow> rows, SummaryTable table, String user, String host, long[] v, boolean all) {
        for (int k = 0; k < n; k++) {
            Instrument inst = instruments[k];
            long anomalies = table == SummaryTable.GLOBAL ? inst.anomalies.get() : 0;
            boolean show = all ? (k > 0 || anomalies > 0) : (!inst.global && used(v, k * Stats.WIDTH));
            if (show) {
                rows.add(SummaryRow.of(table, -1, null, user, host, inst.name, v, k * Stats.WIDTH, anomalies));
            }
        }
    }

    private List<Map.Entry<Node, long[]>> sorted(Map<Node, long[]> m) {
        List<Map.Entry<Node, long[]>> list = new ArrayList<>(m.entrySet());
        list.sort((x, y) -> x.getKey().name.compareTo(y.getKey().name));
        return list;
    }

    private long[] own(Node node) {
        long[] v = new long[width];
        long[] one = new long[Stats.WIDTH];
        for (int k = 0; k < n; k++) {
            Arrays.fill(one, 0);
            node.addTo(k, one);
            System.arraycopy(one, 0, v, k * Stats.WIDTH, Stats.WIDTH);
        }
        return v;
    }

    /**
     * A thread's stats as it would have them after applying a pending truncate and its queued remote ops, in
     * the capacity form of rows.
     */
    private long[] threadView(ThreadRecord rec, Owner seg) {
        long[] v = new long[width];
        long[] s = seg.statsForReader();
        for (int k = 0; k < n && Stats.holds(s, Stats.threadBase(k)); k++) {
            Stats.readThread(s, Stats.threadBase(k), v, k * Stats.WIDTH);
        }
        if (rec.generation != registry.hot.generation) {
            for (int b = 0; b < width; b += Stats.WIDTH) {
                Stats.rebase(v, b);
            }
        }
        long[] pending;
        synchronized (seg) {
            pending = seg.retired ? null : seg.peekInbox();
        }
        if (pending != null) {
            long[] d = new long[2];
            for (int i = 0; i < pending.length; i += 3) {
                int k = (int) (pending[i] >>> 1);
                if (k >= n) {
                    continue;
                }
                int b = k * Stats.WIDTH;
                if ((pending[i] & 1) != 0) {
                    Stats.countAlloc(v, b, pending[i + 1], pending[i + 2], d);
                } else if (v[b + Stats.ALLOC_COUNT] - v[b + Stats.FREE_COUNT] >= pending[i + 1]
                        && v[b + Stats.ALLOC_SIZE] - v[b + Stats.FREE_SIZE] >= pending[i + 2]) {
                    Stats.countFree(v, b, pending[i + 1], pending[i + 2], d);
                }
            }
        }
        for (int b = 0; b < width; b += Stats.WIDTH) {
            Stats.toCapacities(v, b, v, b);
        }
        return v;
    }

    private boolean used(long[] v, int b) {
        for (int i = 0; i < Stats.WIDTH; i++) {
            if (v[b + i] != 0) {
                return true;
            }
        }
        return false;
    }

    private void add(long[] into, long[] v) {
        for (int i = 0; i < width; i++) {
            into[i] += v[i];
        }
    }
}
