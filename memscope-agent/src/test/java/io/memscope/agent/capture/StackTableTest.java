package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A stack table is one capture's: two tables share nothing, the same frames get the same id in both (an id is a hash
 * of the frames, not an index), and a released table holds nothing.
 */
class StackTableTest {
    @Test
    void tablesAreIndependentAndReleaseEmptiesThem() {
        StackTable first = new StackTable();
        StackTable second = new StackTable();
        long id = captureHere(first);
        assertThat(id).isNotZero();
        assertThat(first.frames(id)).isNotEmpty();
        assertThat(first.frames(id)).as("memscope's agent frames (this test's too) are left out")
                .noneMatch(f -> f.startsWith("io.memscope.agent."));
        assertThat(first.size()).isEqualTo(1);
        assertThat(second.frames(id)).as("another capture's table").isEmpty();
        assertThat(second.size()).isZero();

        assertThat(captureHere(second)).as("the same frames, the same id").isEqualTo(id);
        assertThat(second.frames(id)).isEqualTo(first.frames(id));

        first.release();
        assertThat(first.size()).isZero();
        assertThat(first.frames(id)).isEmpty();
        assertThat(second.frames(id)).as("released one table, not the other").isNotEmpty();
    }

    @Test
    void noDepthNoStack() {
        StackTable t = new StackTable();
        assertThat(t.capture(0)).isZero();
        assertThat(t.size()).isZero();
    }

    /** A stack's site per allocated type: the first type's kept in fields, others' in a map made for them. */
    @Test
    void aStackHasOneSitePerAllocatedType() {
        StackTable.JvmStack js = new StackTable.JvmStack(7, "com.acme.Parser", "parse", "Parser.java", 12, false,
                false);
        int bytes = js.site("byte[]");
        int chars = js.site("char[]");
        assertThat(chars).isNotEqualTo(bytes);
        assertThat(js.site("byte[]")).isEqualTo(bytes);
        assertThat(js.site("char[]")).isEqualTo(chars);
        assertThat(js.site(1, "byte[]")).isEqualTo(bytes);
        assertThat(js.site(2, "char[]")).isEqualTo(chars);
    }

    private static long captureHere(StackTable t) {
        return t.capture(8); // the frames below this test's (agent-package) frames: the same for both calls
    }
}
