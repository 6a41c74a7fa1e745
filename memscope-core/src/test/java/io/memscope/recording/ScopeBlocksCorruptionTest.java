package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed SCOPE_PATHS and SCOPE_EDGES payloads (with valid CRCs: a writer bug) are damage, named precisely. */
class ScopeBlocksCorruptionTest {
    @TempDir
    Path dir;

    /**
     * @param block  the block type code
     * @param hex    its payload
     * @param damage what the damage message must contain
     */
    @ParameterizedTest
    @CsvSource({
        // SCOPE_PATHS: count 1, id 0
        "10, 01000000, scope path id 0 is reserved",
        // SCOPE_PATHS: count 2 with bytes for one
        "10, 02010001, scope path count 2 impossible",
        // SCOPE_PATHS: name id 9 not defined
        "10, 01010009, scope name string id 9 is not defined",
        // SCOPE_PATHS: name id 0
        "10, 01010000, scope name string id must not be 0",
        // SCOPE_EDGES: count 1, base 0, tag TASK on an exit
        "11, 0100050001, bad tag 0x5",
        // SCOPE_EDGES: BYTES on an entry
        "11, 0100080001, bad tag 0x8",
        // SCOPE_EDGES: unknown tag bit
        "11, 0100100001, bad tag 0x10",
        // SCOPE_EDGES: path id 0
        "11, 0100000000, path id 0 is reserved",
        // SCOPE_EDGES: thread reference 1 in a block with no thread
        "11, 010002000101, thread reference 1 beyond the block's 0 threads",
        // SCOPE_EDGES: count larger than the bytes allow
        "11, 09000000, scope edge count 9 impossible",
        // SCOPE_EDGES: an exit with BYTES but no bytes left
        "11, 0100090001, varint runs past the end",
    })
    void malformedPayloadsAreDamage(int block, String hex, String damage) throws Exception {
        byte[] payload = java.util.HexFormat.of().parseHex(hex);
        byte[] file = TestFiles.concat(TestFiles.header(1, 2, 0), TestFiles.block(block, 1, payload));
        Path p = dir.resolve("bad.msrec");
        Files.write(p, file);
        Recording rec = RecordingReader.read(p);
        assertThat(rec.damage()).hasValueSatisfying(d -> assertThat(d.what()).contains(damage));
        assertThat(rec.scopeEdges()).isEmpty(); // nothing of a damaged block is delivered
        assertThat(rec.scopePaths()).isEmpty();
    }
}
