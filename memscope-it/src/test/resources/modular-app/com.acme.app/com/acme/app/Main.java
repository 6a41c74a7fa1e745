package com.acme.app;

import io.memscope.Memscope;
import io.memscope.scope.MemoryScope;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * 200 entries of a scope that each allocate 64 KiB (the last 50 kept), and one named object; writes the modules it
 * ran in to the file {@code args[0]}.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws java.io.IOException {
        Deque<byte[]> kept = new ArrayDeque<>();
        for (int i = 0; i < 200; i++) {
            try (MemoryScope s = Memscope.scope("batch")) {
                kept.addLast(new byte[64 * 1024]);
                if (kept.size() > 50) {
                    kept.removeFirst();
                }
            }
        }
        Map<String, String> cache = new HashMap<>();
        Memscope.track("cache", cache);
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), "memscope API in " + Memscope.class.getModule()
                + ", application in " + Main.class.getModule() + ", kept " + kept.size() + " " + cache.size());
    }
}
