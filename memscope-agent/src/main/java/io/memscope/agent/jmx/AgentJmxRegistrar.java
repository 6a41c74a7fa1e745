package io.memscope.agent.jmx;

import io.memscope.agent.capture.CaptureSession;
import io.memscope.agent.capture.PlatformServerGate;
import io.memscope.internal.error.Failures;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers the {@link AgentMXBean} in the platform MBean server handed over by {@link PlatformServerGate} (when the
 * server exists), replacing one of an earlier capture; failures are reported, never thrown.
 */
public final class AgentJmxRegistrar implements PlatformServerGate.Registrar {
    private final CaptureSession session;
    private final String mode;
    private final long intervalBytes;
    private final boolean attached;

    /** @param attached the agent was attached to the running JVM (not started with it) */
    public AgentJmxRegistrar(CaptureSession session, String mode, long intervalBytes, boolean attached) {
        this.session = session;
        this.mode = mode;
        this.intervalBytes = intervalBytes;
        this.attached = attached;
    }

    @Override
    public void register(Object server) {
        try {
            MBeanServer s = (MBeanServer) server;
            ObjectName name = new ObjectName(AgentJmx.OBJECT_NAME);
            if (s.isRegistered(name)) {
                s.unregisterMBean(name);
            }
            s.registerMBean(new AgentJmx(session, mode, intervalBytes, attached), name);
        } catch (Throwable t) {
            Failures.report("agent.jmx.register", t);
        }
    }

    @Override
    public void unregister(Object server) {
        try {
            MBeanServer s = (MBeanServer) server;
            ObjectName name = new ObjectName(AgentJmx.OBJECT_NAME);
            if (s.isRegistered(name)) {
                s.unregisterMBean(name);
            }
        } catch (Throwable t) {
            Failures.report("agent.jmx.unregister", t);
        }
    }
}
