package io.memscope.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The Lua memory profiler's second story: building a string with {@code +} in a loop copies the whole string on every
 * step, so it allocates quadratic bytes that die at once (needless temporaries). {@link #withBuilder} is the fix: one
 * builder, one final string. memscope must name {@link #concatenate}'s line as a temporary.
 */
public final class StringConcatWorkload implements DemoMain.Workload {
    static volatile int sink;

    @Override
    public String name() {
        return "string-concat";
    }

    @Override
    public String description() {
        return "string concatenation in a loop (needless temporaries) next to its StringBuilder fix";
    }

    @Override
    public void run() {
        List<String> pieces = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
            pieces.add(Integer.toString(i));
        }
        for (int round = 0; round < 4; round++) {
            sink += concatenate(pieces).length();
            sink += withBuilder(pieces).length();
        }
    }

    /** The problem: every {@code +=} allocates a new string as long as everything so far. */
    static String concatenate(List<String> pieces) {
        String result = "";
        for (String piece : pieces) {
            result = result + piece; // the needless temporaries
        }
        return result;
    }

    /** The fix: append into one builder, allocate the result once. */
    static String withBuilder(List<String> pieces) {
        StringBuilder sb = new StringBuilder();
        for (String piece : pieces) {
            sb.append(piece);
        }
        return sb.toString();
    }
}
