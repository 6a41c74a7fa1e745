package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.internal.recording.BlockType;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RETENTION blocks (format 1.4): a walk's forest and samples round-trip, several walks are kept in order, chains read
 * root first, an older reader (a 1.3 file) has none, malformed payloads are damage.
 */
class RetentionBlockTest {
    @TempDir
    Path dir;

    /** static Registry.INSTANCE -> Registry.listeners -> ArrayList.elementData -> Object[] [3] -> byte[] (sample 7). */
    static RetentionWalk walk(long at) {
        List<RetentionWalk.Node> nodes = List.of(
                new RetentionWalk.Node(-1, RetentionWalk.Kind.SYSTEM_CLASS, true, "com.acme.Registry",
                        "class com.acme.Registry", 0),
                new RetentionWalk.Node(0, RetentionWalk.Kind.STATIC_FIELD, false, "com.acme.Registry", "INSTANCE", 0),
                new RetentionWalk.Node(1, RetentionWalk.Kind.FIELD, false, "java.util.ArrayList", "listeners", 0),
                new RetentionWalk.Node(2, RetentionWalk.Kind.FIELD, false, "java.lang.Object[]", "elementData", 0),
                new RetentionWalk.Node(3, RetentionWalk.Kind.ARRAY_ELEMENT, false, "byte[]", null, 3),
                new RetentionWalk.Node(-1, RetentionWalk.Kind.THREAD, false, "java.lang.Thread", "thread main", 0));
        List<RetentionWalk.Sample> samples = List.of(new RetentionWalk.Sample(7, 2, 4096, 4),
                new RetentionWalk.Sample(8, 2, 4096, -1), new RetentionWalk.Sample(1L << 40, 0xFFFF_FFF0, 16, 5));
        return new RetentionWalk(at, 1_500_000, 9_000_000, RetentionWalk.Outcome.TIME_BUDGET, "end",
                "stopped at its time budget", 1234, 5678, 1 << 20, nodes, samples);
    }

    @Test
    void walksRoundTripInOrderAndChainsReadRootFirst() throws Exception {
        Path file = dir.resolve("r.msrec");
        RetentionWalk first = walk(100);
        RetentionWalk empty = new RetentionWalk(200, 0, 5, RetentionWalk.Outcome.FAILED, "on demand",
                "no capture is running", 0, 0, 0, List.of(), List.of());
        try (RecordingWriter w = RecordingWriter.open(file)) {
            w.retention(first);
            w.accept(150, io.memscope.MemoryEventType.ALLOCATE, 7, 4096, 0, 1, 0, 0, 0, 0, 2);
            w.retention(empty);
        }
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.header().minorVersion()).isEqualTo(7);
        assertThat(rec.retentionWalks()).containsExactly(first, empty);
        RetentionWalk w = rec.retentionWalks().get(0);
        assertThat(w.samplesReached()).isEqualTo(2);
        assertThat(w.chain(w.samples().get(0))).extracting(RetentionWalk.Node::className).containsExactly(
                "com.acme.Registry", "com.acme.Registry", "java.util.ArrayList", "java.lang.Object[]", "byte[]");
        assertThat(w.chain(w.samples().get(1))).isEmpty();
        assertThat(w.samples().get(2).siteId()).isEqualTo(0xFFFF_FFF0);
        List<RetentionWalk> seen = new ArrayList<>();
        RecordingReader.stream(file, new RecordingVisitor() {
            @Override
            public void retention(RetentionWalk walk) {
                seen.add(walk);
            }
        });
        assertThat(seen).containsExactly(first, empty);
    }

    @Test
    void theWriterRefusesAParentAfterItsChild() {
        Path file = dir.resolve("bad.msrec");
        RetentionWalk bad = new RetentionWalk(0, 0, 0, RetentionWalk.Outcome.COMPLETE, "end", null, 0, 0, 0,
                List.of(new RetentionWalk.Node(0, RetentionWalk.Kind.FIELD, false, "A", "f", 0)), List.of());
        try (RecordingWriter w = RecordingWriter.open(file)) {
            assertThatThrownBy(() -> w.retention(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not come before it");
        }
    }

    @Test
    void aFileOfFormat13HasNoWalks() throws Exception {
        byte[] file = TestFiles.concat(TestFiles.header(1, 3, 0), TestFiles.block(15, 0, new byte[] {0, 0, 1, 0}));
        Path p = dir.resolve("old.msrec");
        Files.write(p, file);
        assertThat(RecordingReader.readStrict(p).retentionWalks()).isEmpty();
    }

    /**
     * @param hex    a RETENTION payload (valid CRC: a writer bug)
     * @param damage what the damage message must contain
     */
    @ParameterizedTest
    @CsvSource({
        // outcome 9
        "00000009, retention outcome unknown",
        // complete, no strings, 0 objects..., 5 nodes but no bytes for them
        "00000000000000000005, retention node count 5 exceeds",
        // one node whose parent (uleb 1: node 0) is itself
        "00000000000000000001" + "0104000000, does not come before it",
        // one root node of reference kind 11 (unknown)
        "00000000000000000001" + "0016000000, reference kind 11 unknown",
        // one root node (a thread) without a class name
        "00000000000000000001" + "0034000000, retention class name string id must not be 0",
        // no node, one sample whose node (uleb 2: node 1) is beyond the block's none
        "00000000000000000000" + "01" + "07020802, node 1 beyond the block's 0",
    })
    void malformedPayloadsAreDamage(String hex, String damage) throws Exception {
        byte[] payload = java.util.HexFormat.of().parseHex(hex);
        byte[] file = TestFiles.concat(TestFiles.header(1, 4, 0), TestFiles.block(BlockType.RETENTION.code, 1, payload));
        Path p = dir.resolve("bad.msrec");
        Files.write(p, file);
        Recording rec = RecordingReader.read(p);
        assertThat(rec.damage()).hasValueSatisfying(d -> assertThat(d.what()).contains(damage));
        assertThat(rec.retentionWalks()).isEmpty();
    }
}
