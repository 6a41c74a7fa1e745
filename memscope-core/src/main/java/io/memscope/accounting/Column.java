package io.memscope.accounting;

/**
 * The numeric columns of every summary row (MySQL's names). Counts are numbers of calls; bytes are as passed to
 * alloc and free. CURRENT = ALLOC - FREE; LOW = CURRENT - free capacity; HIGH = CURRENT + alloc capacity
 * (MySQL's identities). At thread level LOW and HIGH are the exact minimum and maximum of CURRENT since the
 * thread's stats began (or the last truncate); at aggregate levels they are bounds, see docs/accounting.md.
 */
public enum Column {
    COUNT_ALLOC,
    COUNT_FREE,
    SUM_NUMBER_OF_BYTES_ALLOC,
    SUM_NUMBER_OF_BYTES_FREE,
    LOW_COUNT_USED,
    CURRENT_COUNT_USED,
    HIGH_COUNT_USED,
    LOW_NUMBER_OF_BYTES_USED,
    CURRENT_NUMBER_OF_BYTES_USED,
    HIGH_NUMBER_OF_BYTES_USED,
    /** Bad calls on this instrument (bad size, over-free, unknown owner...); global table only, 0 elsewhere. */
    COUNT_ANOMALIES
}
