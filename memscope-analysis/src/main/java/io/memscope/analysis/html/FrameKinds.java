package io.memscope.analysis.html;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sorts stack frames into the kinds the flame graph colours apart: the application's own code, libraries, and
 * the JDK. A frame is formatted like {@link StackTraceElement#toString()} without module,
 * {@code pkg.Class.method(File.java:LINE)}.
 *
 * <p>The JDK is recognised by package ({@code java.}, {@code javax.}, {@code jdk.}, {@code sun.},
 * {@code com.sun.}, and the JDK's {@code org.w3c.}, {@code org.xml.sax.}, {@code org.ietf.jgss.}). The application
 * is the package of its main class (up to three package segments): from the command line when it names a class,
 * else from the outermost non-JDK frame seen most often (where {@code main} usually is). Everything else is a
 * library. A guess, stated as such in the page's legend; it only chooses colours.
 */
public final class FrameKinds {
    /** The application's own code. */
    public static final int APPLICATION = 0;
    /** Code of a library (neither the application's nor the JDK's). */
    public static final int LIBRARY = 1;
    /** The JDK. */
    public static final int JDK = 2;
    /** Not a frame: the allocated type, drawn as the top of each stack. */
    public static final int TYPE = 3;
    /**
     * A native function ({@code libz.so.1!inflateInit2_}, {@code libfoo.so+0x1a2b}): a frame that does not end with
     * {@code )} (recording.md).
     */
    public static final int NATIVE = 4;

    private static final List<String> JDK_PREFIXES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.",
            "org.w3c.", "org.xml.sax.", "org.ietf.jgss.");

    private final String applicationPrefix;

    private FrameKinds(String applicationPrefix) {
        this.applicationPrefix = applicationPrefix;
    }

    /**
     * @param command the JVM's command ({@code sun.java.command}: main class or jar, then arguments), may be null
     * @param stacks  the stacks of the report, innermost frame first; used when the command names no class
     */
    public static FrameKinds of(String command, List<List<String>> stacks) {
        String main = mainClass(command);
        if (main == null) {
            main = mostCommonOutermost(stacks);
        }
        return new FrameKinds(main == null ? null : packagePrefix(main));
    }

    /** @return the package prefix (with its trailing dot) taken as the application's, or null when unknown */
    public String applicationPrefix() {
        return applicationPrefix;
    }

    /** @return {@link #APPLICATION}, {@link #LIBRARY}, {@link #JDK} or {@link #NATIVE} */
    public int kind(String frame) {
        if (!frame.endsWith(")")) {
            return NATIVE;
        }
        String cls = className(frame);
        if (isJdk(cls)) {
            return JDK;
        }
        if (applicationPrefix != null && cls.startsWith(applicationPrefix)) {
            return APPLICATION;
        }
        return applicationPrefix == null ? APPLICATION : LIBRARY;
    }

    /** @return the class part of a frame, {@code pkg.Class} of {@code pkg.Class.method(File.java:1)} */
    static String className(String frame) {
        int paren = frame.indexOf('(');
        String qualified = paren < 0 ? frame : frame.substring(0, paren);
        int dot = qualified.lastIndexOf('.');
        return dot < 0 ? qualified : qualified.substring(0, dot);
    }

    private static boolean isJdk(String cls) {
        for (String p : JDK_PREFIXES) {
            if (cls.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** The first word of the command when it looks like a class name (not a jar or a path). */
    static String mainClass(String command) {
        if (command == null || command.isBlank()) {
            return null;
        }
        String first = command.strip().split("\\s+", 2)[0];
        if (first.endsWith(".jar") || first.contains("/") || first.contains("\\") || !first.contains(".")) {
            return null;
        }
        for (int i = 0; i < first.length(); i++) {
            char c = first.charAt(i);
            if (!(Character.isJavaIdentifierPart(c) || c == '.')) {
                return null;
            }
        }
        return isJdk(first) ? null : first;
    }

    private static String mostCommonOutermost(List<List<String>> stacks) {
        Map<String, Integer> counts = new HashMap<>();
        String best = null;
        int bestCount = 0;
        for (List<String> stack : stacks) {
            for (int i = stack.size() - 1; i >= 0; i--) {
                if (!stack.get(i).endsWith(")")) {
                    continue; // a native function names no Java package
                }
                String cls = className(stack.get(i));
                if (!isJdk(cls)) {
                    int n = counts.merge(cls, 1, Integer::sum);
                    if (n > bestCount) {
                        best = cls;
                        bestCount = n;
                    }
                    break;
                }
            }
        }
        return best;
    }

    /** {@code a.b.c.d.Main} -> {@code a.b.c.}; {@code a.Main} -> {@code a.}; {@code Main} -> {@code Main}. */
    static String packagePrefix(String className) {
        int dot = className.lastIndexOf('.');
        if (dot < 0) {
            return className;
        }
        String[] parts = className.substring(0, dot).split("\\.");
        int n = Math.min(3, parts.length);
        return String.join(".", List.of(parts).subList(0, n)) + ".";
    }
}
