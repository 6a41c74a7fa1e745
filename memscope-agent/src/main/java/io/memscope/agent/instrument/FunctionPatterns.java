package io.memscope.agent.instrument;

import java.util.ArrayList;
import java.util.List;

/**
 * Which methods the function profile instruments (agent option {@code functions=PATTERN;PATTERN}):
 * <ul>
 * <li>{@code com.acme.Service.handle}: every method named {@code handle} of class {@code com.acme.Service} (all
 *     overloads);</li>
 * <li>{@code com.acme.Service.*}: every method of that class;</li>
 * <li>{@code com.acme.**}: every method of every class in package {@code com.acme} and its subpackages.</li>
 * </ul>
 * Nested classes are named with {@code $} ({@code com.acme.Outer$Inner.run}). Constructors, static initializers,
 * abstract, native, bridge and synthetic methods (lambda bodies) are never profiled; nor are the JDK's classes or
 * memscope's own. Names are in internal form here ({@code com/acme/Service}).
 */
public final class FunctionPatterns {
    /** No function profile. */
    public static final FunctionPatterns NONE = new FunctionPatterns(List.of());

    private final List<String[]> rules;

    private FunctionPatterns(List<String[]> rules) {
        this.rules = rules;
    }

    /**
     * @param patterns the option's patterns, already split at {@code ;}
     * @throws IllegalArgumentException naming the first pattern that is not one of the three forms
     */
    public static FunctionPatterns parse(List<String> patterns) {
        List<String[]> rules = new ArrayList<>();
        for (String raw : patterns) {
            String p = raw.trim();
            if (p.isEmpty()) {
                continue;
            }
            String java = "[\\p{L}_$][\\p{L}\\p{N}_$]*";
            if (p.matches(java + "(\\." + java + ")*\\.\\*\\*")) {
                rules.add(new String[] {"tree", p.substring(0, p.length() - 3).replace('.', '/') + "/"});
            } else if (p.matches(java + "(\\." + java + ")*\\.\\*")) {
                rules.add(new String[] {"class", p.substring(0, p.length() - 2).replace('.', '/')});
            } else if (p.matches(java + "(\\." + java + ")+")) {
                int dot = p.lastIndexOf('.');
                rules.add(new String[] {"method", p.substring(0, dot).replace('.', '/'), p.substring(dot + 1)});
            } else {
                throw new IllegalArgumentException("'" + p + "' is not a function pattern: expected pkg.Class.method, "
                        + "pkg.Class.* or pkg.**");
            }
        }
        return new FunctionPatterns(List.copyOf(rules));
    }

    /** @return whether no function is profiled */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** @return whether some method of this class may be profiled */
    boolean coversClass(String internalName) {
        for (String[] r : rules) {
            if (classMatches(r, internalName)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether this method (of class {@code owner}) is profiled, its modifiers aside */
    boolean matches(String owner, String method) {
        for (String[] r : rules) {
            if (classMatches(r, owner) && (!r[0].equals("method") || r[2].equals(method))) {
                return true;
            }
        }
        return false;
    }

    private static boolean classMatches(String[] rule, String owner) {
        switch (rule[0]) {
            case "tree":
                return owner.startsWith(rule[1]);
            case "class":
            case "method":
                return owner.equals(rule[1]);
            default:
                return false;
        }
    }

    /** @return whether a method with these modifiers and name can be profiled at all */
    static boolean profilable(int access, String name) {
        int never = org.objectweb.asm.Opcodes.ACC_ABSTRACT | org.objectweb.asm.Opcodes.ACC_NATIVE
                | org.objectweb.asm.Opcodes.ACC_BRIDGE | org.objectweb.asm.Opcodes.ACC_SYNTHETIC;
        return (access & never) == 0 && !name.startsWith("<");
    }
}
