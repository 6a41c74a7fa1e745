package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One capture's call stacks of sampled allocations, deduplicated: a stack's id is a 64-bit hash of its frames (class,
 * method, line), and its frames are formatted as strings ({@code pkg.Class.method(File.java:LINE)}) only the first
 * time the stack is seen. memscope's own frames are left out. Also resolves JVM-sampled stacks (jmethodIDs and
 * bytecode indexes) with the methods the JVM sampler's {@link SampleResolver} resolved once each.
 *
 * <p>Owned by the {@link CaptureSession} and reached through it or the parts it made (the JVM sampler's
 * {@link SampleResolver}, {@link NativeTracker}, {@link ApiCapture}, the recording): no static holds a table, so a
 * capture's stacks and methods go with it. {@link #release} empties the table when the capture ends. Stack ids are
 * hashes, not table indexes: the same frames get the same id in every capture.
 *
 * <p>Memory: one entry per distinct stack sampled in the capture, at most {@code maxStacks} ({@link StackFrames}
 * says which go and which are refused beyond it). Thread-safe (a stack's text may be built twice by racing threads,
 * one copy is kept).
 */
final class StackTable {
    /** Made at the first stack walked, not with the table: the agent makes its table before the application's main. */
    private static final class Walker {
        static final StackWalker WALKER = StackWalker.getInstance();
    }

    /** Frame text by stack id, bounded ({@link StackFrames}). */
    private final StackFrames frames = new StackFrames();
    static final String AGENT = "io.memscope.agent.";
    /** The hook classes the agent defines in java.lang (MemscopeHooks, MemscopeApiHooks, MemscopeHeapHooks...). */
    static final String HOOKS = io.memscope.agent.boot.BootHooks.HOOK_CLASS_PREFIX;
    /**
     * memscope's API in the application (accounting, runtime events), built at run time: the agent jar's shading
     * would relocate a string constant starting with memscope's package. Its workloads (demo, benchmarks) are
     * application code.
     */
    static final String MEMSCOPE = String.join(".", "io", "memscope", "");

    StackTable() {
    }

    /** A captured stack: its id and the first frame outside the JDK and memscope (null if none). */
    static final class Captured {
        final long id;
        final StackWalker.StackFrame appFrame;
        /**
         * The frame a native block is named after: {@link #appFrame}, or on a thread that runs JDK code alone (an
         * HttpClient's selector, a JDK pool's worker) the first frame past the allocation machinery that has a
         * line; null for an empty stack.
         */
        final StackWalker.StackFrame siteFrame;
        final boolean directBuffer;
        /** The stack goes through the JDK's FFM implementation, or a tracking arena marked the allocation. */
        final boolean arena;

        Captured(long id, StackWalker.StackFrame appFrame, StackWalker.StackFrame siteFrame, boolean directBuffer,
                 boolean arena) {
            this.id = id;
            this.appFrame = appFrame;
            this.siteFrame = siteFrame;
            this.directBuffer = directBuffer;
            this.arena = arena;
        }

        /** @return the type of a native block allocated with this stack */
        String nativeType() {
            return directBuffer ? io.memscope.recording.Site.NATIVE_DIRECT
                    : arena ? io.memscope.recording.Site.NATIVE_ARENA : io.memscope.recording.Site.NATIVE_UNSAFE;
        }
    }

    /**
     * The first {@code limit} frames outside memscope's agent and its hook classes. A class, not a lambda: it runs the first time inside
     * the JDK's own frees at start-up, where bootstrapping a lambda would cost milliseconds.
     */
    private static final class Frames
            implements java.util.function.Function<java.util.stream.Stream<StackWalker.StackFrame>,
            List<StackWalker.StackFrame>> {
        private final int limit;

        Frames(int limit) {
            this.limit = limit;
        }

        @Override
        public List<StackWalker.StackFrame> apply(java.util.stream.Stream<StackWalker.StackFrame> s) {
            List<StackWalker.StackFrame> list = new ArrayList<>(Math.min(limit, 32));
            for (java.util.Iterator<StackWalker.StackFrame> it = s.iterator(); it.hasNext() && list.size() < limit; ) {
                StackWalker.StackFrame f = it.next();
                String c = f.getClassName();
                if (!c.startsWith(AGENT) && !c.startsWith(HOOKS)) {
                    list.add(f);
                }
            }
            return list;
        }
    }

