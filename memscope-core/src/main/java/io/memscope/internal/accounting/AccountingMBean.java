package io.memscope.internal.accounting;

import io.memscope.accounting.Column;
import io.memscope.accounting.MemoryAccounting;

import javax.management.openmbean.CompositeData;

/**
 * The JMX view of a {@link MemoryAccounting} registry, registered as {@code io.memscope:type=Accounting} for
 * {@link MemoryAccounting#global()}. Each table attribute is an array of rows; each row is a CompositeData of type
 * {@code io.memscope.accounting.SummaryRow} with the items TABLE, THREAD_ID, THREAD_NAME, USER, HOST, EVENT_NAME and one
 * {@code Long} item per {@link Column}. Readable by JConsole, VisualVM and any JMX client without memscope
 * classes.
 */
public interface AccountingMBean {
    CompositeData[] getThreadTable();

    CompositeData[] getAccountTable();

    CompositeData[] getUserTable();

    CompositeData[] getHostTable();

    CompositeData[] getGlobalTable();

    /** @return the names of the registered instruments */
    String[] getInstrumentNames();

    /** @return the number of live threads known to the registry */
    int getThreadCount();

    /** Truncates the summary tables (see {@link MemoryAccounting#truncate()}). */
    void truncate();
}
