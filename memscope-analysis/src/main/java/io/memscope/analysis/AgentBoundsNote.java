package io.memscope.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the agent's bounded tables cost the recording, from its end metadata ({@code bounds.*}, docs/agent.md):
 * evictions that lost nothing (a stack's frames dropped from the agent's memory after they were written, resolved
 * stacks and methods resolved again) and refusals that did (new sites or names recorded under one placeholder, new
 * stacks recorded without frames). One sentence for the summary and the page, or null when no table was full.
 */
public final class AgentBoundsNote {
    private AgentBoundsNote() {
    }

    /** @return the sentence, or null when the agent evicted and refused nothing (or did not say) */
    public static String of(Map<String, String> metadata) {
        List<String> lost = new ArrayList<>();
        long sites = count(metadata, "bounds.sitesRefused");
        if (sites > 0) {
            lost.add(String.format(Locale.ROOT, "%,d new allocation sites recorded as '(sites beyond the bound)' "
                    + "(maxSites=%,d)", sites, count(metadata, "bounds.sitesLimit")));
        }
        long strings = count(metadata, "bounds.stringsRefused");
        if (strings > 0) {
            lost.add(String.format(Locale.ROOT, "%,d names recorded as '(names beyond the bound)' (maxStrings=%,d)",
                    strings, count(metadata, "bounds.stringsLimit")));
        }
        long stacks = count(metadata, "bounds.stacksRefused") + count(metadata, "bounds.stacksLost");
        if (stacks > 0) {
            lost.add(String.format(Locale.ROOT, "%,d samples' stacks not recorded (maxStacks=%,d)", stacks,
                    count(metadata, "bounds.stacksLimit")));
        }
        long evicted = count(metadata, "bounds.stacksEvicted");
        long again = count(metadata, "bounds.resolvedStacksEvicted") + count(metadata, "bounds.methodsEvicted");
        if (lost.isEmpty() && evicted == 0 && again == 0) {
            return null;
        }
        StringBuilder sb = new StringBuilder("the agent's tables reached their bounds: ");
        if (!lost.isEmpty()) {
            sb.append(String.join(", ", lost)).append("; ");
        }
        sb.append(String.format(Locale.ROOT, "%,d stacks evicted from the agent's memory after the recording had "
                + "their frames and %,d resolved stacks and methods resolved again (nothing lost)", evicted, again));
        return sb.toString();
    }

    private static long count(Map<String, String> m, String key) {
        String s = m.get(key);
        try {
            return s == null ? 0 : Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
