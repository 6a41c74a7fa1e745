package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The causes of malloc samples without Java frames, as the hooks' record word carries them (malloc_hooks.c): named,
 * told apart (an anomaly or a thread with no Java frame to walk), and counted into the metadata.
 */
class NoJavaStackTest {
    @Test
    void causesAreNamedAndOnlyWalkFailuresAreAnomalies() {
        assertThat(NoJavaStack.cause(3)).isZero(); // frames: no cause
        assertThat(NoJavaStack.cause(-2)).isEqualTo(-2);
        assertThat(NoJavaStack.cause(-99)).isEqualTo(-7); // a code this version does not know: an unknown state
        assertThat(NoJavaStack.notWalkable(-2)).isTrue();
        assertThat(NoJavaStack.notWalkable(-10)).isTrue();
        assertThat(NoJavaStack.notWalkable(0)).isFalse();
        assertThat(NoJavaStack.notWalkable(NoJavaStack.NOT_A_JVM_THREAD)).isFalse();
        assertThat(NoJavaStack.siteName(-2)).isEqualTo("(Java stack not walkable: a collection was running)");
        assertThat(NoJavaStack.frame(-4)).isEqualTo("[Java stack not walkable: a frame outside Java code it could "
                + "not walk]");
        assertThat(NoJavaStack.siteName(0)).isEqualTo("(no Java frames)");
        assertThat(NoJavaStack.siteName(NoJavaStack.NOT_A_JVM_THREAD)).isEqualTo("(not a thread of the JVM)");
        assertThat(NoJavaStack.frame(0)).isNull();
        assertThat(NoJavaStack.frame(NoJavaStack.NOT_A_JVM_THREAD)).isNull();
        // a frame text never ends with ')': it is not read as a Java frame
        for (int cause = -1; cause > NoJavaStack.NOT_A_JVM_THREAD; cause--) {
            assertThat(NoJavaStack.frame(cause)).doesNotEndWith(")");
        }
    }

    @Test
    void countsGoIntoTheMetadataByCauseWithTheAnomaliesSummed() {
        long[] counters = new long[11 + NoJavaStack.CAUSES];
        counters[11] = 4; // no Java frames
        counters[11 + 2] = 5; // a collection running
        counters[11 + 4] = 6; // not walkable outside Java
        counters[11 + 11] = 1; // not a JVM thread
        Map<String, String> meta = new LinkedHashMap<>();
        NoJavaStack.metadata(counters, 11, meta);
        assertThat(meta).containsExactly(Map.entry("malloc.noJavaStack.noJavaFrames", "4"),
                Map.entry("malloc.noJavaStack.gcActive", "5"),
                Map.entry("malloc.noJavaStack.notWalkableNotInJava", "6"),
                Map.entry("malloc.noJavaStack.notAJvmThread", "1"),
                Map.entry("malloc.javaStackNotWalkable", "11"));
    }
}
