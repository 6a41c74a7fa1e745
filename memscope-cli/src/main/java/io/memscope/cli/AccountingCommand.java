package io.memscope.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import io.memscope.accounting.AccountingJmx;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.accounting.SummaryTables;
import io.memscope.error.MemscopeException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code memscope accounting <pid>}: attaches to a running JVM (jdk.attach), starts its local JMX agent, reads the
 * {@value AccountingJmx#OBJECT_NAME} MBean and prints the memory summary tables.
 */
@Command(name = "accounting",
        description = "Print the memory accounting tables (by thread, account, user, host, global) of a running JVM "
                + "that uses io.memscope.accounting.MemoryAccounting.global().")
public final class AccountingCommand implements Callable<Integer> {

    /** Which tables to print. */
    enum Table { THREAD, ACCOUNT, USER, HOST, GLOBAL, ALL }

    @Parameters(index = "0", paramLabel = "<pid>", description = "Process id of the JVM.")
    String pid;

    @Option(names = "--format", paramLabel = "text|csv|json", description = "Output format (default: text).")
    SummaryTables.Format format = SummaryTables.Format.TEXT;

    @Option(names = "--json", description = "Same as --format json.")
    boolean json;

    @Option(names = "--table", paramLabel = "thread|account|user|host|global|all",
            description = "Which table to print (default: all).")
    Table table = Table.ALL;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        long id;
        try {
            id = Long.parseLong(pid);
        } catch (NumberFormatException e) {
            throw MemscopeException.configuration("'" + pid + "' is not a process id");
        }
        if (id == ProcessHandle.current().pid()) {
            print(read(ManagementFactory.getPlatformMBeanServer(), pid));
            return 0;
        }
        if (ProcessHandle.of(id).map(ProcessHandle::isAlive).orElse(false) == Boolean.FALSE) {
            throw MemscopeException.configuration("no process with pid " + pid);
        }
        String address = jmxAddress(pid);
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            print(read(connector.getMBeanServerConnection(), pid));
        }
        return 0;
    }

    private static String jmxAddress(String pid) {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (AttachNotSupportedException | IOException e) {
            throw MemscopeException.system("cannot attach to JVM " + pid + " (is it a JVM run by the same user, "
                    + "without -XX:+DisableAttachMechanism?): " + e.getMessage(), e);
        }
        try {
            return vm.startLocalManagementAgent();
        } catch (IOException e) {
            throw MemscopeException.system("cannot start the JMX agent in JVM " + pid + ": " + e.getMessage(), e);
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // the agent address is what we needed
            }
        }
    }

    private Map<SummaryTable, List<SummaryRow>> read(MBeanServerConnection server, String pid) throws Exception {
        ObjectName name = new ObjectName(AccountingJmx.OBJECT_NAME);
        if (!server.isRegistered(name)) {
            throw MemscopeException.configuration("JVM " + pid + " has no memscope accounting (no MBean "
                    + AccountingJmx.OBJECT_NAME + "): it must call io.memscope.accounting.MemoryAccounting.global()");
        }
        Map<SummaryTable, List<SummaryRow>> tables = new LinkedHashMap<>();
        for (SummaryTable t : SummaryTable.values()) {
            if (table == Table.ALL || table.name().equals(t.name())) {
                String attribute = t.name().charAt(0) + t.name().substring(1).toLowerCase(Locale.ROOT) + "Table";
                tables.put(t, AccountingJmx.toRows((CompositeData[]) server.getAttribute(name, attribute)));
            }
        }
        return tables;
    }

    private void print(Map<SummaryTable, List<SummaryRow>> tables) {
        PrintWriter out = spec.commandLine().getOut();
        out.print(SummaryTables.format(tables, json ? SummaryTables.Format.JSON : format));
        out.flush();
    }
}
