package io.memscope.accounting;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.memscope.accounting.Column.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of alloc, free (by the owner and by other threads), realloc, claim, account changes, thread
 * ends and global-instrument calls, run one at a time on real worker threads, checked against a small model:
 * thread rows exact (all columns); account, user, host and global rows exact for counts, sums and CURRENT, and
 * LOW / HIGH bounding the true minimum / maximum of the level's concurrent total; global instrument exact.
 *
 * <p>The model follows the documented semantics: an operation on a live owner from another thread takes effect
 * when the owner applies it (its next alloc/free/claim, an account change, or its end); readers see it at once.
 */
@Timeout(120)
class ReferenceModelTest {
    private static final String[][] ACCOUNTS = {
        {null, null}, {"alice", "h1"}, {"bob", "h1"}, {"alice", "h2"}, {"carol", null}, {null, "h3"},
    };

    private final MemoryAccounting acct = new MemoryAccounting();
    private final Instrument[] perOwner = {acct.instrument("memory/model/a"), acct.instrument("memory/model/b")};
    private final Instrument global = acct.globalInstrument("memory/model/global");
    private final List<Worker> workers = new ArrayList<>();
    private final List<Seg> segs = new ArrayList<>();
    private final List<Alloc> live = new ArrayList<>();
    private final Map<String, Track[]> levels = new HashMap<>();
    private final Ledger globalLedger = new Ledger();
    private final List<Alloc> globalLive = new ArrayList<>();
    private Random rnd;
    private int workerNames;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void randomSequencesMatchTheModel(long seed) throws Exception {
        rnd = new Random(seed);
        for (int i = 0; i < 3; i++) {
            workers.add(new Worker());
        }
        try {
            for (int step = 0; step < 600; step++) {
                step();
                if (step % 20 == 19) {
                    check();
                }
            }
            check();
        } finally {
            for (Worker w : workers) {
                w.stop();
            }
        }
    }

    private void step() throws Exception {
        Worker w = workers.get(rnd.nextInt(workers.size()));
        int op = rnd.nextInt(100);
        if (op < 35 || live.isEmpty()) {
            int k = rnd.nextInt(perOwner.length);
            long size = rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(1000);
            w.prologue();
            Owner o = w.call(() -> acct.alloc(perOwner[k], size));
            Seg s = w.seg;
            s.bind(o);
            apply(s, k, true, size);
            live.add(new Alloc(k, size, s, o));
        } else if (op < 60) {
            Alloc a = live.remove(rnd.nextInt(live.size()));
            w.call(() -> {
                acct.free(perOwner[a.k], a.size, a.owner);
                return null;
            });
            onOwner(w, a.seg, a.k, false, a.size);
        } else if (op < 70) {
            Alloc a = live.get(rnd.nextInt(live.size()));
            long newSize = rnd.nextInt(2000);
            Owner o = w.call(() -> acct.realloc(perOwner[a.k], a.size, newSize, a.owner));
            assertThat(o).isSameAs(a.owner);
            if (a.seg == w.seg) {
                w.prologue();
            }
            onOwner(w, a.seg, a.k, false, a.size);
            onOwner(w, a.seg, a.k, true, newSize);
            a.size = newSize;
        } else if (op < 77) {
            Alloc a = live.get(rnd.nextInt(live.size()));
            Owner o = w.call(() -> acct.claim(perOwner[a.k], a.size, a.owner));
            w.prologue();
            if (a.seg != w.seg) {
                onOwner(w, a.seg, a.k, false, a.size);
                apply(w.seg, a.k, true, a.size);
                w.seg.bind(o);
                a.seg = w.seg;
                a.owner = o;
            } else {
                assertThat(o).isSameAs(a.owner);
            }
        } else if (op < 85) {
            String[] acc = ACCOUNTS[rnd.nextInt(ACCOUNTS.length)];
            w.call(() -> acct.scope(acc[0], acc[1]));
            if (!Objects.equals(acc[0], w.seg.user) || !Objects.equals(acc[1], w.seg.host)) {
                w.seg.retire();
                w.seg = new Seg(w, acc[0], acc[1]);
            }
        } else if (op < 89) {
            workers.remove(w);
            w.stop();
            workers.add(new Worker());
        } else if (op < 95 || globalLive.isEmpty()) {
            long size = rnd.nextInt(5000);
            Owner o = w.call(() -> acct.alloc(global, size));
            assertThat(o).isSameAs(Owner.GLOBAL);
            globalLedger.apply(true, size);
            globalLive.add(new Alloc(0, size, null, o));
        } else {
            Alloc a = globalLive.remove(rnd.nextInt(globalLive.size()));
            w.call(() -> {
                acct.free(global, a.size, Owner.GLOBAL);
                return null;
            });
            globalLedger.apply(false, a.size);
        }
    }

