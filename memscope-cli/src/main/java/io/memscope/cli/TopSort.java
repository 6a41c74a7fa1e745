package io.memscope.cli;

import java.util.Locale;

/** What {@code memscope top} orders its site table by, the key that selects it, and the agent operation it reads. */
enum TopSort {
    HELD('h', "topSitesByHeldBytes"),
    RATE('r', "topSitesByAllocationRate"),
    LIVE('l', "topSitesByLiveBytes"),
    ALLOCATED('a', "topSitesByAllocatedBytes");

    final char key;
    final String operation;

    TopSort(char key, String operation) {
        this.key = key;
        this.operation = operation;
    }

    /** @return the name shown and accepted by {@code --sort} */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return the sort selected by a key press, or null */
    static TopSort ofKey(int c) {
        for (TopSort s : values()) {
            if (s.key == Character.toLowerCase(c)) {
                return s;
            }
        }
        return null;
    }
}
