package io.memscope.accounting;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** Test helpers to pick rows. */
final class Rows {
    private Rows() {
    }

    static SummaryRow global(MemoryAccounting acct, String event) {
        return one(acct.summary(SummaryTable.GLOBAL), null, null, event);
    }

    static SummaryRow user(MemoryAccounting acct, String user, String event) {
        return one(acct.summary(SummaryTable.USER), user, null, event);
    }

    static SummaryRow host(MemoryAccounting acct, String host, String event) {
        return one(acct.summary(SummaryTable.HOST), null, host, event);
    }

    static SummaryRow account(MemoryAccounting acct, String user, String host, String event) {
        return one(acct.summary(SummaryTable.ACCOUNT), user, host, event);
    }

    static List<SummaryRow> thread(MemoryAccounting acct, long threadId, String event) {
        return acct.summary(SummaryTable.THREAD).stream()
                .filter(r -> r.threadId() == threadId && r.eventName().equals(event)).collect(Collectors.toList());
    }

    static SummaryRow one(List<SummaryRow> rows, String user, String host, String event) {
        List<SummaryRow> found = rows.stream()
                .filter(r -> Objects.equals(r.user(), user) && Objects.equals(r.host(), host)
                        && r.eventName().equals(event)).collect(Collectors.toList());
        if (found.size() > 1) {
            throw new AssertionError("several rows for " + user + "@" + host + " " + event + ": " + found);
        }
        return found.isEmpty() ? null : found.get(0);
    }

    static long[] values(SummaryRow r) {
        long[] v = new long[Column.values().length];
        for (Column c : Column.values()) {
            v[c.ordinal()] = r.get(c);
        }
        return v;
    }

    /** Runs {@code body} on a new thread and waits for it to end. */
    static void onThread(String name, Runnable body) {
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, name);
        t.start();
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (t.isAlive()) {
            throw new AssertionError("thread " + name + " did not end");
        }
        if (failure[0] != null) {
            throw new AssertionError("thread " + name + " failed", failure[0]);
        }
    }
}