    /** An operation charged to {@code s} by worker {@code w}: local, queued, or on the account. */
    private void onOwner(Worker w, Seg s, int k, boolean alloc, long size) {
        if (s == w.seg) {
            w.prologue();
            apply(s, k, alloc, size);
        } else if (s.retired) {
            apply(s, k, alloc, size);
        } else {
            s.pending.add(new long[] {k, alloc ? 1 : 0, size});
        }
    }

    private void apply(Seg s, int k, boolean alloc, long size) {
        s.ledger[k].apply(alloc, size);
        for (String level : s.levels()) {
            levels.computeIfAbsent(level, x -> new Track[] {new Track(), new Track()})[k].apply(alloc, size);
        }
    }

    private void check() throws Exception {
        // the model's reaper: dead workers' owners apply their queues and retire (the registry does so on read)
        for (Seg s : segs) {
            if (!s.retired && s.worker.dead) {
                s.retire();
            }
        }
        List<SummaryRow> threadRows = acct.summary(SummaryTable.THREAD);
        Map<String, List<SummaryRow>> tables = new HashMap<>();
        for (SummaryTable t : List.of(SummaryTable.ACCOUNT, SummaryTable.USER, SummaryTable.HOST, SummaryTable.GLOBAL)) {
            tables.put(t.name(), acct.summary(t));
        }
        // thread rows: exact
        Set<String> expectedKeys = new LinkedHashSet<>();
        for (Worker w : workers) {
            if (w.id < 0) {
                continue; // never called the registry
            }
            Ledger[] view = w.seg.virtualLedgers();
            for (int k = 0; k < perOwner.length; k++) {
                if (view[k].ac == 0 && view[k].fc == 0) {
                    continue;
                }
                expectedKeys.add(w.id + " " + perOwner[k].name());
                List<SummaryRow> r = Rows.thread(acct, w.id, perOwner[k].name());
                assertThat(r).as("thread row %s %s", w.name, perOwner[k]).hasSize(1);
                assertThat(Rows.values(r.get(0))).as("thread %s %s", w.name, perOwner[k]).containsExactly(view[k].columns());
                assertThat(r.get(0).user()).isEqualTo(w.seg.user);
                assertThat(r.get(0).host()).isEqualTo(w.seg.host);
            }
        }
        Set<String> actualKeys = new LinkedHashSet<>();
        for (SummaryRow r : threadRows) {
            actualKeys.add(r.threadId() + " " + r.eventName());
        }
        assertThat(actualKeys).isEqualTo(expectedKeys);
        // aggregate rows: exact sums and CURRENT, LOW/HIGH bound the true extremes
        Map<String, long[][]> virtualCur = new HashMap<>();
        Map<String, long[][]> sumHigh = new HashMap<>();
        for (Seg s : segs) {
            Ledger[] view = s.retired ? s.ledger : s.virtualLedgers();
            for (String level : s.levels()) {
                long[][] v = virtualCur.computeIfAbsent(level, x -> new long[perOwner.length][6]);
                long[][] h = sumHigh.computeIfAbsent(level, x -> new long[perOwner.length][4]);
                for (int k = 0; k < perOwner.length; k++) {
                    v[k][0] += view[k].ac;
                    v[k][1] += view[k].fc;
                    v[k][2] += view[k].as;
                    v[k][3] += view[k].fs;
                    h[k][0] += view[k].highC;
                    h[k][1] += view[k].highB;
                    h[k][2] += view[k].lowC;
                    h[k][3] += view[k].lowB;
                }
            }
        }
        for (Map.Entry<String, long[][]> e : virtualCur.entrySet()) {
            String level = e.getKey();
            for (int k = 0; k < perOwner.length; k++) {
                long[] v = e.getValue()[k];
                SummaryRow r = row(tables, level, perOwner[k].name());
                if (v[0] == 0 && v[1] == 0) {
                    continue;
                }
                assertThat(r).as("row %s %s", level, perOwner[k]).isNotNull();
                String what = level + " " + perOwner[k].name() + " " + r;
                assertThat(r.get(COUNT_ALLOC)).as(what).isEqualTo(v[0]);
                assertThat(r.get(COUNT_FREE)).as(what).isEqualTo(v[1]);
                assertThat(r.get(SUM_NUMBER_OF_BYTES_ALLOC)).as(what).isEqualTo(v[2]);
                assertThat(r.get(SUM_NUMBER_OF_BYTES_FREE)).as(what).isEqualTo(v[3]);
                long curC = v[0] - v[1];
                long curB = v[2] - v[3];
                assertThat(r.get(CURRENT_COUNT_USED)).as(what).isEqualTo(curC);
                assertThat(r.get(CURRENT_NUMBER_OF_BYTES_USED)).as(what).isEqualTo(curB);
                Track[] t = levels.get(level);
                assertThat(r.get(HIGH_COUNT_USED)).as(what).isGreaterThanOrEqualTo(Math.max(t[k].maxC, curC));
                assertThat(r.get(HIGH_NUMBER_OF_BYTES_USED)).as(what).isGreaterThanOrEqualTo(Math.max(t[k].maxB, curB));
                assertThat(r.get(LOW_COUNT_USED)).as(what).isBetween(0L, Math.min(t[k].minC, curC));
                assertThat(r.get(LOW_NUMBER_OF_BYTES_USED)).as(what).isBetween(0L, Math.min(t[k].minB, curB));
                long[] h = sumHigh.get(level)[k];
                assertThat(r.get(HIGH_COUNT_USED)).as(what + " vs sum of owners' HIGH").isLessThanOrEqualTo(h[0]);
                assertThat(r.get(HIGH_NUMBER_OF_BYTES_USED)).as(what + " vs sum of owners' HIGH").isLessThanOrEqualTo(h[1]);
            }
        }
        SummaryRow g = row(tables, "G", global.name());
        assertThat(Rows.values(g)).as("global instrument").containsExactly(globalLedger.columns());
        assertThat(perOwner[0].anomalies() + perOwner[1].anomalies() + global.anomalies()).isZero();
    }

