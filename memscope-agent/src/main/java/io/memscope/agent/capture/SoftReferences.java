package io.memscope.agent.capture;

import io.memscope.agent.boot.SamplerNatives;
import io.memscope.internal.error.Failures;
import java.lang.ref.SoftReference;

/**
 * A full collection that clears the soft references nobody used since it was asked for, the way the JVM clears them
 * when memory runs short: so that what is only softly reachable (caches the JVM may drop at any time, such as the
 * JDK's locale data) is not taken for memory a test keeps.
 *
 * <p>HotSpot's collectors clear a soft reference when the time since its last {@code get()} (its {@code timestamp},
 * copied from {@code SoftReference.clock}) exceeds about one second per free MiB of heap
 * ({@code -XX:SoftRefLRUPolicyMSPerMB}). The JVMTI sampler library walks the heap once for the SoftReferences and
 * moves their timestamps far into the past ({@code jvmtiAgeSoftReferences0}); the {@link System#gc()} that follows
 * then clears every soft reference not used in between, and nothing else. The JVM may clear soft references whenever
 * it likes, so an application loses nothing it was promised: its caches are rebuilt on their next use.
 */
final class SoftReferences {
    private SoftReferences() {
    }

    /**
     * Runs a full collection that clears the soft references not used since the call started.
     *
     * @return whether they could be cleared (false: no JVMTI sampler library here, or it failed; a plain
     *         {@code System.gc()} ran)
     */
    static synchronized boolean fullGcClearing() {
        boolean aged = false;
        if (SamplerLibrary.load().isEmpty()) {
            try {
                int n = SamplerNatives.ageSoftReferences(SoftReference.class);
                aged = n >= 0;
                if (!aged) {
                    Failures.report("agent.softReferences", new IllegalStateException("error " + n));
                }
            } catch (Throwable t) {
                Failures.report("agent.softReferences", t);
            }
        }
        System.gc();
        return aged;
    }
}
