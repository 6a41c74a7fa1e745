package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Native frames of malloc samples: a mixed stack is its native frames (innermost first) on top of a Java stack of
 * the same table, capped at the depth asked for, with an id that depends on every frame; a frame's text splits into
 * library and function ({@code lib!function}, or {@code lib+0xOFF} for code without a symbol).
 */
class NativeFramesTest {
    @Test
    void nativeFramesGoOnTopOfTheJavaStackUpToTheDepth() {
        StackTable t = new StackTable();
        long java = t.capture(16);
        List<String> javaFrames = t.frames(java);
        assertThat(javaFrames).isNotEmpty();
        List<String> natives = List.of("libz.so.1!inflateInit2_", "libzip.so+0xbb16");
        long mixed = t.mixed(natives, java, 64);
        assertThat(mixed).isNotZero().isNotEqualTo(java);
        assertThat(t.frames(mixed).subList(0, 2)).isEqualTo(natives);
        assertThat(t.frames(mixed).subList(2, t.frames(mixed).size())).isEqualTo(javaFrames);
        assertThat(t.mixed(natives, java, 64)).as("the same frames, the same id").isEqualTo(mixed);
        assertThat(t.mixed(List.of("libz.so.1!inflate", "libzip.so+0xbb16"), java, 64)).isNotEqualTo(mixed);
        assertThat(t.frames(t.mixed(natives, java, 3))).hasSize(3);
        assertThat(t.mixed(List.of(), java, 64)).as("no native frame: the Java stack itself").isEqualTo(java);
        assertThat(t.frames(t.mixed(natives, 0, 64))).isEqualTo(natives);
        assertThat(t.mixed(List.of(), 0, 64)).as("no frame at all").isZero();
    }

    @Test
    void aFrameSplitsIntoLibraryAndFunction() {
        assertThat(NativeSymbols.library("libz.so.1!inflateInit2_")).isEqualTo("libz.so.1");
        assertThat(NativeSymbols.function("libz.so.1!inflateInit2_")).isEqualTo("inflateInit2_");
        assertThat(NativeSymbols.library("libzip.so+0xbb16")).isEqualTo("libzip.so");
        assertThat(NativeSymbols.function("libzip.so+0xbb16")).isEqualTo("+0xbb16");
        assertThat(NativeSymbols.isLibc("libc.so.6")).isTrue();
        assertThat(NativeSymbols.isLibc("libcrypto.so.3")).isFalse();
    }
}
