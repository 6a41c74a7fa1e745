package io.memscope.launch;

import java.util.List;
import java.util.Map;

/**
 * Where the agent's options come from: {@code MEMSCOPE_*} environment variables, then the agent argument string
 * ({@code key=value,key=value}; a key alone means {@code true}), which wins. Option names are matched without regard
 * to case and kept as {@link AgentOptions} spells them. Reading never throws: an unknown option, and a secret given
 * where the JVM would print it ({@code pushAuth} in the argument string), become errors.
 */
final class OptionSources {
    private OptionSources() {
    }

    /**
     * @param keys   per option: its name and its environment variable (null: none)
     * @param raw    receives each option's text by its name, the argument string's over the environment's
     * @param errors receives what the argument string names wrongly
     */
    static void read(String args, Map<String, String> env, String[][] keys, Map<String, String> raw,
                     List<String> errors) {
        for (String[] k : keys) {
            if (k[1] != null && env.get(k[1]) != null && !env.get(k[1]).isEmpty()) {
                raw.put(k[0], env.get(k[1]));
            }
        }
        if (args == null || args.isBlank()) {
            return;
        }
        for (String part : args.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            String key = (eq < 0 ? part : part.substring(0, eq)).trim();
            String value = eq < 0 ? "true" : part.substring(eq + 1).trim();
            String known = null;
            for (String[] k : keys) {
                if (k[0].equalsIgnoreCase(key)) {
                    known = k[0];
                }
            }
            if (known == null && key.equalsIgnoreCase("pushAuth")) {
                errors.add("option 'pushAuth' is not accepted in the agent argument string (the JVM prints "
                        + "JAVA_TOOL_OPTIONS on stderr, where a secret would leak into logs): set the environment "
                        + "variable " + AgentOptions.PUSH_AUTH_ENV + " or pushAuthFile=PATH (a file only its owner "
                        + "can read)");
            } else if (known == null) {
                errors.add("unknown option '" + key + "'");
            } else {
                raw.put(known, value);
            }
        }
    }
}
