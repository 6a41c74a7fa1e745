package io.memscope.agent.launch;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.io.File;
import java.util.jar.JarFile;

/**
 * The agent jar's {@code Premain-Class} and {@code Agent-Class}: a trampoline. It appends the agent jar to the
 * bootstrap class loader's search path (so that instrumented JDK classes and application classes of every loader
 * see the same hook classes) and then calls {@code io.memscope.agent.Agent} as loaded by the bootstrap loader.
 *
 * <p>It never throws into the JVM unless the options ask for {@code strict=true}: a failure here prints one line
 * on stderr and the application starts without memscope. Compiled for Java 8 (nothing else in the jar is), so that
 * an older JVM started under {@code memscope run} (a build tool's daemon, say) gets that line instead of failing
 * to start because of an unreadable agent class.
 */
public final class AgentLaunch {
    private static volatile boolean appended;

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
            appendToBoot(inst);
            Class<?> agent = Class.forName("io.memscope.agent.Agent", true, null);
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

    private static synchronized void appendToBoot(Instrumentation inst) throws Exception {
        if (appended) {
            return;
        }
        try {
            // Already visible to the bootstrap loader (attached a second time): nothing to do.
            Class.forName("io.memscope.agent.Agent", false, null);
            appended = true;
            return;
        } catch (ClassNotFoundException notYet) {
            // append below
        }
        File jar = new File(AgentLaunch.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar));
        appended = true;
    }

    private static boolean strict(String args) {
        return (args != null && args.contains("strict=true"))
                || "true".equalsIgnoreCase(System.getenv("MEMSCOPE_STRICT"));
    }
}