    private static SummaryRow row(Map<String, List<SummaryRow>> tables, String level, String event) {
        if (level.equals("G")) {
            return Rows.one(tables.get("GLOBAL"), null, null, event);
        }
        String name = level.substring(2);
        switch (level.charAt(0)) {
            case 'A': {
                String[] uh = name.split("@", -1);
                return Rows.one(tables.get("ACCOUNT"), uh[0].isEmpty() ? null : uh[0], uh[1].isEmpty() ? null : uh[1], event);
            }
            case 'U':
                return Rows.one(tables.get("USER"), name, null, event);
            default:
                return Rows.one(tables.get("HOST"), null, name, event);
        }
    }

    // ------------------------------------------------------------------------------------------- model

    /** Exact thread-level stats: what the performance schema's definitions say. */
    static final class Ledger {
        long ac, fc, as, fs, curC, curB, lowC, highC, lowB, highB;

        void apply(boolean alloc, long size) {
            if (alloc) {
                ac++;
                as += size;
                curC++;
                curB += size;
            } else {
                fc++;
                fs += size;
                curC--;
                curB -= size;
            }
            lowC = Math.min(lowC, curC);
            highC = Math.max(highC, curC);
            lowB = Math.min(lowB, curB);
            highB = Math.max(highB, curB);
        }