    /** @return the id of the current thread's stack (at most {@code depth} frames), 0 when depth is 0 */
    long capture(int depth) {
        if (depth <= 0) {
            return 0;
        }
        return captureFull(depth).id;
    }

    Captured captureFull(int depth) {
        return captureNative(depth, false);
    }

    /**
     * The current thread's stack without memscope's agent and hook frames.
     *
     * @param forArena the allocation was made for a memscope-ffm tracking arena: the stack starts at the application
     *                 frame that called it (the site), leaving out the tracking arena's frames, the JDK arena it
     *                 wraps and {@code SegmentAllocator}'s default methods in between
     */
    Captured captureNative(int depth, boolean forArena) {
        int walk = forArena ? depth + ARENA_FRAMES : depth;
        List<StackWalker.StackFrame> frames = Walker.WALKER.walk(new Frames(Math.max(walk, 1)));
        StackWalker.StackFrame app = null;
        boolean direct = false;
        boolean foreign = forArena;
        int first = 0;
        for (int i = 0; i < frames.size(); i++) {
            String c = frames.get(i).getClassName();
            if (c.equals("java.nio.DirectByteBuffer") || c.equals("java.nio.ByteBuffer")) {
                direct = true;
            }
            if (c.startsWith("jdk.internal.foreign.")) {
                foreign = true;
            }
            if (app == null) {
                if (!isLibrary(c)) {
                    app = frames.get(i);
                    if (forArena) {
                        first = i; // the code that called the tracking arena (through SegmentAllocator's defaults)
                    }
                } else if (forArena && c.startsWith(MEMSCOPE)) {
                    first = i + 1; // no application frame (yet): below the innermost memscope frame
                }
            }
        }
        if (first >= frames.size()) {
            first = 0;
        }
        int end = Math.min(frames.size(), first + Math.max(depth, 1));
        long h = register(frames.subList(first, end));
        return new Captured(depth <= 0 ? 0 : h, app, app != null ? app : namedFrame(frames), direct && !forArena,
                foreign);
    }

    /**
     * @return for a stack of JDK frames alone: the first frame past the allocation machinery (buffers, Unsafe, the
     *         FFM implementation, channels' temporary buffers, method handles) that has a line, else the first with a line, else the
     *         first; null for no frames
     */
    static StackWalker.StackFrame namedFrame(List<StackWalker.StackFrame> frames) {
        StackWalker.StackFrame withLine = null;
        for (StackWalker.StackFrame f : frames) {
            if (f.getLineNumber() <= 0) {
                continue;
            }
            if (!isAllocationMachinery(f.getClassName())) {
                return f;
            }
            if (withLine == null) {
                withLine = f;
            }
        }
        return withLine != null ? withLine : frames.isEmpty() ? null : frames.get(0);
    }

    private static boolean isAllocationMachinery(String c) {
        return c.startsWith("java.nio.") || c.startsWith("jdk.internal.misc.") || c.startsWith("sun.misc.")
                || c.startsWith("jdk.internal.foreign.") || c.startsWith("java.lang.foreign.")
                || c.startsWith("java.lang.invoke.") || c.startsWith("sun.nio.ch.") || c.startsWith("jdk.internal.ref.");
    }

    /**
     * @return the id of the stack of a call into memscope's API by the application (a pool borrow, a tracked object):
     *         its frames below memscope's own (the agent, the hook class, the application's copy of memscope-core),
     *         at most {@code depth}; 0 when depth is 0
     */
    long captureApiCaller(int depth) {
        if (depth <= 0) {
            return 0;
        }
        List<StackWalker.StackFrame> frames = Walker.WALKER.walk(s -> {
            List<StackWalker.StackFrame> list = new ArrayList<>(Math.min(depth, 32));
            s.dropWhile(f -> isMemscopeApi(f.getClassName())).limit(depth).forEach(list::add);
            return list;
        });
        return register(frames);
    }

    /**
     * @return the frame that called {@code function} ({@code pkg.Class.method}), which is being entered on this
     *         thread: the first frame below memscope's own and below the function's own frame, as
     *         {@code pkg.Caller.method(File.java:LINE)}; null when there is none
     */
    static String callerOf(String function) {
        StackWalker.StackFrame f = Walker.WALKER.walk(s -> s.dropWhile(x -> isMemscopeApi(x.getClassName()))
                .skip(1).findFirst().orElse(null));
        if (f == null) {
            return null;
        }
        return io.memscope.recording.Site.frame(f.getClassName(), f.getMethodName(), f.getFileName(),
                f.getLineNumber());
    }

