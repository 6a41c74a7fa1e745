package io.memscope.agent.capture;

import io.memscope.agent.boot.SamplerNatives;

/**
 * A method of a JVM-sampled stack, resolved once through JVMTI ({@link #resolve}): its class, name, source file and
 * line table, the frame texts of the lines it was seen at, and the facts {@link StackTable#resolveRaw} tests on every
 * frame. Kept by the JVM sampler's {@link SampleResolver} by jmethodID, so used by the drain thread only.
 */
final class SampledMethod {
    /**
     * A method the JVM could not describe (its class was unloaded, or AsyncGetCallTrace gave no jmethodID for the
     * frame): its frames are {@code unknown.unknown}, and the site search passes over them as over library code, so
     * that a frame nobody can name never hides the known application frame below it.
     */
    static final SampledMethod UNKNOWN = new SampledMethod("unknown", "unknown", null, new int[0], false, false,
            true);
    /** Frame texts a method remembers. */
    private static final int TEXTS = 8;

    final String className;
    final String name;
    final String file;
    /** Pairs (first bytecode index, line) in order of bytecode index (stable); empty when unknown. */
    final int[] lines;
    /**
     * Frames of hidden classes (lambda forms, lambda proxies) and reflection plumbing: left out, as StackWalker
     * does.
     */
    final boolean hidden;
    /** memscope's own frame (agent, hook class, memscope's static initializers): the sample is memscope's. */
    final boolean own;
    /** The site search passes over it ({@link StackTable#isLibrary}). */
    final boolean library;
    /**
     * The JDK's JMX remote or RMI plumbing ({@link StackTable#isJmxConnector}): on a stack without application frames,
     * the work of a JMX connector (the one {@code memscope live/top/accounting} start), not the application's.
     */
    final boolean jmxConnector;

    /** Frame text by line, for the first {@value #TEXTS} lines asked for (most methods show one or two). */
    private final int[] textLines = new int[TEXTS];
    private final String[] texts = new String[TEXTS];
    private int textCount;

    private SampledMethod(String className, String name, String file, int[] lines, boolean hidden, boolean own,
                          boolean library) {
        this.className = className;
        this.name = name;
        this.file = file;
        this.lines = lines;
        this.hidden = hidden;
        this.own = own;
        this.library = library;
        this.jmxConnector = StackTable.isJmxConnector(className);
    }

    /**
     * Resolves a method through JVMTI: its class, name and source file ({@code SamplerNatives.describe}:
     * {@code "Lpkg/Class;<TAB>name<TAB>File.java"}), its line table (sorted here, so that {@link #lineAt} stops
     * early), and the facts the stack resolution tests on every frame.
     *
     * <p>One method on purpose, longer than C2's {@code FreqInlineSize} (325 bytes of bytecode): it runs once
     * per method, from {@link StackTable#resolveRaw}'s loop over a new stack's frames, and split into smaller
     * ones it would be inlined, string handling and all, into every compilation of that loop.
     *
     * @return the method, or null when it is gone (its class was unloaded) or the JVM cannot say
     */
    static SampledMethod resolve(long id) {
        String s;
        try {
            s = !SamplerLibrary.loaded() ? null : SamplerNatives.describe(id);
        } catch (Throwable t) {
            return null;
        }
        if (s == null) {
            return null;
        }
        int t1 = s.indexOf('\t');
        int t2 = t1 < 0 ? -1 : s.indexOf('\t', t1 + 1);
        if (t2 < 0 || s.indexOf('\t', t2 + 1) >= 0 || t1 < 3 || s.charAt(0) != 'L') {
            return null;
        }
        String className = s.substring(1, t1 - 1).replace('/', '.');
        String name = s.substring(t1 + 1, t2);
        String file = t2 + 1 == s.length() ? null : s.substring(t2 + 1);
        int[] lines;
        try {
            lines = SamplerNatives.lines(id);
        } catch (Throwable t) {
            lines = null;
        }
        if (lines == null) {
            lines = new int[0];
        } else {
            // pairs by first bytecode index, equal ones in their order (insertion sort: short, mostly sorted)
            lines = java.util.Arrays.copyOf(lines, lines.length & ~1);
            for (int i = 2; i < lines.length; i += 2) {
                int start = lines[i];
                int line = lines[i + 1];
                int j = i - 2;
                for (; j >= 0 && lines[j] > start; j -= 2) {
                    lines[j + 2] = lines[j];
                    lines[j + 3] = lines[j + 1];
                }
                lines[j + 2] = start;
                lines[j + 3] = line;
            }
        }
        boolean hidden = className.contains("/0x") || className.contains("+0x") || className.contains(".0x")
                || className.startsWith("jdk.internal.reflect.");
        boolean library = StackTable.isLibrary(className);
        // memscope's static initializers (the application's copy of memscope-core: class loading, the agent
        // link's method handles) are memscope's one-time cost, not the allocation of the line that first used it
        boolean own = className.startsWith(StackTable.AGENT) || className.startsWith(StackTable.HOOKS)
                || name.equals("<clinit>") && className.startsWith(StackTable.MEMSCOPE) && library;
        return new SampledMethod(className, name, file, lines, hidden, own, library);
    }

    /**
     * @return this method's frame at {@code line} ({@link io.memscope.recording.Site#frame}): the same String
     *         for each stack it appears in, so that a new stack's frames are formatted and hashed once each
     */
    String text(int line) {
        for (int i = 0; i < textCount; i++) {
            if (textLines[i] == line) {
                return texts[i];
            }
        }
        return newText(line);
    }

    private String newText(int line) {
        String t = io.memscope.recording.Site.frame(className, name, file, line);
        if (textCount < TEXTS) {
            textLines[textCount] = line;
            texts[textCount++] = t;
        }
        return t;
    }

    /** @return the source line of a bytecode index, -1 when unknown, -2 in a native method (as StackWalker) */
    int lineAt(long bci) {
        if (bci < 0) {
            return -2;
        }
        int best = -1;
        long bestStart = -1;
        for (int i = 0; i < lines.length && lines[i] <= bci; i += 2) {
            if (lines[i] > bestStart) {
                bestStart = lines[i];
                best = lines[i + 1];
            }
        }
        return best;
    }
}
