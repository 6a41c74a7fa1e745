package io.memscope.launch;

/**
 * How the JVM sampler gets a sample's stack (agent option {@code stackWalk=}). JVMTI's GetStackTrace is exact but
 * costs most of a sample; a walk of the thread's own frames names the same stack for a fraction of that, and when it
 * names one seen before, the earlier answer is reused (the sampler library's stack_key.h says what names a frame, and
 * when a walk gives up). The stacks recorded are the same either way.
 */
public enum StackWalk {
    /** Always GetStackTrace. */
    OFF,
    /** Reuse earlier answers; every 1024th reuse (per thread) is compared with GetStackTrace's, and one
     *  difference turns reuse off for the JVM's life (counted in the recording's metadata). */
    ON,
    /** Reuse earlier answers, comparing every one with GetStackTrace's (for tests: slower than OFF). */
    CHECK;

    /** @return the sampler library's code for it */
    public int code() {
        return ordinal();
    }
}