    private static boolean isMemscopeApi(String className) {
        return className.startsWith(HOOKS) || className.startsWith(MEMSCOPE) && isLibrary(className);
    }

    /** @return the id (hash) of these frames, their text registered the first time */
    private long register(List<StackWalker.StackFrame> frames) {
        long h = 0x9E3779B97F4A7C15L;
        for (StackWalker.StackFrame f : frames) {
            h = mix(h, f.getClassName().hashCode());
            h = mix(h, f.getMethodName().hashCode());
            h = mix(h, f.getLineNumber());
        }
        if (h == 0) {
            h = 1;
        }
        if (!this.frames.contains(h)) {
            List<String> text = new ArrayList<>(frames.size());
            for (StackWalker.StackFrame f : frames) {
                text.add(io.memscope.recording.Site.frame(f.getClassName(), f.getMethodName(), f.getFileName(),
                        f.getLineNumber()));
            }
            if (!this.frames.add(h, List.copyOf(text))) {
                return 0; // refused: the table is full of stacks not written yet (counted)
            }
        }
        return h;
    }

    /** Frames walked beyond the stack depth for a tracking arena's allocation, to reach its caller. */
    private static final int ARENA_FRAMES = 24;

    /** Frames looked at to find the site of a JVM-sampled allocation when the stack itself keeps fewer. */
    static final int SITE_SEARCH_FRAMES = 128;

    /** The site of one allocated class (by the sampler library's class id) at one stack (immutable). */
    static final class TypeSite {
        final int classId;
        final int site;

        TypeSite(int classId, int site) {
            this.classId = classId;
            this.site = site;
        }
    }

    /** What a raw JVM stack resolves to: its stack id, the frame its site is named after, and its sites per type. */
    static final class JvmStack {
        final long id;
        final String siteClass;
        final String siteMethod;
        final String siteFile;
        final int siteLine;
        /** No frame outside the JDK: the site is the top (JDK) frame. */
        final boolean jdkOnly;
        /**
         * JDK frames alone, some of them the JMX connector's ({@link #isJmxConnector}): memscope's own queries
         * served in the application's JVM (or another tool's), not the application's allocations.
         */
        final boolean jmxConnector;
        /**
         * The first type name allocated at this stack and its site id ({@link #firstSite} written before it): almost
         * every stack allocates one type only. Other types' sites are in {@link #moreSites}, made when a second one
         * comes (a map per stack cost about 150 bytes each, up to 15 MiB at the default bounds).
         */
        private volatile String firstType;
        private int firstSite;
        private volatile ConcurrentHashMap<String, Integer> moreSites;
        /** {@link SiteFilter} generation &lt;&lt; 1 | accepted: one field, so that it is read and written whole. */
        private volatile int filtered = -1;

        /** @return whether {@code f} keeps samples of this stack (cached per filter) */
        boolean accepted(SiteFilter f) {
            int v = filtered;
            if (v >>> 1 == f.generation && v >= 0) {
                return (v & 1) != 0;
            }
            boolean a = f.accepts(siteClass);
            filtered = f.generation << 1 | (a ? 1 : 0);
            return a;
        }

        /**
         * The last class sampled at this stack and its site: almost always the only one (the top frame's allocation
         * instruction fixes the type, except for reflection and clones). Drain thread only.
         */
        private TypeSite last;

        JvmStack(long id, String siteClass, String siteMethod, String siteFile, int siteLine, boolean jdkOnly,
                 boolean jmxConnector) {
            this.id = id;
            this.jdkOnly = jdkOnly;
            this.jmxConnector = jdkOnly && jmxConnector;
            this.siteClass = siteClass;
            this.siteMethod = siteMethod;
            this.siteFile = siteFile;
            this.siteLine = siteLine;
        }

        /** @return the site of objects of this type allocated at this stack (any thread) */
        int site(String type) {
            String first = firstType;
            if (first != null) {
                if (first.equals(type)) {
                    return firstSite;
                }
                ConcurrentHashMap<String, Integer> more = moreSites;
                Integer s = more == null ? null : more.get(type);
                if (s != null) {
                    return s;
                }
            }
            return register(type);
        }

