package io.memscope.analysis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The function profile's patterns (recording metadata {@code option.functions}: {@code pkg.Class.method},
 * {@code pkg.Class.*} or {@code pkg.**}, separated by {@code ;}) matched against a stack's frames. Lambdas and
 * constructors never match, as the agent does not profile them; overloads share a frame.
 */
final class FunctionPatterns {
    private final List<String[]> patterns = new ArrayList<>();

    /** @param option the metadata value, or null without a function profile */
    FunctionPatterns(String option) {
        if (option == null) {
            return;
        }
        for (String p : option.split(";")) {
            p = p.trim();
            if (p.endsWith(".**")) {
                patterns.add(new String[] {"tree", p.substring(0, p.length() - 2)});
            } else if (p.endsWith(".*")) {
                patterns.add(new String[] {"class", p.substring(0, p.length() - 2)});
            } else if (!p.isEmpty()) {
                patterns.add(new String[] {"method", p});
            }
        }
    }

    boolean isEmpty() {
        return patterns.isEmpty();
    }

    /**
     * @param frames a stack, innermost first
     * @return (function, call site) of each profiled function in the stack, once each, the outermost occurrence's
     *         call site (the frame below it; null at the stack's root)
     */
    List<String[]> functionsOf(List<String> frames) {
        List<String[]> keys = new ArrayList<>();
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
        String cls = function.substring(0, dot);
        String method = function.substring(dot + 1);
        if (method.startsWith("lambda$") || method.startsWith("<")) {
            return false;
        }
        for (String[] p : patterns) {
            boolean match = switch (p[0]) {
                case "tree" -> cls.startsWith(p[1]);
                case "class" -> cls.equals(p[1]);
                default -> function.equals(p[1]);
            };
            if (match) {
                return true;
            }
        }
        return false;
    }
}
