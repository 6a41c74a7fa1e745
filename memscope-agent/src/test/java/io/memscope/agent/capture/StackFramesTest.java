package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounded stack texts: written stacks go first, stacks in use stay, unwritten ones are never dropped. */
class StackFramesTest {
    private static List<String> text(long id) {
        return List.of("a.B.c(B.java:" + id + ")");
    }

    @Test
    void writtenStacksAreEvictedAndTheTableStaysWithinItsLimit() {
        StackFrames f = new StackFrames();
        f.limit(8);
        for (long id = 1; id <= 100; id++) {
            assertThat(f.add(id, text(id))).isTrue();
            assertThat(f.written(id)).isTrue();
            assertThat(f.size()).isLessThanOrEqualTo(8);
        }
        assertThat(f.highest()).isLessThanOrEqualTo(8);
        assertThat(f.evicted()).isGreaterThanOrEqualTo(100 - 8);
        assertThat(f.refused()).isZero();
        assertThat(f.frames(100)).isEqualTo(text(100));
        assertThat(f.frames(1)).as("evicted long ago").isEmpty();
    }

    @Test
    void aStackUsedAgainStays() {
        StackFrames f = new StackFrames();
        f.limit(8);
        f.add(1, text(1));
        f.written(1);
        for (long id = 2; id <= 60; id++) {
            f.add(id, text(id));
            f.written(id);
            assertThat(f.contains(1)).as("used at every step").isTrue();
        }
        assertThat(f.frames(1)).isEqualTo(text(1));
    }

    @Test
    void unwrittenStacksAreKeptAndNewOnesRefusedWhenFull() {
        StackFrames f = new StackFrames();
        f.limit(8);
        int accepted = 0;
        for (long id = 1; id <= 20; id++) {
            if (f.add(id, text(id))) {
                accepted++;
            }
        }
        assertThat(accepted).isEqualTo(8);
        assertThat(f.refused()).isEqualTo(12);
        assertThat(f.evicted()).isZero();
        for (long id = 1; id <= 20; id++) {
            if (!f.frames(id).isEmpty()) {
                assertThat(f.written(id)).isTrue();
            }
        }
        assertThat(f.add(21, text(21))).as("room again once written").isTrue();
        assertThat(f.written(99)).as("never held").isFalse();
        assertThat(f.lost()).isEqualTo(1);
    }

    @Test
    void unwriteAllKeepsEveryStackUntilWrittenAgain() {
        StackFrames f = new StackFrames();
        f.limit(8);
        for (long id = 1; id <= 8; id++) {
            f.add(id, text(id));
            f.written(id);
        }
        f.unwriteAll();
        assertThat(f.add(100, text(100))).as("full of unwritten stacks").isFalse();
        for (long id = 1; id <= 8; id++) {
            assertThat(f.frames(id)).isEqualTo(text(id));
        }
    }
}
