package io.memscope.agent.launch;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.function.BiConsumer;

/**
 * The agent jar's {@code Premain-Class} and {@code Agent-Class}: a trampoline that checks the Java version and calls
 * {@code io.memscope.agent.Agent}, loaded with the rest of the agent by an {@code AgentClassLoader} on the agent jar
 * (this class itself comes from the system class loader, as the JVM loads it).
 *
 * <p>It never throws into the JVM unless the options ask for {@code strict=true}: a failure here prints one line
 * on stderr and the application starts without memscope. Compiled for Java 8 (nothing else in the jar is), so that
 * an older JVM started under {@code memscope run} (a build tool's daemon, say) gets that line instead of failing
 * to start because of an unreadable agent class.
 */
public final class AgentLaunch {
    /**
     * System property under which this class hands {@code io.memscope.agent.Agent}'s class initializer an
     * {@code Object[1]} to put the agent's entry point in (a {@code BiConsumer<String, Object[]>}); removed right
     * after.
     */
    public static final String ENTRY_HANDOFF = "io.memscope.agent.launch.entry";

    /** The loader of the agent's classes in this JVM, made at the first start; every later attach reuses it. */
    private static ClassLoader agentLoader;
    /** The agent's entry point, once {@code Agent} is initialized (every later attach reuses it). */
    private static BiConsumer<String, Object[]> entryPoint;

    private AgentLaunch() {
    }

    /**
     * @return the class loader of the agent's classes ({@code io.memscope.agent.*}) in this JVM: an
     *         {@code AgentClassLoader} on the agent jar, or this class's loader when the agent does not run from a
     *         jar (its classes in a directory) or that loader could not be made
     */
    public static synchronized ClassLoader agentClassLoader() {
        if (agentLoader == null) {
            ClassLoader l = AgentClassLoader.create();
            agentLoader = l != null ? l : AgentLaunch.class.getClassLoader();
        }
        return agentLoader;
    }

    public static void premain(String args, Instrumentation inst) throws Exception {
        launch("premain", args, inst);
    }

    public static void agentmain(String args, Instrumentation inst) throws Exception {
        launch("agentmain", args, inst);
    }

    private static void launch(String entry, String args, Instrumentation inst) throws Exception {
        String spec = System.getProperty("java.specification.version", "0");
        if (spec.startsWith("1.") || digits(spec) && Integer.parseInt(spec) < 17) {
            System.err.println("memscope agent: needs Java 17 or newer, this JVM is " + spec
                    + "; it runs without memscope");
            return;
        }
        BiConsumer<String, Object[]> agent;
        try {
            agent = agentEntry();
        } catch (Exception e) {
            if (strict(args)) {
                throw e;
            }
            System.err.println("memscope agent: failed to start, the application runs without memscope: " + e);
            return;
        } catch (LinkageError e) {
            if (strict(args)) {
                throw e;
            }
            System.err.println("memscope agent: failed to start, the application runs without memscope: " + e);
            return;
        }
        try {
            agent.accept(entry, new Object[] {args, inst});
        } catch (Throwable cause) {
            if (cause instanceof Exception && strict(args)) {
                throw (Exception) cause;
            }
            System.err.println("memscope agent: failed to start, the application runs without memscope: " + cause);
        }
    }

    /**
     * @return the agent's entry point: {@code io.memscope.agent.Agent}'s {@code premain} or {@code agentmain} (by the
     *         first argument) called with the agent's arguments and the instrumentation (the second). The class
     *         initializer of {@code Agent} hands it over through {@link #ENTRY_HANDOFF}; only when that cannot
     *         happen (the class was initialized before), by reflection. Not by reflection first: on JDK 18 and later
     *         a reflective call spins method-handle classes, milliseconds at every start.
     */
    private static synchronized BiConsumer<String, Object[]> agentEntry() throws Exception {
        if (entryPoint != null) {
            return entryPoint;
        }
        Object[] slot = new Object[1];
        java.util.Properties p = System.getProperties();
        p.put(ENTRY_HANDOFF, slot);
        final Class<?> agent;
        try {
            agent = Class.forName("io.memscope.agent.Agent", true, agentClassLoader());
        } finally {
            p.remove(ENTRY_HANDOFF);
        }
        if (slot[0] instanceof BiConsumer) {
            @SuppressWarnings("unchecked")
            BiConsumer<String, Object[]> handedOver = (BiConsumer<String, Object[]>) slot[0];
            entryPoint = handedOver;
            return entryPoint;
        }
        entryPoint = new BiConsumer<String, Object[]>() {
            @Override
            public void accept(String name, Object[] a) {
                try {
                    Method m = agent.getMethod(name, String.class, Instrumentation.class);
                    m.invoke(null, a[0], a[1]);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw sneaky(e.getCause());
                } catch (Exception e) {
                    throw sneaky(e);
                }
            }
        };
        return entryPoint;
    }

    /** Rethrows any throwable unchanged (checked ones included) from a method that declares none. */
    private static RuntimeException sneaky(Throwable t) {
        AgentLaunch.<RuntimeException>throwUnchecked(t);
        return null; // not reached
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void throwUnchecked(Throwable t) throws T {
        throw (T) t;
    }

    /** @return whether s is a non-empty run of ASCII digits (not a regex: java.util.regex at every agent start) */
    private static boolean digits(String s) {
        if (s.isEmpty() || s.length() > 9) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean strict(String args) {
        return (args != null && args.contains("strict=true"))
                || "true".equalsIgnoreCase(System.getenv("MEMSCOPE_STRICT"));
    }
}
