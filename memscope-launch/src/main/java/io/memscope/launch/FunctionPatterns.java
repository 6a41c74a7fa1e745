package io.memscope.launch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which methods the function profile measures: the agent option {@code functions=PATTERN;PATTERN}, recorded as
 * metadata {@link MetadataKeys#OPTION_FUNCTIONS}. A pattern is one of
 * <ul>
 * <li>{@code com.acme.Service.handle}: every method named {@code handle} of class {@code com.acme.Service} (all
 *     overloads);</li>
 * <li>{@code com.acme.Service.*}: every method of that class;</li>
 * <li>{@code com.acme.**}: every method of every class in package {@code com.acme} and its subpackages.</li>
 * </ul>
 * Nested classes are named with {@code $} ({@code com.acme.Outer$Inner.run}). Constructors, static initializers,
 * abstract, native, bridge and synthetic methods (lambda bodies) are never profiled (the agent decides by the
 * method's modifiers); nor are the JDK's classes or memscope's own.
 *
 * <p>The agent matches classes by their internal names ({@link #coversClass}, {@link #matchesInternal}); the analysis
 * matches a recorded stack's frames ({@link #functionsOf}). Both read the same grammar: the option is validated when
 * given ({@link #parse}), and a recorded value with a malformed pattern (another writer's) has that pattern left out
 * and named in {@link #skipped()}, never half matched.
 */
public final class FunctionPatterns {
    /** No function profile. */
    public static final FunctionPatterns NONE = new FunctionPatterns(List.of(), List.of());

    /**
     * The three forms, compiled at the first pattern parsed: not in every JVM the agent starts in (their Unicode
     * classes load about 20 regex classes, 2 ms of the agent's start).
     */
    private static final class Syntax {
        private static final String JAVA = "[\\p{L}_$][\\p{L}\\p{N}_$]*";
        static final Pattern TREE = Pattern.compile(JAVA + "(\\." + JAVA + ")*\\.\\*\\*");
        static final Pattern CLASS = Pattern.compile(JAVA + "(\\." + JAVA + ")*\\.\\*");
        static final Pattern METHOD = Pattern.compile(JAVA + "(\\." + JAVA + ")+");
    }

    /** One pattern: a package tree (prefix {@code com/acme/}), a class, or a class and a method name. */
    private record Rule(Kind kind, String owner, String method) {
        boolean coversClass(String internalName) {
            return kind == Kind.TREE ? internalName.startsWith(owner) : internalName.equals(owner);
        }
    }

    private enum Kind { TREE, CLASS, METHOD }

    private final List<Rule> rules;
    private final List<String> skipped;

    private FunctionPatterns(List<Rule> rules, List<String> skipped) {
        this.rules = rules;
        this.skipped = skipped;
    }

    /**
     * @param patterns the option's patterns, already split at {@code ;} (blank ones are ignored)
     * @throws IllegalArgumentException naming the first pattern that is not one of the three forms
     */
    public static FunctionPatterns parse(List<String> patterns) {
        List<Rule> rules = new ArrayList<>();
        for (String raw : patterns) {
            String p = raw.trim();
            if (p.isEmpty()) {
                continue;
            }
            Rule r = rule(p);
            if (r == null) {
                throw new IllegalArgumentException("'" + p + "' is not a function pattern: expected pkg.Class.method, "
                        + "pkg.Class.* or pkg.**");
            }
            rules.add(r);
        }
        return new FunctionPatterns(List.copyOf(rules), List.of());
    }

    /**
     * The patterns of a recording (metadata {@link MetadataKeys#OPTION_FUNCTIONS}: patterns separated by {@code ;}).
     * A malformed pattern is left out and listed in {@link #skipped()}.
     *
     * @param option the metadata value, or null without a function profile
     */
    public static FunctionPatterns ofRecorded(String option) {
        if (option == null) {
            return NONE;
        }
        List<Rule> rules = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (String raw : option.split(";")) {
            String p = raw.trim();
            if (p.isEmpty()) {
                continue;
            }
            Rule r = rule(p);
            if (r == null) {
                skipped.add(p);
            } else {
                rules.add(r);
            }
        }
        return new FunctionPatterns(List.copyOf(rules), List.copyOf(skipped));
    }

    private static Rule rule(String p) {
        if (Syntax.TREE.matcher(p).matches()) {
            return new Rule(Kind.TREE, p.substring(0, p.length() - 3).replace('.', '/') + "/", null);
        }
        if (Syntax.CLASS.matcher(p).matches()) {
            return new Rule(Kind.CLASS, p.substring(0, p.length() - 2).replace('.', '/'), null);
        }
        if (Syntax.METHOD.matcher(p).matches()) {
            int dot = p.lastIndexOf('.');
            return new Rule(Kind.METHOD, p.substring(0, dot).replace('.', '/'), p.substring(dot + 1));
        }
        return null;
    }

    /** @return whether no function is profiled */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** @return the malformed patterns of a recorded value, left out ({@link #ofRecorded}); empty otherwise */
    public List<String> skipped() {
        return skipped;
    }

    /** @return whether some method of this class (internal name, {@code com/acme/Service}) may be profiled */
    public boolean coversClass(String internalName) {
        for (Rule r : rules) {
            if (r.coversClass(internalName)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param owner the class's internal name ({@code com/acme/Service})
     * @return whether this method is profiled, its modifiers aside
     */
    public boolean matchesInternal(String owner, String method) {
        for (Rule r : rules) {
            if (r.coversClass(owner) && (r.kind != Kind.METHOD || r.method.equals(method))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The profiled functions of a recorded stack. Lambda bodies and constructors never match (the agent does not
     * profile them); overloads share a frame.
     *
     * @param frames a stack, innermost first, each {@code pkg.Class.method} optionally followed by {@code (...)}
     * @return (function, call site) of each profiled function in the stack, once each, the outermost occurrence's
     *         call site (the frame below it; null at the stack's root)
     */
    public List<String[]> functionsOf(List<String> frames) {
        List<String[]> keys = new ArrayList<>();
        if (rules.isEmpty()) {
            return keys;
        }
        Set<String> seen = new HashSet<>();
        for (int i = frames.size() - 1; i >= 0; i--) {
            String f = frames.get(i);
            int paren = f.indexOf('(');
            String fn = paren < 0 ? f : f.substring(0, paren);
            if (profiled(fn) && seen.add(fn)) {
                keys.add(new String[] {fn, i + 1 < frames.size() ? frames.get(i + 1) : null});
            }
        }
        return keys;
    }

    private boolean profiled(String function) {
        int dot = function.lastIndexOf('.');
        if (dot < 0) {
            return false;
        }
        String method = function.substring(dot + 1);
        if (method.startsWith("lambda$") || method.startsWith("<")) {
            return false;
        }
        return matchesInternal(function.substring(0, dot).replace('.', '/'), method);
    }
}