        private synchronized int register(String type) {
            if (firstType == null) {
                firstSite = SiteTable.registerFrame(siteClass, siteMethod, siteFile, siteLine, type);
                firstType = type;
                return firstSite;
            }
            if (firstType.equals(type)) {
                return firstSite;
            }
            ConcurrentHashMap<String, Integer> more = moreSites;
            if (more == null) {
                more = new ConcurrentHashMap<>(4);
                moreSites = more;
            }
            Integer s = more.get(type);
            if (s == null) {
                s = SiteTable.registerFrame(siteClass, siteMethod, siteFile, siteLine, type);
                more.put(type, s);
            }
            return s;
        }

        /** @return the site of objects of the class {@code classId} (named {@code typeName}) allocated at this stack */
        int site(int classId, String typeName) {
            TypeSite t = last;
            if (t != null && t.classId == classId) {
                return t.site;
            }
            t = new TypeSite(classId, site(typeName));
            last = t;
            return t.site;
        }
    }

    /** memscope's own allocation (a memscope frame on the stack): not a sample. */
    static final JvmStack OWN = new JvmStack(0, "", "", null, 0, false, false);

    /**
     * A sample without Java frames (an allocation by the JVM itself or by native code on a thread with no Java
     * frames; or GetStackTrace failed): its site is {@code unknown.unknown}, without a stack.
     */
    static JvmStack noFrames() {
        return new JvmStack(0, "unknown", "unknown", null, 0, true, false);
    }

    /**
     * Resolves a stack the JVMTI callback took ({@code count} pairs of jmethodID and bytecode index from
     * {@code raw[offset]}, top frame first): the stack id over the first {@code depth} visible frames (same hash and
     * text as {@link #captureFull}), and the site frame: the first frame outside the JDK, or the top frame with
     * {@code includeJdk} or when every frame is the JDK's. Frames of hidden classes (lambda forms) are left out, as
     * StackWalker does, unless every frame is hidden.
     *
     * <p>Runs once per distinct raw stack, so on the drain thread's hot path when samples are dense: plain arrays,
     * per-method facts computed once ({@link SampledMethod#own}, {@link SampledMethod#hidden},
     * {@link SampledMethod#library}) and frame texts formatted once per method and line ({@link SampledMethod#text})
     * keep it small for the JIT (a sprawling version of it was the single most expensive compilation of a capture).
     *
     * @param methods the methods resolved so far by jmethodID (new ones are added): the caller's, one thread's.
     *                HotSpot may reuse the id of a method whose class was unloaded (see docs/agent.md).
     * @return {@link #OWN} when memscope's own code allocated
     */
    JvmStack resolveRaw(long[] raw, int offset, int count, int depth, boolean includeJdk,
                        LongCache<SampledMethod> methods) {
        // One method on purpose: it runs once per distinct raw stack, and a body this size is one the JIT compiles
        // on its own instead of into the drain's per-sample code (where it would be compiled again, rarely run).
        if (count <= 0) {
            return noFrames();
        }
        SampledMethod[] all = new SampledMethod[count];
        int[] allLines = new int[count];
        int visible = 0;
        boolean connector = false;
        for (int i = 0; i < count; i++) {
            long id = raw[offset + 2 * i];
            SampledMethod m = methods.get(id);
            if (m == null) {
                m = method(id, methods);
            }
            if (m.own) {
                return OWN;
            }
            all[i] = m;
            connector |= m.jmxConnector;
            allLines[i] = m.lineAt(raw[offset + 2 * i + 1]);
            if (!m.hidden) {
                visible++;
            }
        }
        // Frames of hidden classes are left out, unless every frame is hidden.
        SampledMethod[] ms = all;
        int[] lines = allLines;
        int kept = count;
        if (visible > 0 && visible < count) {
            ms = new SampledMethod[visible];
            lines = new int[visible];
            kept = 0;
            for (int i = 0; i < count; i++) {
                if (!all[i].hidden) {
                    ms[kept] = all[i];
                    lines[kept++] = allLines[i];
                }
            }
        }
        int app = -1;
        for (int i = 0; i < kept; i++) {
            if (!ms[i].library) {
                app = i;
                break;
            }
        }
        int site = includeJdk || app < 0 ? 0 : app;
        int keep = Math.min(depth, kept);
        long h = stackId(ms, lines, keep);
        if (keep > 0 && !frames.contains(h) && !frames.add(h, frameText(ms, lines, keep))) {
            keep = 0; // refused: the table is full of stacks not written yet (counted)
        }
        SampledMethod sm = ms[site];
        return new JvmStack(keep > 0 ? h : 0, sm.className, sm.name, sm.file, lines[site], app < 0, connector);
    }

