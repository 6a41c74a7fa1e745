package io.memscope.internal.recording;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The per-block thread table both block codecs write and read: its bytes, a round trip, and damage. */
class BlockThreadsTest {

    @Test
    void writesANewEntryOnceThenItsReferenceAndReadsThemBack() {
        BlockThreads writer = new BlockThreads();
        writer.reset();
        assertThat(writer.changesTo(0, 0)).isFalse(); // (0, 0) is current at a block's start
        assertThat(writer.changesTo(7, 0)).isTrue();
        ByteSink out = new ByteSink(64);
        writer.write(out, 7, 1);
        writer.write(out, 300, -1); // a thread name id is unsigned 32-bit
        writer.write(out, 7, 1);
        assertThat(writer.changesTo(7, 1)).isFalse();
        assertThat(java.util.Arrays.copyOf(out.array(), out.length())).containsExactly(
                0, 7, 1,                                  // new entry 0: (7, 1)
                1, 0xAC, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, // new entry 1: (300, 2^32 - 1)
                0);                                       // entry 0

        BlockThreads reader = new BlockThreads();
        reader.reset();
        ByteSource in = new ByteSource(new byte[] {0, 7, 1, 1, 9, 2, 0, 1}, 0, 8);
        reader.read(in, 3, "event", 0);
        assertThat(reader.threadId()).isEqualTo(7);
        assertThat(reader.threadNameId()).isEqualTo(1);
        reader.read(in, 3, "event", 1);
        assertThat(reader.threadId()).isEqualTo(9);
        assertThat(reader.threadNameId()).isEqualTo(2);
        reader.read(in, 3, "event", 2);
        assertThat(reader.threadId()).isEqualTo(7);
        reader.read(in, 3, "event", 3);
        assertThat(reader.threadId()).isEqualTo(9);
        reader.reset();
        assertThat(reader.threadId()).isZero();
        assertThat(reader.threadNameId()).isZero();
    }

    @Test
    void readsARepeatedEntryAsWrittenAndRefusesReferencesBeyondTheTable() {
        BlockThreads reader = new BlockThreads();
        reader.reset();
        // entries 0 and 1 are the same thread (an encoder does not write that, but a reader takes the table as is)
        ByteSource in = new ByteSource(new byte[] {0, 5, 0, 1, 5, 0, 1, 3}, 0, 8);
        reader.read(in, 1, "scope edge", 0);
        reader.read(in, 1, "scope edge", 1);
        reader.read(in, 1, "scope edge", 2);
        assertThat(reader.threadId()).isEqualTo(5);
        assertThatThrownBy(() -> reader.read(in, 1, "scope edge", 3))
                .isInstanceOf(ByteSource.Malformed.class)
                .hasMessageContaining("scope edge 3: thread reference 3 beyond the block's 2 threads");

        BlockThreads fresh = new BlockThreads();
        fresh.reset();
        ByteSource undefinedName = new ByteSource(new byte[] {0, 5, 4}, 0, 3);
        assertThatThrownBy(() -> fresh.read(undefinedName, 4, "event", 0))
                .isInstanceOf(ByteSource.Malformed.class)
                .hasMessageContaining("thread name string id 4 is not defined");
    }
}
