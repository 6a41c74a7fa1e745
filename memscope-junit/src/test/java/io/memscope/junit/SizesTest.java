package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void formatsWithThreeDigits() {
        assertThat(Sizes.format(512)).isEqualTo("512 B");
        assertThat(Sizes.format(1536)).isEqualTo("1.50 KiB");
        assertThat(Sizes.format(50L << 20)).isEqualTo("50.0 MiB");
        assertThat(Sizes.format(300L << 30)).isEqualTo("300 GiB");
        assertThat(Sizes.format(-2048)).isEqualTo("-2.00 KiB");
    }
}