    /**
     * A stack of native frames (innermost first, texts like {@code libz.so.1!inflate}, never ending with {@code )})
     * on top of a Java stack of this table (0: none), at most {@code depth} frames in all.
     *
     * @return its id, or 0 when it has no frame or the bounded table refused it
     */
    long mixed(List<String> nativeFrames, long javaStack, int depth) {
        List<String> java = javaStack == 0 ? List.of() : frames(javaStack);
        int n = Math.min(depth, nativeFrames.size() + java.size());
        if (n <= 0) {
            return 0;
        }
        if (nativeFrames.isEmpty() && java.size() <= depth) {
            return javaStack;
        }
        String[] text = new String[n];
        long h = 0x6A09E667F3BCC909L;
        for (int i = 0; i < n; i++) {
            text[i] = i < nativeFrames.size() ? nativeFrames.get(i) : java.get(i - nativeFrames.size());
            h = mix(h, text[i].hashCode());
        }
        if (h == 0) {
            h = 1;
        }
        if (!frames.contains(h) && !frames.add(h, List.of(text))) {
            return 0; // refused: the table is full of stacks not written yet (counted)
        }
        return h;
    }

    /** @return the stack id of the first {@code keep} frames (the hash {@link #register} gives the same frames) */
    private static long stackId(SampledMethod[] methods, int[] lines, int keep) {
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < keep; i++) {
            h = mix(h, methods[i].className.hashCode());
            h = mix(h, methods[i].name.hashCode());
            h = mix(h, lines[i]);
        }
        return h == 0 ? 1 : h;
    }

    private static List<String> frameText(SampledMethod[] methods, int[] lines, int keep) {
        String[] text = new String[keep];
        for (int i = 0; i < keep; i++) {
            SampledMethod m = methods[i];
            text[i] = m.text(lines[i]);
        }
        return List.of(text);
    }

    /** A method not resolved yet: described through JVMTI and added to {@code methods} (unless unknown). */
    private static SampledMethod method(long id, LongCache<SampledMethod> methods) {
        SampledMethod m = SampledMethod.resolve(id);
        if (m == null) {
            return SampledMethod.UNKNOWN;
        }
        methods.put(id, m);
        return m;
    }

    /**
     * @return whether the site search passes over a frame of this class, as library code: the JDK's, or memscope's
     *         own API called by the application (the allocation is then named after the application line that
     *         called it)
     */
    static boolean isLibrary(String className) {
        return io.memscope.launch.SiteFrames.isLibrary(className);
    }

    /**
     * @return whether a class is the JDK's JMX remote or RMI plumbing: the local management agent and its connector
     *         server, RMI transport and JMX's remote side
     */
    static boolean isJmxConnector(String className) {
        return className.startsWith("sun.rmi.") || className.startsWith("java.rmi.")
                || className.startsWith("javax.management.remote.") || className.startsWith("com.sun.jmx.remote.")
                || className.startsWith("jdk.internal.agent.") || className.startsWith("sun.management.jmxremote.");
    }

    static boolean isJdk(String className) {
        return io.memscope.launch.SiteFrames.isJdk(className);
    }

    /** @return the frames of a stack id of this capture, empty when unknown (or after {@link #release}) */
    List<String> frames(long id) {
        return frames.frames(id);
    }

    /** @return the bounded text table (its limit and counters) */
    StackFrames bounded() {
        return frames;
    }

    /** @return the stacks this table holds (0 after {@link #release}) */
    int size() {
        return frames.size();
    }

    /**
     * Empties the table at the end of its capture (whose recording holds every stack it wrote): what a late caller
     * (a hook that read the session just before it ended) adds afterwards goes with the session.
     */
    void release() {
        frames.clear();
    }

    private static long mix(long h, long v) {
        h ^= v + 0x9E3779B97F4A7C15L + (h << 6) + (h >>> 2);
        h *= 0xBF58476D1CE4E5B9L;
        return h ^ (h >>> 31);
    }
}
