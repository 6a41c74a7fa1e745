package io.memscope.internal.recording;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The writer's CRC-32C: the same values as the JDK's {@link CRC32C}, before and after it moves to that class. */
class Crc32cTest {

    @Test
    void theTableGivesTheKnownCheckValueAndTheJdksValues() {
        Crc32c c = new Crc32c(Long.MAX_VALUE);
        byte[] check = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        c.reset();
        c.update(check, 0, check.length);
        assertThat(c.getValue()).as("CRC-32C check value").isEqualTo(0xE3069283L);
        assertThat(c.usesJdk()).isFalse();

        SplittableRandom r = new SplittableRandom(11);
        for (int n = 0; n < 300; n++) {
            byte[] b = new byte[n + 20];
            r.nextBytes(b);
            int off = r.nextInt(10);
            c.reset();
            c.update(b, off, n);
            c.update(b[off + n]); // one byte alone, as Checksum.update(int)
            CRC32C jdk = new CRC32C();
            jdk.update(b, off, n + 1);
            assertThat(c.getValue()).as("%d bytes", n + 1).isEqualTo(jdk.getValue());
        }
    }

    @Test
    void movesToTheJdksClassAtAResetOnceItCheckedEnoughBytesAndKeepsTheValues() {
        Crc32c c = new Crc32c(1000);
        SplittableRandom r = new SplittableRandom(7);
        int blocks = 0;
        for (long checked = 0; checked < 5000; blocks++) {
            byte[] b = new byte[1 + r.nextInt(700)];
            r.nextBytes(b);
            c.reset();
            assertThat(c.usesJdk()).as("after %d bytes", checked).isEqualTo(checked >= 1000);
            int head = Math.min(8, b.length); // a block's two parts, as the writer checks them
            c.update(b, 0, head);
            c.update(b, head, b.length - head);
            CRC32C jdk = new CRC32C();
            jdk.update(b, 0, b.length);
            assertThat(c.getValue()).as("block %d", blocks).isEqualTo(jdk.getValue());
            checked += b.length;
        }
        assertThat(c.usesJdk()).isTrue();
    }
}