        Ledger copy() {
            Ledger l = new Ledger();
            l.ac = ac;
            l.fc = fc;
            l.as = as;
            l.fs = fs;
            l.curC = curC;
            l.curB = curB;
            l.lowC = lowC;
            l.highC = highC;
            l.lowB = lowB;
            l.highB = highB;
            return l;
        }

        long[] columns() {
            return new long[] {ac, fc, as, fs, lowC, curC, highC, lowB, curB, highB, 0};
        }
    }

    /** The true concurrent total of a level, with its extremes. */
    static final class Track {
        long curC, curB, minC, maxC, minB, maxB;

        void apply(boolean alloc, long size) {
            curC += alloc ? 1 : -1;
            curB += alloc ? size : -size;
            minC = Math.min(minC, curC);
            maxC = Math.max(maxC, curC);
            minB = Math.min(minB, curB);
            maxB = Math.max(maxB, curB);
        }
    }

    final class Seg {
        final Worker worker;
        final String user;
        final String host;
        final Ledger[] ledger = {new Ledger(), new Ledger()};
        final List<long[]> pending = new ArrayList<>();
        boolean retired;
        Owner handle;

        Seg(Worker worker, String user, String host) {
            this.worker = worker;
            this.user = user;
            this.host = host;
            segs.add(this);
        }

        void bind(Owner o) {
            if (handle == null) {
                handle = o;
            }
            assertThat(o).isSameAs(handle);
            assertThat(o.user()).isEqualTo(user);
            assertThat(o.host()).isEqualTo(host);
        }

        List<String> levels() {
            List<String> l = new ArrayList<>();
            if (user != null || host != null) {
                l.add("A:" + (user == null ? "" : user) + "@" + (host == null ? "" : host));
                if (user != null) {
                    l.add("U:" + user);
                }
                if (host != null) {
                    l.add("H:" + host);
                }
            }
            l.add("G");
            return l;
        }

        void drain() {
            List<long[]> ops = new ArrayList<>(pending);
            pending.clear();
            for (long[] op : ops) {
                apply(this, (int) op[0], op[1] == 1, op[2]);
            }
        }

        void retire() {
            drain();
            retired = true;
        }

        Ledger[] virtualLedgers() {
            Ledger[] v = {ledger[0].copy(), ledger[1].copy()};
            for (long[] op : pending) {
                v[(int) op[0]].apply(op[1] == 1, op[2]);
            }
            return v;
        }
    }

    final class Worker {
        final String name = "model-" + workerNames++;
        private final LinkedBlockingQueue<FutureTask<?>> tasks = new LinkedBlockingQueue<>();
        private final Thread thread;
        long id = -1;
        Seg seg = new Seg(this, null, null);
        boolean dead;

        @SuppressWarnings("deprecation")
        Worker() {
            thread = new Thread(() -> {
                try {
                    for (;;) {
                        FutureTask<?> t = tasks.take();
                        if (t.isCancelled()) {
                            return;
                        }
                        t.run();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            thread.setDaemon(true);
            thread.start();
        }

        /** The owner applies its queue before its own calls. */
        void prologue() {
            seg.drain();
        }

        @SuppressWarnings("deprecation")
        <T> T call(Callable<T> body) throws Exception {
            FutureTask<T> t = new FutureTask<>(body);
            tasks.add(t);
            T result = t.get(10, TimeUnit.SECONDS);
            id = thread.getId();
            return result;
        }

        void stop() throws InterruptedException {
            FutureTask<Void> poison = new FutureTask<>(() -> null);
            poison.cancel(false);
            tasks.add(poison);
            thread.join(10_000);
            assertThat(thread.isAlive()).isFalse();
            dead = true;
        }
    }

    static final class Alloc {
        final int k;
        long size;
        Seg seg;
        Owner owner;

        Alloc(int k, long size, Seg seg, Owner owner) {
            this.k = k;
            this.size = size;
            this.seg = seg;
            this.owner = owner;
        }
    }
}
