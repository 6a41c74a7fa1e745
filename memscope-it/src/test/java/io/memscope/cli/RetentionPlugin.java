package io.memscope.cli;

import java.util.ArrayList;
import java.util.List;

/** The plugin of RetentionFixture: defined by the fixture's own class loader, it keeps buffers in a static list. */
public final class RetentionPlugin {
    static final List<byte[]> CACHE = new ArrayList<>();

    private RetentionPlugin() {
    }

    public static void store() {
        CACHE.add(new byte[48 * 1024]); // PLUGIN_BUFFER
    }
}
