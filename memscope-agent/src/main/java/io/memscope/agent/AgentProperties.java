package io.memscope.agent;

import io.memscope.internal.error.Failures;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Publishes a value in the JVM's agent properties: the properties a tool reads from outside with
 * {@code VirtualMachine.getAgentProperties()} (the JDK's own management agent publishes its local connector address
 * there). memscope publishes where the recording of the capture is, so that {@code memscope attach} and
 * {@code memscope detach} build the report from it without being told the output directory again.
 *
 * <p>The table lives in {@code jdk.internal.vm.VMSupport} (JDK 17 to 25): its package is exported to the agent's
 * module with {@link Instrumentation#redefineModule}, by {@link io.memscope.agent.boot.BootHooks} in the same call
 * that opens {@code java.lang} (here only when that did not happen). A failure only means the tools fall back to searching the
 * output directory; it is counted, never thrown.
 */
final class AgentProperties {
    private AgentProperties() {
    }

    /** @param value the value, or null to remove the key */
    static void publish(Instrumentation inst, String key, String value) {
        try {
            Module base = Object.class.getModule();
            Module self = AgentProperties.class.getModule();
            String pkg = io.memscope.agent.boot.BootHooks.AGENT_PROPERTIES_PACKAGE;
            if (!base.isExported(pkg, self)) {
                inst.redefineModule(base, Set.of(), Map.of(pkg, Set.of(self)), Map.of(), Set.of(), Map.of());
            }
            Class<?> support = Class.forName("jdk.internal.vm.VMSupport");
            Properties p = (Properties) support.getMethod("getAgentProperties").invoke(null);
            if (value == null) {
                p.remove(key);
            } else {
                p.setProperty(key, value);
            }
        } catch (Throwable t) {
            Failures.report("agent.properties", t);
        }
    }
}
