package io.memscope.accounting;

import io.memscope.error.MemscopeException;
import io.memscope.internal.error.Failures;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.memscope.accounting.MemoryAccounting.MAX_SIZE;

/**
 * The budgets of one {@link MemoryAccounting} registry and their listeners: setting a budget on an instrument, a
 * user or a host (starting from what the summary tables say is held now), listing and removing them, and telling
 * the listeners when a budget is crossed. The charges themselves happen on the hot path
 * ({@link AccountingHotPath}), through the {@link Budget} objects the instruments and nodes point to.
 */
final class Budgets {
    private final MemoryAccounting registry;
    private final CopyOnWriteArrayList<Budget.Listener> listeners = new CopyOnWriteArrayList<>();

    Budgets(MemoryAccounting registry) {
        this.registry = registry;
    }

    /** Limits the bytes of {@code instrument} over all owners; replaces an earlier budget. */
    Budget set(Instrument instrument, long limitBytes) {
        if (instrument == null || instrument.registry != registry) {
            throw MemscopeException.configuration("budget on an instrument of another registry: " + instrument);
        }
        checkLimit(limitBytes, instrument.name);
        long used = 0;
        for (SummaryRow r : registry.summary(SummaryTable.GLOBAL)) {
            if (r.eventName().equals(instrument.name)) {
                used = r.currentBytes();
            }
        }
        Budget b = new Budget(registry, Budget.Kind.INSTRUMENT, instrument.name, limitBytes, used);
        instrument.budget = b;
        return b;
    }

    /** Limits the bytes of all per-owner instruments charged to {@code user}; replaces an earlier budget. */
    Budget setUser(String user, long limitBytes) {
        checkLimit(limitBytes, "user " + user);
        Node u = registry.users.computeIfAbsent(user, n -> new Node(Node.Kind.USER, n, null, null));
        Budget b = new Budget(registry, Budget.Kind.USER, user, limitBytes, usedBy(SummaryTable.USER, user));
        u.budget = b;
        return b;
    }

    /** Limits the bytes of all per-owner instruments charged to {@code host}; replaces an earlier budget. */
    Budget setHost(String host, long limitBytes) {
        checkLimit(limitBytes, "host " + host);
        Node h = registry.hosts.computeIfAbsent(host, n -> new Node(Node.Kind.HOST, n, null, null));
        Budget b = new Budget(registry, Budget.Kind.HOST, host, limitBytes, usedBy(SummaryTable.HOST, host));
        h.budget = b;
        return b;
    }

    /** @return every budget set now: instruments' (in registration order), then users', then hosts' */
    List<Budget> all() {
        List<Budget> out = new java.util.ArrayList<>();
        for (Instrument i : registry.instruments()) {
            Budget b = i.budget;
            if (b != null) {
                out.add(b);
            }
        }
        for (Node n : registry.users.values()) {
            if (n.budget != null) {
                out.add(n.budget);
            }
        }
        for (Node n : registry.hosts.values()) {
            if (n.budget != null) {
                out.add(n.budget);
            }
        }
        return out;
    }

    /** Removes the budget of an instrument, user or host. */
    void remove(Budget budget) {
        if (budget == null) {
            return;
        }
        switch (budget.kind()) {
            case INSTRUMENT: {
                Instrument i = registry.byName.get(budget.target());
                if (i != null && i.budget == budget) {
                    i.budget = null;
                }
                break;
            }
            case USER: {
                Node u = registry.users.get(budget.target());
                if (u != null && u.budget == budget) {
                    u.budget = null;
                }
                break;
            }
            default: {
                Node h = registry.hosts.get(budget.target());
                if (h != null && h.budget == budget) {
                    h.budget = null;
                }
            }
        }
    }

    private long usedBy(SummaryTable table, String name) {
        long used = 0;
        for (SummaryRow r : registry.summary(table)) {
            if (name.equals(table == SummaryTable.USER ? r.user() : r.host())) {
                used += r.currentBytes();
            }
        }
        return used;
    }

    private static void checkLimit(long limitBytes, String what) {
        if (limitBytes < 0 || limitBytes > MAX_SIZE) {
            throw MemscopeException.configuration("budget for " + what + " of " + limitBytes
                    + " bytes: must be 0.." + MAX_SIZE);
        }
    }

    void addListener(Budget.Listener listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    void removeListener(Budget.Listener listener) {
        listeners.remove(listener);
    }

    void crossed(Budget budget, boolean exceeded, long used) {
        RuntimeException first = null;
        for (Budget.Listener l : listeners) {
            try {
                l.crossed(budget, exceeded, used);
            } catch (Throwable t) {
                try {
                    Failures.report("accounting.budget-listener", t);
                } catch (RuntimeException strictFailure) {
                    if (first == null) {
                        first = strictFailure;
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
