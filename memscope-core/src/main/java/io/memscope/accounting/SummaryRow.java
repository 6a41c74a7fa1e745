package io.memscope.accounting;

import java.util.Arrays;
import java.util.Objects;

/**
 * One row of a summary table: who (thread, user, host, depending on the table), which instrument (EVENT_NAME)
 * and the {@link Column} values. Immutable.
 */
public final class SummaryRow {
    private final SummaryTable table;
    private final long threadId;
    private final String threadName;
    private final String user;
    private final String host;
    private final String eventName;
    private final long[] values;

    /**
     * Reads a row as the accounting MBean publishes it ({@code AccountingMBean}: a CompositeData of type
     * {@code io.memscope.accounting.SummaryRow}, items TABLE, THREAD_ID, THREAD_NAME, USER, HOST, EVENT_NAME and one
     * {@code Long} per {@link Column}), as {@code memscope accounting <pid>} does.
     *
     * @throws io.memscope.error.MemscopeException (analysis) when an item is missing or of the wrong type
     */
    public static SummaryRow fromCompositeData(javax.management.openmbean.CompositeData d) {
        try {
            long[] values = new long[Column.values().length];
            for (Column c : Column.values()) {
                values[c.ordinal()] = (Long) d.get(c.name());
            }
            return new SummaryRow(SummaryTable.valueOf((String) d.get("TABLE")), (Long) d.get("THREAD_ID"),
                    (String) d.get("THREAD_NAME"), (String) d.get("USER"), (String) d.get("HOST"),
                    (String) d.get("EVENT_NAME"), values);
        } catch (RuntimeException e) {
            throw io.memscope.error.MemscopeException.analysis("not a memscope summary row: " + d + " (" + e + ")", e);
        }
    }

    /**
     * @param threadId the thread id for THREAD rows, -1 otherwise
     * @param values one value per {@link Column}, in declaration order
     */
    public SummaryRow(SummaryTable table, long threadId, String threadName, String user, String host,
                      String eventName, long[] values) {
        this.table = Objects.requireNonNull(table, "table");
        this.threadId = threadId;
        this.threadName = threadName;
        this.user = user;
        this.host = host;
        this.eventName = Objects.requireNonNull(eventName, "eventName");
        if (values.length != Column.values().length) {
            throw new IllegalArgumentException("expected " + Column.values().length + " values, got " + values.length);
        }
        this.values = values.clone();
    }

    static SummaryRow of(SummaryTable table, long threadId, String threadName, String user, String host,
                         String eventName, long[] v, int b, long anomalies) {
        long curCount = v[b + Stats.ALLOC_COUNT] - v[b + Stats.FREE_COUNT];
        long curBytes = v[b + Stats.ALLOC_SIZE] - v[b + Stats.FREE_SIZE];
        long[] values = {
            v[b + Stats.ALLOC_COUNT], v[b + Stats.FREE_COUNT], v[b + Stats.ALLOC_SIZE], v[b + Stats.FREE_SIZE],
            curCount - v[b + Stats.FREE_COUNT_CAP], curCount, curCount + v[b + Stats.ALLOC_COUNT_CAP],
            curBytes - v[b + Stats.FREE_SIZE_CAP], curBytes, curBytes + v[b + Stats.ALLOC_SIZE_CAP],
            anomalies,
        };
        return new SummaryRow(table, threadId, threadName, user, host, eventName, values);
    }

    public SummaryTable table() {
        return table;
    }

    /** @return the thread id (THREAD rows), or -1 */
    public long threadId() {
        return threadId;
    }

    /** @return the thread name (THREAD rows), or null */
    public String threadName() {
        return threadName;
    }

    /** @return the user (THREAD, ACCOUNT and USER rows), or null when none was set */
    public String user() {
        return user;
    }

    /** @return the host (THREAD, ACCOUNT and HOST rows), or null when none was set */
    public String host() {
        return host;
    }

    /** @return the instrument name, {@code memory/<component>/<what>} */
    public String eventName() {
        return eventName;
    }

    public long get(Column column) {
        return values[column.ordinal()];
    }

    public long currentBytes() {
        return get(Column.CURRENT_NUMBER_OF_BYTES_USED);
    }

    public long highBytes() {
        return get(Column.HIGH_NUMBER_OF_BYTES_USED);
    }

    public long lowBytes() {
        return get(Column.LOW_NUMBER_OF_BYTES_USED);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SummaryRow)) {
            return false;
        }
        SummaryRow r = (SummaryRow) o;
        return table == r.table && threadId == r.threadId && Objects.equals(threadName, r.threadName)
                && Objects.equals(user, r.user) && Objects.equals(host, r.host) && eventName.equals(r.eventName)
                && Arrays.equals(values, r.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, threadId, user, host, eventName) * 31 + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(table.name()).append('[');
        if (threadId >= 0) {
            sb.append("thread=").append(threadId).append('/').append(threadName).append(", ");
        }
        sb.append("user=").append(user).append(", host=").append(host).append(", ").append(eventName);
        for (Column c : Column.values()) {
            sb.append(", ").append(c.name()).append('=').append(values[c.ordinal()]);
        }
        return sb.append(']').toString();
    }
}
