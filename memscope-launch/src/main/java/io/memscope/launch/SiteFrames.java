package io.memscope.launch;

/**
 * The rule that names an allocation's site: the first frame of its stack, innermost first, whose class is not
 * library code, or the innermost frame when every frame is. Library code is the JDK's ({@link #isJdk}) and memscope's
 * own API called by the application (the allocation is then named after the application line that called it); the
 * demo and benchmark workloads under {@code io.memscope} are application code. The agent's sampler names its sites
 * with it, and the analysis names the sites of recordings made without memscope (JFR) with it too.
 */
public final class SiteFrames {
    /** The package prefix of memscope's own classes. */
    public static final String MEMSCOPE = String.join(".", "io", "memscope", "");
    private static final String[] MEMSCOPE_WORKLOADS = {MEMSCOPE + "demo.", MEMSCOPE + "bench."};

    private SiteFrames() {
    }

    /** @return whether the site search passes over a frame of this class, as library code */
    public static boolean isLibrary(String className) {
        if (isJdk(className)) {
            return true;
        }
        if (!className.startsWith(MEMSCOPE)) {
            return false;
        }
        for (String w : MEMSCOPE_WORKLOADS) {
            if (className.startsWith(w)) {
                return false;
            }
        }
        return true;
    }

    /** @return whether a class is the JDK's (java., jdk., sun., javax., com.sun.) */
    public static boolean isJdk(String className) {
        return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")
                || className.startsWith("javax.") || className.startsWith("com.sun.");
    }
}
