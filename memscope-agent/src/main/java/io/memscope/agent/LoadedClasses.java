package io.memscope.agent;

import io.memscope.agent.boot.BootHooks;
import io.memscope.agent.instrument.MemscopeTransformer;
import io.memscope.internal.error.Failures;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The classes the JVM loaded before a transformer was installed, brought under it and back: retransformed when the
 * agent starts ({@link #retransformLoaded}) or when the bytecode heap hooks replace the JVM's sampler
 * ({@link #retransformForHeapHooks}), and restored to their original code at a detach ({@link #restore}). Classes
 * are retransformed in batches of 64, one by one when a batch fails, each failure counted.
 */
final class LoadedClasses {
    private final Instrumentation inst;
    /** The MXBean is registered ({@code jmx}): {@code ManagementFactory} is hooked unless its server exists. */
    private final boolean jmx;

    LoadedClasses(Instrumentation inst, boolean jmx) {
        this.inst = inst;
        this.jmx = jmx;
    }

    /**
     * Retransforms every loaded class {@code transformer} wants for the heap hooks, but {@code Unsafe} and
     * {@code ManagementFactory} (retransformed at start already).
     */
    void retransformForHeapHooks(MemscopeTransformer transformer) {
        List<Class<?>> todo = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            try {
                if (transformer.wants(c) && !c.getName().equals("jdk.internal.misc.Unsafe")
                        && !c.getName().equals("java.lang.management.ManagementFactory")) {
                    todo.add(c);
                }
            } catch (Throwable e) {
                Failures.report("agent.retransform.select", e);
            }
        }
        retransform(todo);
    }

    /**
     * Retransforms the classes loaded before the agent that it changes: {@code Unsafe} (native memory), the classes
     * the bytecode hooks instrument, and {@code ManagementFactory} when it was loaded already and the platform MBean
     * server does not exist yet.
     *
     * @return the platform MBean server when it existed before the agent started (an attach), else null
     */
    Object retransformLoaded(MemscopeTransformer transformer) {
        List<Class<?>> todo = new ArrayList<>();
        Object server = null;
        // Usually only Unsafe and ManagementFactory can be wanted: the other classes are not asked their names (the
        // JVM makes each name string at its first getName(), about a thousand classes at start).
        Class<?> unsafe = null;
        Module management = null;
        boolean jdkOnly = transformer.jdkClassesOnly();
        if (jdkOnly) {
            try {
                unsafe = Class.forName("jdk.internal.misc.Unsafe", false, null);
            } catch (Throwable t) {
                jdkOnly = false; // an unknown JDK: every class is looked at
            }
            management = ModuleLayer.boot().findModule("java.management").orElse(null);
        }
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (jdkOnly && c != unsafe && (management == null || c.getModule() != management)) {
                continue;
            }
            try {
                if (jmx && c.getName().equals("java.lang.management.ManagementFactory")) {
                    server = existingPlatformServer(c);
                    if (server == null && transformer.wants(c)) {
                        todo.add(c);
                    }
                } else if (transformer.wants(c)) {
                    todo.add(c);
                }
            } catch (Throwable t) {
                Failures.report("agent.retransform.select", t);
            }
        }
        retransform(todo);
        return server;
    }

    /** @return the platform MBean server if {@code ManagementFactory} made it already, else null */
    private Object existingPlatformServer(Class<?> managementFactory) {
        try {
            inst.redefineModule(managementFactory.getModule(), Set.of(), Map.of(),
                    Map.of("java.lang.management", Set.of(LoadedClasses.class.getModule())), Set.of(), Map.of());
            java.lang.reflect.Field f = managementFactory.getDeclaredField("platformMBeanServer");
            f.setAccessible(true);
            return f.get(null);
        } catch (Throwable t) {
            // an unknown JDK layout: the retransformed class will announce the server when it is asked for
            return null;
        }
    }

    private void retransform(List<Class<?>> classes) {
        for (int i = 0; i < classes.size(); i += 64) {
            List<Class<?>> batch = classes.subList(i, Math.min(classes.size(), i + 64));
            try {
                inst.retransformClasses(batch.toArray(new Class<?>[0]));
            } catch (Throwable batchFailed) {
                for (Class<?> c : batch) {
                    try {
                        inst.retransformClasses(c);
                    } catch (Throwable t) {
                        Failures.report("agent.retransform " + c.getName(), t);
                    }
                }
            }
        }
    }

    /** Retransforms the classes {@code transformer} changed back to their original code (a detach). */
    void restore(MemscopeTransformer transformer) {
        if (transformer == null) {
            return;
        }
        Set<String> names = transformer.transformedClasses();
        List<Class<?>> todo = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            String name = c.getName().replace('.', '/');
            if (!c.isArray() && names.contains(name) && !BootHooks.jdkClassHooked0(name)
                    && inst.isModifiableClass(c)) {
                todo.add(c);
            }
        }
        retransform(todo);
    }
}
