package io.memscope.agent.capture;

import io.memscope.launch.MetadataKeys;
import java.util.Map;

/**
 * Why a malloc sample has no Java frames, and what it is named instead of a Java site. The hooks
 * (src/main/native/malloc_hooks.c) put the cause in a record's java count when it is 0 or negative: AsyncGetCallTrace's
 * own code (HotSpot's forte.cpp: 0 the thread had no Java frame; -1 .. -10 its Java stack could not be walked), or
 * {@value #NOT_A_JVM_THREAD} for a thread the JVM does not know. They count every sample per cause; the counts go
 * into the recording's metadata ({@link #metadata}).
 *
 * <p>A thread without Java frames (a JVM or native thread) is expected; a Java thread whose stack could not be
 * walked is an anomaly, counted by cause: its sample is kept (its bytes are real), named by its innermost native
 * function outside libc when it has one, else by the placeholder {@code (Java stack not walkable: <cause>)}; its
 * stack ends with the frame {@code [Java stack not walkable: <cause>]} where the Java frames would be (square
 * brackets: not code, and never read as a Java frame, which ends with {@code )}; docs/formats/recording.md 4.3).
 */
final class NoJavaStack {
    /** The cause of a thread the JVM does not know (GetEnv fails): AsyncGetCallTrace was not asked. */
    static final int NOT_A_JVM_THREAD = -11;
    /** Causes counted: index {@code -code}, 0 .. 11. */
    static final int CAUSES = 12;
    /** Metadata key prefix of the per-cause counts ({@code malloc.noJavaStack.gcActive}), written when not 0. */
    static final String KEY_PREFIX = MetadataKeys.MALLOC_NO_JAVA_STACK_PREFIX;

    /** By index -code: the metadata key's suffix, and the words a reader sees. */
    private static final String[][] CAUSE = {
        {"noJavaFrames", "no Java frames"},
        {"noClassLoadEvents", "AsyncGetCallTrace without ClassLoad events"},
        {"gcActive", "a collection was running"},
        {"unknownFrameNotInJava", "an unknown frame outside Java code"},
        {"notWalkableNotInJava", "a frame outside Java code it could not walk"},
        {"unknownFrameInJava", "an unknown frame in Java code"},
        {"notWalkableInJava", "a frame in Java code it could not walk"},
        {"unknownThreadState", "an unknown thread state"},
        {"threadExiting", "the thread was exiting"},
        {"inDeoptimization", "the thread was being deoptimized"},
        {"atSafepoint", "at a safepoint"},
        {"notAJvmThread", "not a thread of the JVM"},
    };

    private NoJavaStack() {
    }

    /** @return the cause of a record's java count (0 or negative), one this class knows ({@code -7} otherwise) */
    static int cause(long javaCount) {
        return javaCount > 0 ? 0 : javaCount < NOT_A_JVM_THREAD ? -7 : (int) javaCount;
    }

    /** @return whether the cause means a Java thread whose stack AsyncGetCallTrace could not walk (an anomaly) */
    static boolean notWalkable(int cause) {
        return cause < 0 && cause > NOT_A_JVM_THREAD;
    }

    /** @return the words of a cause, e.g. {@code a collection was running} */
    static String words(int cause) {
        return CAUSE[-cause][1];
    }

    /**
     * @return the site's class name when the sample has no native function outside libc either: {@code (Java stack
     *         not walkable: <cause>)}, {@code (no Java frames)} or {@code (not a thread of the JVM)}
     */
    static String siteName(int cause) {
        return notWalkable(cause) ? "(Java stack not walkable: " + words(cause) + ")" : "(" + words(cause) + ")";
    }

    /** @return the frame that stands where the Java frames would be, or null when the thread had none to walk */
    static String frame(int cause) {
        return notWalkable(cause) ? "[Java stack not walkable: " + words(cause) + "]" : null;
    }

    /**
     * Writes the counts per cause that are not 0 ({@value #KEY_PREFIX}{@code <cause>}) and their sum over the causes
     * that are anomalies ({@link MetadataKeys#MALLOC_JAVA_STACK_NOT_WALKABLE}, always).
     *
     * @param counters the hooks' counters
     * @param offset   where the per-cause counts begin (index -code)
     */
    static void metadata(long[] counters, int offset, Map<String, String> into) {
        long notWalkable = 0;
        for (int i = 0; i < CAUSES && offset + i < counters.length; i++) {
            long n = counters[offset + i];
            if (n != 0) {
                into.put(KEY_PREFIX + CAUSE[i][0], Long.toString(n));
            }
            if (notWalkable(-i)) {
                notWalkable += n;
            }
        }
        into.put(MetadataKeys.MALLOC_JAVA_STACK_NOT_WALKABLE, Long.toString(notWalkable));
    }
}
