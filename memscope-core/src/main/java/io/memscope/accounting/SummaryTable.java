package io.memscope.accounting;

/** The five summary tables, named as in MySQL's performance schema. */
public enum SummaryTable {
    /** One row per (live thread, instrument): exact. */
    THREAD("MEMORY_SUMMARY_BY_THREAD_BY_EVENT_NAME"),
    /** One row per (user@host, instrument). */
    ACCOUNT("MEMORY_SUMMARY_BY_ACCOUNT_BY_EVENT_NAME"),
    /** One row per (user, instrument). */
    USER("MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME"),
    /** One row per (host, instrument). */
    HOST("MEMORY_SUMMARY_BY_HOST_BY_EVENT_NAME"),
    /** One row per instrument, over all owners; also shows COUNT_ANOMALIES. */
    GLOBAL("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME");

    private final String tableName;

    SummaryTable(String tableName) {
        this.tableName = tableName;
    }

    /** @return the MySQL table name, for example {@code MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME} */
    public String tableName() {
        return tableName;
    }
}
