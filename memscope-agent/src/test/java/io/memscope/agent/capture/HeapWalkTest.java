package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The heap walk's Java heap check: the answer may take a quarter of the heap's free room (garbage counted as used),
 * and a walk refused for it, or for the machine's memory, says why in numbers. The walk itself runs end to end in
 * the CLI's RetentionTest and RetentionShapesTest.
 */
class HeapWalkTest {
    @Test
    void theAnswerTakesAQuarterOfTheJavaHeapLeft() {
        assertThat(HeapWalk.javaHeapRoom(512L << 20, 500L << 20)).isEqualTo(12L << 20);
        assertThat(HeapWalk.answerBytes(HeapWalk.javaHeapRoom(512L << 20, 500L << 20))).isEqualTo(3L << 20);
        assertThat(HeapWalk.javaHeapRoom(512L << 20, 600L << 20)).isZero();
        assertThat(HeapWalk.javaHeapRoom(Long.MAX_VALUE, 1)).isZero(); // no limit known: nothing is assumed free
        assertThat(HeapWalk.answerBytes(0)).isZero();
    }

    @Test
    void aRefusedWalkSaysWhyInNumbers() {
        long[] stats = new long[HeapWalk.STATS];
        stats[HeapWalk.ERROR] = -9;
        stats[HeapWalk.TRACKED] = 5000;
        assertThat(HeapWalk.why(stats, HeapWalk.Budget.DEFAULT, 3L << 20)).isEqualTo("not enough free Java heap for "
                + "the walk's answer: 3 MiB free, the answer may take a quarter of it, and the paths of 5000 tracked "
                + "samples need more (the walk did not start: no pause)");
        stats[HeapWalk.ERROR] = -6;
        stats[HeapWalk.AVAILABLE] = 1L << 20;
        assertThat(HeapWalk.why(stats, HeapWalk.Budget.DEFAULT, 3L << 20)).isEqualTo("not enough free memory for "
                + "the walk: its budget is 256 MiB, the machine and its cgroup have 1 MiB free (the walk takes at "
                + "most half of it)");
    }
}
