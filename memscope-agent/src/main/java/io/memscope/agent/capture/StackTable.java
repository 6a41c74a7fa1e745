package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Call stacks of sampled allocations, deduplicated: a stack's id is a 64-bit hash of its frames (class, method,
 * line), and its frames are formatted as strings ({@code pkg.Class.method(File.java:LINE)}) only the first time the
 * stack is seen. memscope's own frames are left out.
 */
final class StackTable {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final ConcurrentHashMap<Long, List<String>> FRAMES = new ConcurrentHashMap<>();
    private static final String AGENT = "io.memscope.agent.";

    private StackTable() {
    }

    /** A captured stack: its id and the first frame outside the JDK and memscope (null if none). */
    static final class Captured {
        final long id;
        final StackWalker.StackFrame appFrame;
        final boolean directBuffer;

        Captured(long id, StackWalker.StackFrame appFrame, boolean directBuffer) {
            this.id = id;
            this.appFrame = appFrame;
            this.directBuffer = directBuffer;
        }
    }

    /** @return the id of the current thread's stack (at most {@code depth} frames), 0 when depth is 0 */
    static long capture(int depth) {
        if (depth <= 0) {
            return 0;
        }
        return captureFull(depth).id;
    }

    static Captured captureFull(int depth) {
        List<StackWalker.StackFrame> frames = WALKER.walk(s -> {
            List<StackWalker.StackFrame> list = new ArrayList<>(Math.min(depth, 32));
            s.filter(f -> !f.getClassName().startsWith(AGENT)).limit(Math.max(depth, 1)).forEach(list::add);
            return list;
        });
        long h = 0x9E3779B97F4A7C15L;
        StackWalker.StackFrame app = null;
        boolean direct = false;
        for (StackWalker.StackFrame f : frames) {
            h = mix(h, f.getClassName().hashCode());
            h = mix(h, f.getMethodName().hashCode());
            h = mix(h, f.getLineNumber());
            String c = f.getClassName();
            if (c.equals("java.nio.DirectByteBuffer") || c.equals("java.nio.ByteBuffer")) {
                direct = true;
            }
            if (app == null && !isJdk(c)) {
                app = f;
            }
        }
        if (h == 0) {
            h = 1;
        }
        if (!FRAMES.containsKey(h)) {
            List<String> text = new ArrayList<>(frames.size());
            for (StackWalker.StackFrame f : frames) {
                text.add(io.memscope.analysis.Site.frame(f.getClassName(), f.getMethodName(), f.getFileName(),
                        f.getLineNumber()));
            }
            FRAMES.putIfAbsent(h, List.copyOf(text));
        }
        return new Captured(depth <= 0 ? 0 : h, app, direct);
    }

    static boolean isJdk(String className) {
        return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.")
                || className.startsWith("javax.") || className.startsWith("com.sun.");
    }

    static List<String> frames(long id) {
        return FRAMES.getOrDefault(id, List.of());
    }

    static Map<Long, List<String>> all() {
        return FRAMES;
    }

    private static long mix(long h, long v) {
        h ^= v + 0x9E3779B97F4A7C15L + (h << 6) + (h >>> 2);
        h *= 0xBF58476D1CE4E5B9L;
        return h ^ (h >>> 31);
    }
}
