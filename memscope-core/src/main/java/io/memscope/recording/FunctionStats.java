package io.memscope.recording;

/**
 * A function's cumulative figures at one call site, from a FUNCTIONS block (format 1.2): the function profile of
 * the agent ({@code functions=PATTERN}). A later entry for the same function, descriptor and call site supersedes
 * the earlier ones.
 *
 * @param function               {@code pkg.Class.method}
 * @param descriptor             the JVM method descriptor ({@code (Ljava/lang/String;)V}): overloads apart; null
 *                               when unknown
 * @param callSite               the calling frame, {@code pkg.Caller.method(File.java:LINE)}; null when unknown
 * @param calls                  outermost calls completed (a call made while the function was already on the
 *                               thread's stack is recursive, not counted here)
 * @param recursiveCalls         calls made while the function was already on the thread's stack
 * @param totalNanos             the outermost calls' durations, summed ({@code System.nanoTime()} differences)
 * @param maxNanos               the longest outermost call
 * @param allocatedBytes         heap bytes the thread allocated inside the outermost calls, exact
 *                               ({@code ThreadMXBean}), the agent's own allocations left out
 * @param callsWithoutAllocation outermost calls whose thread could not measure allocated bytes (virtual threads)
 */
public record FunctionStats(String function, String descriptor, String callSite, long calls, long recursiveCalls,
                            long totalNanos, long maxNanos, long allocatedBytes, long callsWithoutAllocation) {
}
