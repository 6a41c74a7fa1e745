package io.memscope.agent.capture;

import java.util.Map;

/**
 * The Java heap the capture itself holds, estimated from its tables' sizes (docs/agent.md "The agent's own heap"):
 * what stands between the heap the JVM reports in use and what memscope reports held by the application.
 *
 * <p>The parts: the two reserves for running out of memory (their exact sizes, held while the capture runs); the
 * stacks' text ({@link StackFrames#bytes}: the stacks held times the mean size of those added, each frame string at
 * its length); the malloc drain's buffer when malloc is sampled (exact); and the other tables' entries at a fixed size
 * each: a site {@value #SITE_BYTES} bytes (its descriptor and names, its key in the site index, its per-site
 * figures), a name in the capture's string table {@value #STRING_BYTES}, a name in the recording's string table
 * {@value #FILE_STRING_BYTES} (the name, its map entry and id), a resolved stack {@value #RESOLVED_STACK_BYTES} (with
 * its per-type site map), a method {@value #METHOD_BYTES} (names, line table, frame texts), a thread
 * {@value #THREAD_BYTES}. Those sizes are the mean sizes class histograms of an hour-long soak at the default bounds
 * showed (docs/benchmarks.md, "What the heap holds"), not measurements of this run: the total is an estimate, to a
 * few tens of percent, of memory most of which (at rest, the reserves) is known exactly. Objects that are garbage already, the classes' static data and the application's sampled objects
 * (weakly referenced from native memory) are not in it.
 */
final class AgentHeap {
    static final int SITE_BYTES = 416;
    static final int STRING_BYTES = 96;
    static final int FILE_STRING_BYTES = 150;
    static final int RESOLVED_STACK_BYTES = 256;
    static final int METHOD_BYTES = 256;
    static final int THREAD_BYTES = 256;

    private AgentHeap() {
    }

    /**
     * @param s      the capture
     * @param bounds its tables' figures ({@link TableBounds#figures}): {@code sites}, {@code strings},
     *               {@code resolvedStacks}, {@code methods}, {@code threads}
     * @return estimated heap bytes the capture holds
     */
    static long estimate(CaptureSession s, Map<String, Long> bounds) {
        long b = 0;
        OutOfMemoryWatch w = s.outOfMemory;
        if (w != null) {
            b += w.reserveBytes;
        }
        b += s.stacks.bounded().bytes();
        if (s.mallocSampler != null) {
            b += MallocSampler.BUFFER_BYTES;
        }
        b += SITE_BYTES * bounds.getOrDefault("sites", 0L);
        b += STRING_BYTES * bounds.getOrDefault("strings", 0L);
        b += FILE_STRING_BYTES * (s.recording == null ? 0L : s.recording.fileStrings());
        b += RESOLVED_STACK_BYTES * bounds.getOrDefault("resolvedStacks", 0L);
        b += METHOD_BYTES * bounds.getOrDefault("methods", 0L);
        b += THREAD_BYTES * bounds.getOrDefault("threads", 0L);
        return b;
    }
}
