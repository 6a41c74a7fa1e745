package io.memscope.micrometer;

import io.memscope.accounting.Budget;
import io.memscope.accounting.Column;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.SummaryRow;
import io.memscope.jmx.AgentClient;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * memscope's figures as Micrometer meters (names below; a Prometheus registry adds {@code _bytes} and
 * {@code _total} as usual):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code memscope.accounting.used} (gauge, bytes)</td><td>instrument</td><td>CURRENT_NUMBER_OF_BYTES_USED
 *       of the global table: exact</td></tr>
 *   <tr><td>{@code memscope.accounting.used.high} (gauge, bytes)</td><td>instrument</td><td>HIGH_NUMBER_OF_BYTES_USED:
 *       an upper bound of the most held at once since start or the last truncate (docs/accounting.md)</td></tr>
 *   <tr><td>{@code memscope.accounting.objects}, {@code .objects.high} (gauges)</td><td>instrument</td><td>the same
 *       for counts (CURRENT_COUNT_USED, HIGH_COUNT_USED)</td></tr>
 *   <tr><td>{@code memscope.accounting.allocations}, {@code .frees} (counters)</td><td>instrument</td><td>COUNT_ALLOC,
 *       COUNT_FREE; {@code truncate()} restarts them, which a Prometheus {@code rate()} reads as a counter reset</td></tr>
 *   <tr><td>{@code memscope.accounting.allocated}, {@code .freed} (counters, bytes)</td><td>instrument</td><td>SUM_..._ALLOC,
 *       SUM_..._FREE</td></tr>
 *   <tr><td>{@code memscope.accounting.user.used}, {@code .user.used.high}, {@code .user.objects}</td>
 *       <td>instrument, user</td><td>the USER table, for instruments {@link Builder#perOwner marked} for it: at most
 *       {@link Builder#maxOwners} users with rows of their own, chosen among those holding most and kept for at least
 *       {@link Builder#minRefreshesShown} refreshes ({@link StickyTop}), and {@code user="other"} for the rest
 *       together</td></tr>
 *   <tr><td>{@code memscope.accounting.host.*}</td><td>instrument, host</td><td>the same from the HOST table</td></tr>
 *   <tr><td>{@code memscope.budget.limit}, {@code .used}, {@code .peak} (gauges, bytes)</td><td>kind, target</td>
 *       <td>each budget: its limit, its exact bytes used, the most used at once since it was set</td></tr>
 *   <tr><td>{@code memscope.budget.exceeded}, {@code .refusals} (counters)</td><td>kind, target</td><td>times used
 *       bytes went over the limit; {@code tryAlloc} calls refused</td></tr>
 *   <tr><td>{@code memscope.agent.heap.live} (gauge, bytes)</td><td></td><td>with the agent: estimated heap bytes of
 *       sampled objects not yet seen collected (garbage counts until the GC that frees it)</td></tr>
 *   <tr><td>{@code memscope.agent.heap.held} (gauge, bytes)</td><td></td><td>estimated heap bytes held: reachable
 *       at the latest collection that examined the whole heap (a full collection, the end of a G1 marking, a ZGC
 *       major or Shenandoah cycle) and not collected since; 0 before the first such collection. What survived only
 *       young collections is never in it: flat for an application that does not leak</td></tr>
 *   <tr><td>{@code memscope.agent.heap.unconfirmed} (gauge, bytes)</td><td></td><td>estimated heap bytes that
 *       survived collections but that no whole-heap collection judged yet: may be garbage (promoted objects since
 *       dropped); rises between whole-heap collections, falls at each</td></tr>
 *   <tr><td>{@code memscope.agent.heap.allocated} (counter, bytes)</td><td></td><td>estimated heap bytes allocated
 *       since the capture started</td></tr>
 *   <tr><td>{@code memscope.agent.site.held} (gauge, bytes)</td><td>site, type</td><td>the {@link Builder#topSites}
 *       sites holding the most (held as {@code memscope.agent.heap.held}), estimated, kept like the users;
 *       {@code site} is a frame with its line, or with {@link Builder#sitesByMethod} without it (the lines of a
 *       method summed)</td></tr>
 *   <tr><td>{@code memscope.agent.native.outstanding} (gauge, bytes)</td><td></td><td>direct and Unsafe memory not
 *       freed: exact</td></tr>
 *   <tr><td>{@code memscope.agent.samples.dropped}, {@code memscope.agent.failures} (counters)</td><td></td><td>samples
 *       the agent could not record; failures it counted instead of throwing</td></tr>
 * </table>
 *
 * <p>Values come from one snapshot of the tables and the agent ({@link AccountingSnapshot}), taken again when a
 * meter is read and the last one is older than {@link Builder#maxAge} (default 1 s). Which rows exist (new
 * instruments, budgets, the top users, hosts and sites) is decided by {@link #refresh()}, which a daemon thread
 * {@code memscope-metrics} calls every {@link Builder#refreshEvery} (default 10 s; zero: only when you call it).
 * The agent's meters exist when an agent runs when the binder is bound. Reading never throws into the scrape and
 * never gives NaN: a meter whose row has just gone (until the next refresh removes it), or whose source cannot be
 * read, keeps its last value (0 if it never had one).
 */
public final class MemscopeMetrics implements MeterBinder, AutoCloseable {
    private final MemoryAccounting accounting;
    private final AgentClient agent;
    private final Set<String> perOwner;
    private final int maxOwners;
    private final int topSites;
    private final int tenure;
    private final boolean sitesByMethod;
    private final long maxAgeNanos;
    private final long refreshMillis;
    private final Tags extraTags;

    private volatile AccountingSnapshot snapshot = AccountingSnapshot.EMPTY;
    private MeterRegistry registry;
    private ScheduledExecutorService scheduler;
    /** The agent's meters, registered once. */
    private final List<Meter> fixed = new ArrayList<>();
    /** Meters of rows that come and go, by row key. */
    private final Map<String, List<Meter>> rows = new HashMap<>();
    /**
     * Per marked instrument: the users / hosts that have meters of their own (the rest is "other"). Replaced whole by
     * {@link #refresh()}, read by gauges without a lock (a scrape never waits for a refresh).
     */
    private volatile Map<String, Set<String>> shownUsers = Map.of();
    private volatile Map<String, Set<String>> shownHosts = Map.of();
    /** Per marked instrument, which users / hosts have rows of their own: stable across refreshes. */
    private final Map<String, StickyTop> userTops = new HashMap<>();
    private final Map<String, StickyTop> hostTops = new HashMap<>();
    private final StickyTop siteTop;

    private MemscopeMetrics(Builder b) {
        this.accounting = b.accounting;
        this.agent = b.agent;
        this.perOwner = Set.copyOf(b.perOwner);
        this.maxOwners = b.maxOwners;
        this.topSites = b.topSites;
        this.tenure = b.tenure;
        this.sitesByMethod = b.sitesByMethod;
        this.siteTop = new StickyTop(b.topSites, b.tenure);
        this.maxAgeNanos = b.maxAgeMillis * 1_000_000L;
        this.refreshMillis = b.refreshMillis;
        this.extraTags = b.tags;
    }

    /** @return a binder of {@link MemoryAccounting#global()} and the agent in this JVM, with the defaults */
    public static MemscopeMetrics create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (this.registry != null) {
            throw new IllegalStateException("this MemscopeMetrics is already bound to a registry");
        }
        this.registry = registry;
        if (agent.isPresent()) {
            bindAgent();
        }
        refresh();
        if (refreshMillis > 0) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "memscope-metrics");
                t.setDaemon(true);
                return t;
            });
            scheduler.scheduleWithFixedDelay(this::refreshQuietly, refreshMillis, refreshMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void bindAgent() {
        fixed.add(gauge("memscope.agent.heap.live", Tags.empty(), "bytes",
                "estimated heap bytes of sampled objects not yet seen collected (memscope agent)",
                s -> s.agent() == null ? Double.NaN : s.agent().liveBytes()));
        fixed.add(gauge("memscope.agent.heap.held", Tags.empty(), "bytes",
                "estimated heap bytes reachable at the latest collection of the whole heap (memscope agent)",
                s -> s.agent() == null ? Double.NaN : s.agent().heldBytes()));
        fixed.add(gauge("memscope.agent.heap.unconfirmed", Tags.empty(), "bytes",
                "estimated heap bytes no collection of the whole heap judged yet: may be garbage (memscope agent)",
                s -> s.agent() == null ? Double.NaN : s.agent().unconfirmedBytes()));
        fixed.add(counter("memscope.agent.heap.allocated", Tags.empty(), "bytes",
                "estimated heap bytes allocated since the capture started (memscope agent)",
                s -> s.agent() == null ? Double.NaN : s.agent().allocatedBytes()));
        fixed.add(gauge("memscope.agent.native.outstanding", Tags.empty(), "bytes",
                "direct and Unsafe native memory allocated and not freed; exact (memscope agent)",
                s -> s.agent() == null ? Double.NaN : s.agent().nativeOutstandingBytes()));
        fixed.add(counter("memscope.agent.samples.dropped", Tags.empty(), null,
                "heap samples the memscope agent could not record", s -> s.agent() == null ? Double.NaN
                        : s.agent().droppedSamples()));
        fixed.add(counter("memscope.agent.failures", Tags.empty(), null,
                "failures the memscope agent counted instead of throwing", s -> s.agent() == null ? Double.NaN
                        : s.agent().failures()));
    }

    /**
     * Registers meters for rows that appeared (instruments, budgets, users and hosts now among the top, sites now
     * among the top) and removes those of rows that left the bounded sets. Called by the {@code memscope-metrics}
     * thread; call it yourself with {@code refreshEvery(Duration.ZERO)}.
     */
    public synchronized void refresh() {
        if (registry == null) {
            throw new IllegalStateException("bind it to a registry first");
        }
        AccountingSnapshot s = take();
        snapshot = s;
        Set<String> wanted = new HashSet<>();
        for (String instrument : s.global().keySet()) {
            wanted.add(instrumentRow(instrument));
        }
        for (String b : s.budgets().keySet()) {
            wanted.add(budgetRow(b));
        }
        Map<String, Set<String>> users = new HashMap<>();
        Map<String, Set<String>> hosts = new HashMap<>();
        for (String instrument : perOwner) {
            users.put(instrument, userTops.computeIfAbsent(instrument, k -> new StickyTop(maxOwners, tenure))
                    .update(owners(s.byUser(), instrument)));
            hosts.put(instrument, hostTops.computeIfAbsent(instrument, k -> new StickyTop(maxOwners, tenure))
                    .update(owners(s.byHost(), instrument)));
            for (String u : users.get(instrument)) {
                wanted.add(ownerRow("user", instrument, u));
            }
            for (String h : hosts.get(instrument)) {
                wanted.add(ownerRow("host", instrument, h));
            }
            if (s.global().containsKey(instrument)) {
                wanted.add(ownerRow("user", instrument, null));
                wanted.add(ownerRow("host", instrument, null));
            }
        }
        for (String site : siteTop.update(s.sites())) {
            wanted.add(siteRow(site));
        }
        shownUsers = Map.copyOf(users);
        shownHosts = Map.copyOf(hosts);
        for (String key : new ArrayList<>(rows.keySet())) {
            if (!wanted.contains(key)) {
                rows.remove(key).forEach(registry::remove);
            }
        }
        for (String key : wanted) {
            if (!rows.containsKey(key)) {
                rows.put(key, register(key));
            }
        }
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // the next refresh tries again; the application never hears of it
        }
    }

    /** @return the users (or hosts) of an instrument and the bytes each holds now */
    private static Map<String, Double> owners(Map<String, SummaryRow> table, String instrument) {
        Map<String, Double> owners = new HashMap<>();
        String prefix = instrument + "\u0000";
        for (Map.Entry<String, SummaryRow> e : table.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                SummaryRow r = e.getValue();
                owners.put(Objects.toString(r.user() != null ? r.user() : r.host(), ""),
                        (double) r.get(Column.CURRENT_NUMBER_OF_BYTES_USED));
            }
        }
        return owners;
    }

    /** Asks the agent for a few times the rows shown: enough to see a shown site fall far behind another. */
    private AccountingSnapshot take() {
        int rows = topSites == 0 ? 0 : Math.min(AgentClient.MAX_ROWS, Math.max(4 * topSites, topSites + 10));
        return AccountingSnapshot.take(accounting, agent, rows, sitesByMethod);
    }

    // Row keys: kind|parts, with \0 between parts.
    private static String instrumentRow(String instrument) {
        return "i\u0000" + instrument;
    }

    private static String budgetRow(String budgetKey) {
        return "b\u0000" + budgetKey;
    }

    /** @param owner a user or host with meters of its own, or null for "other" */
    private static String ownerRow(String kind, String instrument, String owner) {
        return (kind.equals("user") ? "u" : "h") + "\u0000" + instrument + "\u0000" + (owner == null ? "\u0001" : owner);
    }

    private static String siteRow(String siteKey) {
        return "s\u0000" + siteKey;
    }

    private List<Meter> register(String key) {
        String[] p = key.split("\u0000", -1);
        List<Meter> m = new ArrayList<>();
        switch (p[0]) {
            case "i": {
                String name = p[1];
                Tags t = Tags.of("instrument", name);
                m.add(gauge("memscope.accounting.used", t, "bytes", "bytes held now (CURRENT_NUMBER_OF_BYTES_USED)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.CURRENT_NUMBER_OF_BYTES_USED)));
                m.add(gauge("memscope.accounting.used.high", t, "bytes",
                        "upper bound of the most bytes held at once (HIGH_NUMBER_OF_BYTES_USED)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.HIGH_NUMBER_OF_BYTES_USED)));
                m.add(gauge("memscope.accounting.objects", t, null, "allocations not freed (CURRENT_COUNT_USED)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.CURRENT_COUNT_USED)));
                m.add(gauge("memscope.accounting.objects.high", t, null,
                        "upper bound of the most allocations held at once (HIGH_COUNT_USED)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.HIGH_COUNT_USED)));
                m.add(counter("memscope.accounting.allocations", t, null, "allocations (COUNT_ALLOC)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.COUNT_ALLOC)));
                m.add(counter("memscope.accounting.frees", t, null, "frees (COUNT_FREE)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.COUNT_FREE)));
                m.add(counter("memscope.accounting.allocated", t, "bytes", "bytes allocated (SUM_NUMBER_OF_BYTES_ALLOC)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.SUM_NUMBER_OF_BYTES_ALLOC)));
                m.add(counter("memscope.accounting.freed", t, "bytes", "bytes freed (SUM_NUMBER_OF_BYTES_FREE)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.SUM_NUMBER_OF_BYTES_FREE)));
                m.add(counter("memscope.accounting.anomalies", t, null, "bad calls counted (COUNT_ANOMALIES)",
                        s -> AccountingSnapshot.value(s.global().get(name), Column.COUNT_ANOMALIES)));
                return m;
            }
            case "b": {
                String budgetKey = p[1] + "\u0000" + p[2];
                Tags t = Tags.of("kind", p[1], "target", p[2]);
                m.add(gauge("memscope.budget.limit", t, "bytes", "the budget's limit",
                        s -> budget(s, budgetKey, Budget::limitBytes)));
                m.add(gauge("memscope.budget.used", t, "bytes", "bytes charged to the budget now (exact)",
                        s -> budget(s, budgetKey, Budget::usedBytes)));
                m.add(gauge("memscope.budget.peak", t, "bytes", "most bytes charged at once since the budget was set",
                        s -> budget(s, budgetKey, Budget::peakBytes)));
                m.add(counter("memscope.budget.exceeded", t, null, "times used bytes went over the limit",
                        s -> budget(s, budgetKey, Budget::exceededCount)));
                m.add(counter("memscope.budget.refusals", t, null, "tryAlloc calls the budget refused",
                        s -> budget(s, budgetKey, Budget::refusals)));
                return m;
            }
            case "u":
            case "h": {
                boolean user = p[0].equals("u");
                String instrument = p[1];
                String owner = p[2].equals("\u0001") ? null : p[2];
                String kind = user ? "user" : "host";
                Tags t = Tags.of("instrument", instrument, kind, owner == null ? "other" : owner.isEmpty() ? "none" : owner);
                String prefix = "memscope.accounting." + kind;
                m.add(gauge(prefix + ".used", t, "bytes", "bytes held now by this " + kind,
                        s -> owners(s, user, instrument, owner, Column.CURRENT_NUMBER_OF_BYTES_USED)));
                m.add(gauge(prefix + ".used.high", t, "bytes", "upper bound of the most bytes this " + kind + " held at once",
                        s -> owners(s, user, instrument, owner, Column.HIGH_NUMBER_OF_BYTES_USED)));
                m.add(gauge(prefix + ".objects", t, null, "allocations not freed by this " + kind,
                        s -> owners(s, user, instrument, owner, Column.CURRENT_COUNT_USED)));
                return m;
            }
            default: {
                String siteKey = p[1] + "\u0000" + p[2];
                Tags t = Tags.of("site", p[1], "type", p[2]);
                m.add(gauge("memscope.agent.site.held", t, "bytes",
                        "estimated heap bytes of this site's objects reachable at the last GC (memscope agent)",
                        s -> {
                            Double held = s.sites().get(siteKey);
                            return held == null ? Double.NaN : held;
                        }));
                return m;
            }
        }
    }

    private static double budget(AccountingSnapshot s, String key, ToDoubleFunction<Budget> f) {
        Budget b = s.budgets().get(key);
        return b == null ? Double.NaN : f.applyAsDouble(b);
    }

    /** One owner's value, or (owner null) the sum over the owners without meters of their own. */
    private double owners(AccountingSnapshot s, boolean user, String instrument, String owner, Column c) {
        Map<String, SummaryRow> table = user ? s.byUser() : s.byHost();
        if (owner != null) {
            return AccountingSnapshot.value(table.get(AccountingSnapshot.key(instrument, owner.isEmpty() ? null : owner)), c);
        }
        Set<String> shown = (user ? shownUsers : shownHosts).getOrDefault(instrument, Set.of());
        double sum = 0;
        String prefix = instrument + "\u0000";
        for (Map.Entry<String, SummaryRow> e : table.entrySet()) {
            if (e.getKey().startsWith(prefix) && !shown.contains(e.getKey().substring(prefix.length()))) {
                sum += e.getValue().get(c);
            }
        }
        return sum;
    }

    /** @return the latest snapshot, taken again when older than {@code maxAge} */
    private AccountingSnapshot current() {
        AccountingSnapshot s = snapshot;
        if (System.nanoTime() - s.takenNanos() > maxAgeNanos) {
            try {
                s = take();
                snapshot = s;
            } catch (RuntimeException e) {
                return s; // keep serving the last one
            }
        }
        return s;
    }

    private Meter gauge(String name, Tags tags, String unit, String description,
                        ToDoubleFunction<AccountingSnapshot> f) {
        LastValue v = new LastValue(f);
        return Gauge.builder(name, this, m -> v.read(m.current())).tags(tags.and(extraTags)).baseUnit(unit)
                .description(description).strongReference(true).register(registry);
    }

    private Meter counter(String name, Tags tags, String unit, String description,
                          ToDoubleFunction<AccountingSnapshot> f) {
        LastValue v = new LastValue(f);
        return FunctionCounter.builder(name, this, m -> v.read(m.current())).tags(tags.and(extraTags))
                .baseUnit(unit).description(description).register(registry);
    }

    /**
     * A meter's value that is never NaN: a row gone from the snapshot (it left a bounded set, its budget was removed,
     * the agent stopped) reads the last value it had, until the next refresh removes its meter; 0 if it never had
     * one. A scrape, and a sum over series, never sees NaN.
     */
    private static final class LastValue {
        private final ToDoubleFunction<AccountingSnapshot> f;
        private volatile double last;

        LastValue(ToDoubleFunction<AccountingSnapshot> f) {
            this.f = f;
        }

        double read(AccountingSnapshot s) {
            double v;
            try {
                v = f.applyAsDouble(s);
            } catch (RuntimeException e) {
                v = Double.NaN;
            }
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                return last;
            }
            last = v;
            return v;
        }
    }

    /** Stops the refresh thread and removes the meters this binder registered. */
    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        if (registry != null) {
            fixed.forEach(registry::remove);
            fixed.clear();
            rows.values().forEach(meters -> meters.forEach(registry::remove));
            rows.clear();
        }
    }

    /** Settings of a {@link MemscopeMetrics}. */
    public static final class Builder {
        private MemoryAccounting accounting = MemoryAccounting.global();
        private AgentClient agent = AgentClient.platform();
        private final Set<String> perOwner = new LinkedHashSet<>();
        private int maxOwners = 20;
        private int topSites = 10;
        private int tenure = 30;
        private boolean sitesByMethod;
        private long maxAgeMillis = 1000;
        private long refreshMillis = 10_000;
        private Tags tags = Tags.empty();

        private Builder() {
        }

        /** The accounting registry to expose (default {@link MemoryAccounting#global()}); null: none. */
        public Builder accounting(MemoryAccounting accounting) {
            this.accounting = accounting;
            return this;
        }

        /** Also break these instruments down by user and by host (bounded by {@link #maxOwners}). */
        public Builder perOwner(String... instruments) {
            perOwner.addAll(List.of(instruments));
            return this;
        }

        /** Users (and hosts) with meters of their own per marked instrument, the ones holding most (default 20). */
        public Builder maxOwners(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("maxOwners must be >= 0: " + n);
            }
            this.maxOwners = n;
            return this;
        }

        /** The agent's sites with meters of their own, the ones holding most (default 10; 0: none). */
        public Builder topSites(int n) {
            if (n < 0 || n > AgentClient.MAX_ROWS) {
                throw new IllegalArgumentException("topSites must be 0.." + AgentClient.MAX_ROWS + ": " + n);
            }
            this.topSites = n;
            return this;
        }

        /**
         * How many refreshes a user, host or site that got rows of its own keeps them at least (default 30: 5 minutes
         * at the default {@link #refreshEvery} of 10 s). Afterwards it gives its place only to one holding more than
         * twice as much, or leaves when it holds nothing: over {@code n} refreshes at most
         * {@code maxOwners × (1 + n / minRefreshesShown)} distinct users get rows of their own (the same for hosts
         * and sites), however the ranking moves; Prometheus stores no more series than that.
         */
        public Builder minRefreshesShown(int refreshes) {
            if (refreshes < 1) {
                throw new IllegalArgumentException("minRefreshesShown must be >= 1: " + refreshes);
            }
            this.tenure = refreshes;
            return this;
        }

        /**
         * Names the agent's sites by method ({@code pkg.Class.method(File.java)}, the lines of a method summed)
         * instead of by line (default false). Line numbers change with every deploy that moves code, and each new
         * label is a new series; method-level sites survive such deploys, at the price of not telling two lines of
         * one method apart (and of summing only the lines among the rows read from the agent, a few times
         * {@link #topSites}).
         */
        public Builder sitesByMethod(boolean byMethod) {
            this.sitesByMethod = byMethod;
            return this;
        }

        /** How old a snapshot a meter may read before a new one is taken (default 1 s). */
        public Builder maxAge(java.time.Duration age) {
            this.maxAgeMillis = age.toMillis();
            return this;
        }

        /** How often the rows (instruments, budgets, top owners and sites) are refreshed (default 10 s; zero: never). */
        public Builder refreshEvery(java.time.Duration period) {
            this.refreshMillis = period.toMillis();
            return this;
        }

        /** Tags added to every meter (e.g. the application's name). */
        public Builder tags(Tags tags) {
            this.tags = Objects.requireNonNull(tags);
            return this;
        }

        /** The agent to read (default: the one in this JVM, if any). For tests. */
        Builder agent(AgentClient agent) {
            this.agent = agent;
            return this;
        }

        public MemscopeMetrics build() {
            return new MemscopeMetrics(this);
        }
    }
}
