package io.memscope.agent.capture;

/**
 * Registers the agent's MXBean in the platform MBean server when that server exists, never creating it: creating it
 * starts every platform MXBean (JFR's among them), a large part of a small program's start-up. The agent's
 * transformer makes {@code ManagementFactory.getPlatformMBeanServer()} call {@link #ready} before it returns (the
 * hook {@code java.lang.MemscopeHooks.platformServer}), so the MXBean is there for whoever first asks for the server:
 * {@code memscope live} and {@code top} (through the JVM's local management agent), JConsole, the JUnit extension and
 * the Micrometer binder in the same JVM. When the server existed before the agent started (an attach), it is
 * registered at once.
 *
 * <p>Holds no JMX type itself (loading this class loads no JMX class): the registration is a {@link Registrar}.
 */
public final class PlatformServerGate {
    /** Registers in, and unregisters from, a platform MBean server. */
    public interface Registrar {
        void register(Object server);

        void unregister(Object server);
    }

    private static Registrar armed;
    private static Object registeredIn;

    private PlatformServerGate() {
    }

    /** Registers through {@code r} as soon as the platform server exists (now, if it does: {@code existing}). */
    public static synchronized void arm(Registrar r, Object existing) {
        armed = r;
        if (existing != null) {
            ready(existing);
        }
    }

    /** The platform MBean server exists (the hook; any thread, possibly inside the JDK's own JMX start-up). */
    public static synchronized void ready(Object server) {
        if (armed != null && server != null && registeredIn != server) {
            armed.register(server);
            registeredIn = server;
        }
    }

    /** Unregisters if registered, and registers nothing any more (end of capture). */
    public static synchronized void disarm() {
        Registrar r = armed;
        Object server = registeredIn;
        armed = null;
        registeredIn = null;
        if (r != null && server != null) {
            r.unregister(server);
        }
    }
}
