package io.memscope.agent.launch;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;

/**
 * The agent jar's {@code Premain-Class} and {@code Agent-Class}: a trampoline that checks the Java version and calls
 * {@code io.memscope.agent.Agent} (loaded, like this class, by the system class loader).
 *
 * <p>It never throws into the JVM unless the options ask for {@code strict=true}: a failure here prints one line
 * on stderr and the application starts without memscope. Compiled for Java 8 (nothing else in the jar is), so that
 * an older JVM started under {@code memscope run} (a build tool's daemon, say) gets that line instead of failing
 * to start because of an unreadable agent class.
 */
public final class AgentLaunch {
    private AgentLaunch() {
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
            Class<?> agent = Class.forName("io.memscope.agent.Agent", true, AgentLaunch.class.getClassLoader());
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
