package io.memscope.recording;

import io.memscope.internal.recording.RecordingWriter;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import io.memscope.accounting.OwnerScope;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.internal.accounting.AccountingSnapshots;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** ACCOUNTING blocks (format 1.3): real tables round-trip, the last snapshot wins, malformed payloads are damage. */
class AccountingBlockTest {
    @TempDir
    Path dir;

    @Test
    void tablesOfARealRegistryRoundTripAndTheLastSnapshotWins() throws Exception {
        MemoryAccounting acct = new MemoryAccounting();
        var entries = acct.instrument("memory/cache/entries");
        try (OwnerScope s = acct.scope("carol", "us-1")) {
            Owner o = acct.alloc(entries, 4096);
            acct.alloc(entries, 1024);
            acct.free(entries, 4096, o);
        }
        AccountingSnapshot first = AccountingSnapshots.of(100, acct.summaries());
        try (OwnerScope s = acct.scope("dave", null)) {
            acct.alloc(entries, 7);
        }
        AccountingSnapshot last = AccountingSnapshots.of(200, acct.summaries());
        assertThat(first.rows(SummaryTable.USER)).singleElement().satisfies(r -> {
            assertThat(r.user()).isEqualTo("carol");
            assertThat(r.currentBytes()).isEqualTo(1024);
            assertThat(r.highBytes()).isGreaterThanOrEqualTo(5120);
        });
        Path file = dir.resolve("acct.msrec");
        try (RecordingWriter w = RecordingWriter.open(file)) {
            w.accounting(first);
            w.accept(150, io.memscope.MemoryEventType.ALLOCATE, 1, 8, 0, 1, 0, 0, 0, 0, 0);
            w.accounting(last);
        }
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.header().minorVersion()).isEqualTo(7);
        assertThat(rec.accounting()).isEqualTo(last);
        assertThat(rec.accounting().rows()).containsExactlyElementsOf(last.rows());
        assertThat(rec.accounting().rows(SummaryTable.USER)).extracting(SummaryRow::user)
                .containsExactlyInAnyOrder("carol", "dave");
        List<AccountingSnapshot> seen = new ArrayList<>();
        RecordingReader.stream(file, new RecordingVisitor() {
            @Override
            public void accounting(AccountingSnapshot snapshot) {
                seen.add(snapshot);
            }
        });
        assertThat(seen).containsExactly(first, last);
    }

    @Test
    void aSnapshotKeepsAtMostMaxRowsThreadRowsLeftOutFirst() {
        List<SummaryRow> threads = new ArrayList<>();
        for (int i = 0; i < AccountingSnapshot.MAX_ROWS; i++) {
            threads.add(new SummaryRow(SummaryTable.THREAD, i, "t" + i, null, null, "memory/a/b", new long[11]));
        }
        SummaryRow user = new SummaryRow(SummaryTable.USER, -1, null, "carol", null, "memory/a/b", new long[11]);
        AccountingSnapshot s = AccountingSnapshots.of(0, java.util.Map.of(SummaryTable.THREAD, threads,
                SummaryTable.USER, List.of(user)));
        assertThat(s.rows()).hasSize(AccountingSnapshot.MAX_ROWS).contains(user);
    }

    /**
     * @param hex    an ACCOUNTING payload (valid CRC: a writer bug)
     * @param damage what the damage message must contain
     */
    @ParameterizedTest
    @CsvSource({
        // timestamp 0, 9 rows, no bytes for them
        "0009, accounting row count 9 impossible",
        // table 7
        "0001070000000000000000000000000000000000, accounting table 7 unknown",
        // instrument string id 0
        "0001020100000000000000000000000000000000, accounting instrument string id must not be 0",
        // user string id 5 not defined
        "0001020100050001000000000000000000000000, accounting user string id 5 is not defined",
        // a value's varint runs past the end
        "0001028080808080808080808080808080808080, varint",
    })
    void malformedPayloadsAreDamage(String hex, String damage) throws Exception {
        byte[] payload = java.util.HexFormat.of().parseHex(hex);
        byte[] file = TestFiles.concat(TestFiles.header(1, 3, 0), TestFiles.block(14, 1, payload));
        Path p = dir.resolve("bad.msrec");
        Files.write(p, file);
        Recording rec = RecordingReader.read(p);
        assertThat(rec.damage()).hasValueSatisfying(d -> assertThat(d.what()).contains(damage));
        assertThat(rec.accounting()).isNull(); // nothing of a damaged block is delivered
    }
}
