package io.memscope.analysis;

import io.memscope.launch.SiteFrames;
import io.memscope.recording.Site;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;

/**
 * The stacks and sites of a JFR recording ({@link JfrSource}): ids given in the order first seen, so that the second
 * read finds the first's. A stack is its frames, innermost first, {@code pkg.Class.method(Unknown Source:LINE)} (JFR
 * records no file names; async-profiler's native frames are {@code library.symbol}). A site is named by
 * {@link SiteFrames}' rule, as memscope's agent names its own: the first Java frame outside library code (the innermost
 * Java frame when all are library code), per object type; a stack without Java frames takes its innermost native frame
 * but the profiler's own hook. Memory: per distinct stack and site.
 */
final class JfrStacks {
    /** The site of every free: a free's block is the malloc's, found by address. */
    static final int FREE_SITE = 1;
    private static final String NO_FILE = "Unknown Source";
    private static final Pattern NATIVE_LIBRARY = Pattern.compile(".*\\.so(\\.[0-9]+)*|.*\\.dylib");

    private final Map<List<String>, Long> stackIds = new HashMap<>();
    final Map<Long, List<String>> stacks = new HashMap<>();
    private final Map<String, Integer> siteIds = new HashMap<>();
    final Map<Integer, Site> sites = new LinkedHashMap<>();

    JfrStacks() {
        sites.put(FREE_SITE, new Site(FREE_SITE, "native", "free", null, 0, JfrSource.MALLOC));
    }

    /** @return the id of this stack (its frames, innermost first), 0 without frames */
    long stackId(RecordedStackTrace st) {
        List<String> frames = frames(st);
        if (frames.isEmpty()) {
            return 0;
        }
        Long id = stackIds.get(frames);
        if (id == null) {
            id = stackIds.size() + 1L;
            stackIds.put(frames, id);
            stacks.put(id, frames);
        }
        return id;
    }

    /** @return the site of {@code typeName} objects allocated at this stack: the first non-library frame's */
    int siteId(RecordedStackTrace st, String typeName) {
        List<RecordedFrame> frames = st == null ? List.of() : st.getFrames();
        RecordedFrame site = null;
        RecordedFrame nativeSite = null;
        for (RecordedFrame f : frames) {
            if (f.getMethod() == null) {
                continue;
            }
            String cls = className(f);
            if (isNative(f, cls)) {
                if (nativeSite == null && !cls.startsWith("libasyncProfiler")) {
                    nativeSite = f; // the innermost native frame but the profiler's own hook
                }
                continue;
            }
            if (site == null) {
                site = f; // the innermost Java frame, when every frame is library code
            }
            if (!SiteFrames.isLibrary(cls)) {
                site = f;
                break;
            }
        }
        if (site == null) {
            site = nativeSite;
        }
        String cls = site == null ? "unknown" : className(site);
        String method = site == null ? "unknown" : site.getMethod().getName();
        int line = site == null ? 0 : site.getLineNumber();
        String key = cls + '.' + method + ':' + line + '\0' + typeName;
        Integer id = siteIds.get(key);
        if (id == null) {
            id = siteIds.size() + FREE_SITE + 1;
            siteIds.put(key, id);
            sites.put(id, new Site(id, cls, method, site == null ? null : NO_FILE, line, typeName));
        }
        return id;
    }

    private static List<String> frames(RecordedStackTrace st) {
        if (st == null) {
            return List.of();
        }
        List<RecordedFrame> fs = st.getFrames();
        List<String> l = new ArrayList<>(fs.size());
        for (RecordedFrame f : fs) {
            if (f.getMethod() == null) {
                continue;
            }
            String cls = className(f);
            String m = f.getMethod().getName();
            l.add(cls.isEmpty() ? m : Site.frame(cls, m, NO_FILE, f.getLineNumber()));
        }
        return List.copyOf(l);
    }

    /**
     * @return whether a frame is native code (async-profiler's C and C++ frames: their "class" is the library, such as
     *         {@code libjvm.so}), not a Java method
     */
    static boolean isNative(RecordedFrame f, String className) {
        String type = f.getType();
        return "C++".equals(type) || "Kernel".equals(type) || className.isEmpty() || className.startsWith("[")
                || NATIVE_LIBRARY.matcher(className).matches();
    }

    private static String className(RecordedFrame f) {
        RecordedClass c = f.getMethod().getType();
        return c == null || c.getName() == null ? "" : c.getName().replace('/', '.');
    }

    /** @return the class's name as Java source writes it ({@code byte[]}, {@code java.lang.String[]}), or null */
    static String typeName(RecordedClass c) {
        if (c == null || c.getName() == null) {
            return null;
        }
        String n = c.getName().replace('/', '.');
        int dims = 0;
        while (dims < n.length() && n.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return n;
        }
        String element = n.substring(dims);
        String base = switch (element) {
            case "B" -> "byte";
            case "Z" -> "boolean";
            case "S" -> "short";
            case "C" -> "char";
            case "I" -> "int";
            case "F" -> "float";
            case "J" -> "long";
            case "D" -> "double";
            default -> element.startsWith("L") && element.endsWith(";")
                    ? element.substring(1, element.length() - 1) : element;
        };
        return base + "[]".repeat(dims);
    }
}
