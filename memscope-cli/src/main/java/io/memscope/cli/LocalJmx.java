package io.memscope.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import io.memscope.error.MemscopeException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads MBeans of a running JVM of the same user: attaches (jdk.attach), starts its local JMX agent
 * ({@code startLocalManagementAgent}, a local-only connector) and connects. For this JVM's own pid, the platform
 * MBean server is used directly.
 */
final class LocalJmx {
    /** What to read over the connection. */
    interface Reader<T> {
        T read(MBeanServerConnection server) throws Exception;
    }

    private LocalJmx() {
    }

    /** An open connection to a JVM's MBean server; closing it closes the JMX connector (if any). */
    static final class Connection implements AutoCloseable {
        final MBeanServerConnection server;
        private final JMXConnector connector;

        private Connection(MBeanServerConnection server, JMXConnector connector) {
            this.server = server;
            this.connector = connector;
        }

        /**
         * Closes the connector, waiting at most 2 s: closing makes a remote call, which a frozen or dying JVM may
         * never answer, and a command (q in {@code memscope top}) must not hang on it. The JVM exit closes the
         * socket anyway.
         */
        @Override
        public void close() {
            if (connector == null) {
                return;
            }
            Thread t = new Thread(() -> {
                try {
                    connector.close();
                } catch (IOException | RuntimeException ignored) {
                    // best effort: the connection goes with this process
                }
            }, "memscope-jmx-close");
            t.setDaemon(true);
            t.start();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Connects to the JVM {@code pid} and runs {@code reader} over its MBean server.
     *
     * @throws MemscopeException (configuration) for a bad or dead pid, (system) when the JVM cannot be attached
     */
    static <T> T read(String pid, Reader<T> reader) throws Exception {
        try (Connection c = connect(pid)) {
            return reader.read(c.server);
        }
    }

    /**
     * Connects to the JVM {@code pid} (kept open until closed, for repeated reads).
     *
     * @throws MemscopeException (configuration) for a bad or dead pid, (system) when the JVM cannot be attached
     */
    static Connection connect(String pid) throws Exception {
        long id;
        try {
            id = Long.parseLong(pid);
        } catch (NumberFormatException e) {
            throw MemscopeException.configuration("'" + pid + "' is not a process id");
        }
        if (id == ProcessHandle.current().pid()) {
            return new Connection(ManagementFactory.getPlatformMBeanServer(), null);
        }
        if (ProcessHandle.of(id).map(ProcessHandle::isAlive).orElse(false) == Boolean.FALSE) {
            throw MemscopeException.configuration("no process with pid " + pid);
        }
        JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address(pid)));
        return new Connection(connector.getMBeanServerConnection(), connector);
    }

    private static String address(String pid) {
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
}
