package io.memscope.cli;

import io.memscope.error.MemscopeException;
import io.memscope.launch.OptionValues;

/** The {@code --last DURATION} option of {@code report}, {@code diff} and {@code export}. */
final class Windows {
    private Windows() {
    }

    /** @return {@code --last} in seconds ({@code 10m}, {@code 2h}, {@code 90s}, {@code 500ms}), or null when absent */
    static Double lastSeconds(String last) {
        if (last == null) {
            return null;
        }
        try {
            long ms = OptionValues.parseDurationMillis(last);
            if (ms <= 0) {
                throw new IllegalArgumentException("must be more than 0");
            }
            return ms / 1000.0;
        } catch (IllegalArgumentException e) {
            throw MemscopeException.configuration("--last " + last + ": " + e.getMessage());
        }
    }
}
