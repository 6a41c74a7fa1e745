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
    private static final String CALLBACK_CLASS = JvmtiSampler.class.getName();

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

    /** The stack of a JVM-sampled allocation: its id (0 without stacks) and the frame its site is named after. */
    static final class Sampled {
        final long id;
        final StackWalker.StackFrame siteFrame;

        Sampled(long id, StackWalker.StackFrame siteFrame) {
            this.id = id;
            this.siteFrame = siteFrame;
        }
    }

    /** Frames looked at to find the site of a JVM-sampled allocation when the stack itself keeps fewer. */
    static final int SITE_SEARCH_FRAMES = 128;

    /**
     * The current thread's stack at a JVM-sampled allocation (called from the JVMTI callback): memscope's own
     * frames at the top (the callback) are left out; the site frame is the first frame outside the JDK (the top
     * frame with {@code includeJdk}, or when every frame is the JDK's).
     *
     * @return null when memscope's own code made the allocation (a memscope frame below the callback)
     */
    static Sampled captureSample(int depth, boolean includeJdk) {
        int limit = Math.max(depth, SITE_SEARCH_FRAMES);
        List<StackWalker.StackFrame> frames = WALKER.walk(s -> {
            List<StackWalker.StackFrame> list = new ArrayList<>(32);
            boolean[] callback = {false};
            // Everything up to and including JvmtiSampler.sampled is the callback; the allocation is below it.
            s.dropWhile(f -> {
                if (callback[0]) {
                    return false;
                }
                callback[0] = f.getClassName().equals(CALLBACK_CLASS) && f.getMethodName().equals("sampled");
                return true;
            }).limit(limit).forEach(list::add);
            return list;
        });
        if (frames.isEmpty()) {
            return null;
        }
        StackWalker.StackFrame site = includeJdk ? frames.get(0) : null;
        int n = Math.min(depth, frames.size());
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < frames.size(); i++) {
            StackWalker.StackFrame f = frames.get(i);
            String c = f.getClassName();
            if (c.startsWith(AGENT)) {
                return null;
            }
            if (site == null && !isJdk(c)) {
                site = f;
            }
            if (i < n) {
                h = mix(h, c.hashCode());
                h = mix(h, f.getMethodName().hashCode());
                h = mix(h, f.getLineNumber());
            }
        }
        if (site == null) {
            site = frames.get(0);
        }
        if (n <= 0) {
            return new Sampled(0, site);
        }
        if (h == 0) {
            h = 1;
        }
        if (!FRAMES.containsKey(h)) {
            List<String> text = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                StackWalker.StackFrame f = frames.get(i);
                text.add(io.memscope.analysis.Site.frame(f.getClassName(), f.getMethodName(), f.getFileName(),
                        f.getLineNumber()));
            }
            FRAMES.putIfAbsent(h, List.copyOf(text));
        }
        return new Sampled(h, site);
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
