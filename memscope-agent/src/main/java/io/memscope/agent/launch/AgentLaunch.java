package io.memscope.agent.launch;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;

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
    /** The loader of the agent's classes in this JVM, made at the first start; every later attach reuses it. */
    private static ClassLoader agentLoader;

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
        if (spec.startsWith("1.") || spec.matches("\\d+") && Integer.parseInt(spec) < 17) {
            System.err.println("memscope agent: needs Java 17 or newer, this JVM is " + spec
                    + "; it runs without memscope");
            return;
        }
        try {
            Class<?> agent = Class.forName("io.memscope.agent.Agent", true, agentClassLoader());
            Method m = agent.getMethod(entry, String.class, Instrumentation.class);
            m.invoke(null, args, inst);
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception && strict(args)) {
                throw (Exception) cause;
            }
            System.err.println("memscope agent: failed to start, the application runs without memscope: " + cause);
        } catch (Exception e) {
            if (strict(args)) {
                throw e;
            }
            System.err.println("memscope agent: failed to start, the application runs without memscope: " + e);
        } catch (LinkageError e) {
            if (strict(args)) {
                throw e;
            }
            System.err.println("memscope agent: failed to start, the application runs without memscope: " + e);
        }
    }

    private static boolean strict(String args) {
        return (args != null && args.contains("strict=true"))
                || "true".equalsIgnoreCase(System.getenv("MEMSCOPE_STRICT"));
    }
}
