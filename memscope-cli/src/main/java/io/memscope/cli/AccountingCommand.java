package io.memscope.cli;

import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.analysis.AccountingText;
import io.memscope.error.MemscopeException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code memscope accounting <pid>}: reads the {@code io.memscope:type=Accounting} MBean of a running JVM over local
 * JMX ({@link LocalJmx}) and prints the memory summary tables.
 */
@Command(name = "accounting", mixinStandardHelpOptions = true,
        description = "Print the memory accounting tables (by thread, account, user, host, global) of a running JVM "
                + "that uses io.memscope.accounting.MemoryAccounting.global().")
public final class AccountingCommand implements Callable<Integer> {

    /** Which tables to print. */
    enum Table { THREAD, ACCOUNT, USER, HOST, GLOBAL, ALL }

    @Parameters(index = "0", paramLabel = "<pid>", description = "Process id of the JVM.")
    String pid;

    @Option(names = "--format", paramLabel = "text|csv|json",
            description = "Output format (default: text); json has report.json's accounting layout.")
    AccountingText.Format format = AccountingText.Format.TEXT;

    @Option(names = "--json", description = "Same as --format json.")
    boolean json;

    @Option(names = "--table", paramLabel = "thread|account|user|host|global|all",
            description = "Which table to print (default: all).")
    Table table = Table.ALL;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        print(LocalJmx.read(pid, server -> read(server, pid)));
        return 0;
    }

    private Map<SummaryTable, List<SummaryRow>> read(MBeanServerConnection server, String pid) throws Exception {
        ObjectName name = new ObjectName(MemoryAccounting.MBEAN_NAME);
        if (!server.isRegistered(name)) {
            throw MemscopeException.configuration("JVM " + pid + " has no memscope accounting (no MBean "
                    + MemoryAccounting.MBEAN_NAME + "): it must call io.memscope.accounting.MemoryAccounting.global()");
        }
        Map<SummaryTable, List<SummaryRow>> tables = new LinkedHashMap<>();
        for (SummaryTable t : SummaryTable.values()) {
            if (table == Table.ALL || table.name().equals(t.name())) {
                String attribute = t.name().charAt(0) + t.name().substring(1).toLowerCase(Locale.ROOT) + "Table";
                List<SummaryRow> rows = new ArrayList<>();
                CompositeData[] data = (CompositeData[]) server.getAttribute(name, attribute);
                for (CompositeData d : data == null ? new CompositeData[0] : data) {
                    rows.add(SummaryRow.fromCompositeData(d));
                }
                tables.put(t, rows);
            }
        }
        return tables;
    }

    private void print(Map<SummaryTable, List<SummaryRow>> tables) {
        PrintWriter out = spec.commandLine().getOut();
        out.print(AccountingText.format(tables, json ? AccountingText.Format.JSON : format));
        out.flush();
    }
}
