package io.memscope.junit;

/** For measurements in other test packages: the extension's verified full GC. */
public final class FullGcAccess {
    private FullGcAccess() {
    }

    public static boolean run() {
        return FullGc.run();
    }
}
