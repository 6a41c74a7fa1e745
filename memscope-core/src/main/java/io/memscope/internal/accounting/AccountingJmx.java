package io.memscope.internal.accounting;

import io.memscope.accounting.Column;
import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Publishes a registry's tables over JMX ({@link AccountingMBean}) and converts rows to and from
 * {@link CompositeData}, for the {@code memscope accounting <pid>} command.
 */
public final class AccountingJmx {
    /** The name the {@link MemoryAccounting#global()} registry is registered under. */
    public static final String OBJECT_NAME = MemoryAccounting.MBEAN_NAME;
    /** The name of the row's CompositeType. */
    public static final String ROW_TYPE = "io.memscope.accounting.SummaryRow";

    private static final String[] KEYS;
    private static final CompositeType TYPE;

    static {
        List<String> keys = new ArrayList<>(List.of("TABLE", "THREAD_ID", "THREAD_NAME", "USER", "HOST", "EVENT_NAME"));
        List<OpenType<?>> types = new ArrayList<>(List.of(SimpleType.STRING, SimpleType.LONG, SimpleType.STRING,
                SimpleType.STRING, SimpleType.STRING, SimpleType.STRING));
        for (Column c : Column.values()) {
            keys.add(c.name());
            types.add(SimpleType.LONG);
        }
        KEYS = keys.toArray(new String[0]);
        try {
            TYPE = new CompositeType(ROW_TYPE, "One row of a memscope memory summary table", KEYS, KEYS,
                    types.toArray(new OpenType<?>[0]));
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AccountingJmx() {
    }

    /**
     * Registers {@code registry} in the platform MBean server under {@code name}, replacing what was there. A
     * failure (no JMX in this runtime, bad name) is reported to {@link Failures} and is not thrown.
     *
     * @return true if registered
     */
    public static boolean register(MemoryAccounting registry, String name) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName on = new ObjectName(name);
            if (server.isRegistered(on)) {
                server.unregisterMBean(on);
            }
            server.registerMBean(new StandardMBean(new View(registry), AccountingMBean.class), on);
            return true;
        } catch (Throwable t) {
            Failures.report("accounting.jmx", MemscopeException.system("cannot register MBean " + name + ": " + t, t));
            return false;
        }
    }

    /** @return {@code row} as CompositeData of type {@value #ROW_TYPE} */
    public static CompositeData toCompositeData(SummaryRow row) {
        Object[] values = new Object[KEYS.length];
        values[0] = row.table().name();
        values[1] = row.threadId();
        values[2] = row.threadName();
        values[3] = row.user();
        values[4] = row.host();
        values[5] = row.eventName();
        for (Column c : Column.values()) {
            values[6 + c.ordinal()] = row.get(c);
        }
        try {
            return new CompositeDataSupport(TYPE, KEYS, values);
        } catch (OpenDataException e) {
            throw MemscopeException.internal("cannot build CompositeData for " + row, e);
        }
    }

    /**
     * Reads rows written by {@link #toCompositeData}.
     *
     * @throws MemscopeException (analysis) when an item is missing or of the wrong type
     */
    public static List<SummaryRow> toRows(CompositeData[] data) {
        List<SummaryRow> rows = new ArrayList<>(data == null ? 0 : data.length);
        if (data == null) {
            return rows;
        }
        for (CompositeData d : data) {
            rows.add(SummaryRow.fromCompositeData(d));
        }
        return rows;
    }

    static CompositeData[] table(MemoryAccounting registry, SummaryTable table) {
        List<SummaryRow> rows = registry.summary(table);
        CompositeData[] out = new CompositeData[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = toCompositeData(rows.get(i));
        }
        return out;
    }

    /** The MBean implementation: a view of one registry. */
    static final class View implements AccountingMBean {
        private final MemoryAccounting registry;

        View(MemoryAccounting registry) {
            this.registry = registry;
        }

        @Override
        public CompositeData[] getThreadTable() {
            return table(registry, SummaryTable.THREAD);
        }

        @Override
        public CompositeData[] getAccountTable() {
            return table(registry, SummaryTable.ACCOUNT);
        }

        @Override
        public CompositeData[] getUserTable() {
            return table(registry, SummaryTable.USER);
        }

        @Override
        public CompositeData[] getHostTable() {
            return table(registry, SummaryTable.HOST);
        }

        @Override
        public CompositeData[] getGlobalTable() {
            return table(registry, SummaryTable.GLOBAL);
        }

        @Override
        public String[] getInstrumentNames() {
            return registry.instruments().stream().map(Instrument::name).toArray(String[]::new);
        }

        @Override
        public int getThreadCount() {
            return registry.threadCount();
        }

        @Override
        public void truncate() {
            registry.truncate();
        }
    }
}
