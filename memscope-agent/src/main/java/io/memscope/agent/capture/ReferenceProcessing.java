package io.memscope.agent.capture;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

/**
 * Waits for the JVM's Reference Handler through the JDK's own {@code JavaLangRefAccess.waitForReferenceProcessing()}
 * (as {@code java.nio.Bits} does before it reports direct memory exhausted): afterwards the references the collections
 * so far cleared are enqueued and the Cleaners of unreachable direct buffers have run. Looked up on first use only
 * (it opens {@code jdk.internal.access} to the agent through the instrumentation); the handle is the JDK's, one per
 * JVM, and holds nothing of a capture.
 */
final class ReferenceProcessing {
    private static volatile java.lang.reflect.Method wait;
    private static volatile Object access;
    private static volatile boolean unavailable;

    private ReferenceProcessing() {
    }

    /**
     * Waits once: returns when nothing was pending or after one batch was processed.
     *
     * @return whether it waited (true: look again to be sure nothing is pending), or null when the JDK's internal
     *         access is not available
     */
    static Boolean waitOnce(Instrumentation inst) {
        java.lang.reflect.Method m = method(inst);
        if (m == null) {
            return null;
        }
        try {
            return (Boolean) m.invoke(access);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Waits until nothing is pending. @return false when the JDK's internal access is not available */
    static boolean awaitAll(Instrumentation inst) {
        for (int i = 0; i < 1000; i++) {
            Boolean waited = waitOnce(inst);
            if (waited == null) {
                return false;
            }
            if (!waited) {
                return true;
            }
        }
        return true;
    }

    /**
     * @return how the capture waits for the Reference Handler: {@code "jdk"} (the JDK's own wait), {@code "polled"}
     *         (its internal access was refused: a short sleep, or polling the figures until they settle), or
     *         {@code "unused"} (no wait was asked for yet)
     */
    static String mode() {
        return wait != null ? "jdk" : unavailable ? "polled" : "unused";
    }

    private static java.lang.reflect.Method method(Instrumentation inst) {
        java.lang.reflect.Method m = wait;
        if (m != null || unavailable) {
            return m;
        }
        try {
            if (inst != null) {
                Module base = Object.class.getModule();
                inst.redefineModule(base, Set.of(), Map.of("jdk.internal.access",
                        Set.of(ReferenceProcessing.class.getModule())), Map.of(), Set.of(), Map.of());
            }
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            access = secrets.getMethod("getJavaLangRefAccess").invoke(null);
            m = Class.forName("jdk.internal.access.JavaLangRefAccess").getMethod("waitForReferenceProcessing");
            wait = m; // after access: a reader that sees the method sees its receiver
            return m;
        } catch (Throwable t) {
            unavailable = true;
            return null;
        }
    }
}
