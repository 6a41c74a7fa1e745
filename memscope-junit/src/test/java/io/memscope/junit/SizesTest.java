package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.launch.OptionValues;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.PreconditionViolationException;

class SizesTest {
    @Test
    void parsesNumbersAndBinaryUnits() {
        assertThat(Sizes.parse("0", "x")).isZero();
        assertThat(Sizes.parse("4096", "x")).isEqualTo(4096);
        assertThat(Sizes.parse("512k", "x")).isEqualTo(512 * 1024);
        assertThat(Sizes.parse("50MB", "x")).isEqualTo(50L << 20);
        assertThat(Sizes.parse(" 1.5 GiB ", "x")).isEqualTo(3L << 29);
        assertThat(Sizes.parse("2tb", "x")).isEqualTo(2L << 40);
        assertThat(Sizes.parse("1_000", "x")).isEqualTo(1000);
    }

    @Test
    void rejectsWhatIsNotASize() {
        for (String bad : new String[] {"", "MB", "-1MB", "12 apples", "1.2.3", "99999999999TB", null}) {
            assertThatThrownBy(() -> Sizes.parse(bad, "@MaxAllocation")).as(bad)
                    .isInstanceOf(PreconditionViolationException.class).hasMessageContaining("@MaxAllocation")
                    .hasMessageContaining("is not a size");
        }
    }

    /** A size means the same in an annotation as in the agent's options: one grammar, read in two modules. */
    @Test
    void agreesWithTheAgentsOptions() {
        String[] sizes = {"0", "4096", "512k", "512K", "512kb", "512KiB", "50MB", "50mib", " 1.5 GiB ", "2tb", "2T",
            "1_000", "1__0", "_1", ".5k", "1.", "3b", "0.3", "1.9999B", "9007199254740993", "8388607.999TiB",
            "", "MB", "-1MB", "12 apples", "1.2.3", "99999999999TB", ".", "1e3", "0x10", "1 p", "1kk", null};
        for (String s : sizes) {
            Long annotation = parsedOrNull(() -> Sizes.parse(s, "x"));
            Long agent = parsedOrNull(() -> OptionValues.parseBytes(s));
            assertThat(annotation).as("'" + s + "'").isEqualTo(agent);
        }
        assertThat(OptionValues.parseBytes("9007199254740993")).isEqualTo(9007199254740993L); // exact, not a double
    }

    private static Long parsedOrNull(java.util.function.LongSupplier parse) {
        try {
            return parse.getAsLong();
        } catch (IllegalArgumentException | PreconditionViolationException e) {
            return null;
        }
    }

    @Test
    void formatsWithThreeDigits() {
        assertThat(Sizes.format(512)).isEqualTo("512 B");
        assertThat(Sizes.format(1536)).isEqualTo("1.50 KiB");
        assertThat(Sizes.format(50L << 20)).isEqualTo("50.0 MiB");
        assertThat(Sizes.format(300L << 30)).isEqualTo("300 GiB");
        assertThat(Sizes.format(-2048)).isEqualTo("-2.00 KiB");
    }
}
