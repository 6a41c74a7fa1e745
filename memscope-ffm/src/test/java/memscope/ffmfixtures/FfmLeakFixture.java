package memscope.ffmfixtures;

import io.memscope.accounting.Column;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.ffm.TrackingArena;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Native memory through FFM arenas, for the agent's end-to-end test: a shared tracking arena used by two threads and
 * closed (no leak), a confined tracking arena never closed (leaks: one segment, and three from a loop), and a plain
 * JDK arena never closed. Writes the accounting's global row of the tracking arenas' instrument into the file
 * {@code args[0]}.
 */
public final class FfmLeakFixture {
    /** Kept reachable to the end: an arena that is never closed. */
    static Arena leaked;
    static Arena plain;

    public static void main(String[] args) throws Exception {
        TrackingArena closed = TrackingArena.ofShared();
        Thread helper = Thread.ofPlatform().start(() -> closed.allocate(64_000)); // CLOSED-OTHER-THREAD
        helper.join();
        closed.allocate(64_000); // CLOSED-ALLOCATE
        closed.close();

        leaked = TrackingArena.ofConfined();
        MemorySegment one = leaked.allocate(100_000); // LEAKED-ALLOCATE
        one.set(ValueLayout.JAVA_BYTE, 99_999, (byte) 1);
        for (int i = 0; i < 3; i++) {
            leaked.allocate(ValueLayout.JAVA_LONG, 5_000); // LEAKED-LOOP
        }

        plain = Arena.ofConfined();
        plain.allocate(24_000); // PLAIN-ARENA

        for (SummaryRow r : MemoryAccounting.global().summary(SummaryTable.GLOBAL)) {
            if (r.eventName().equals(TrackingArena.DEFAULT_INSTRUMENT)) {
                java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), "countAlloc=" + r.get(Column.COUNT_ALLOC)
                        + "\ncountFree=" + r.get(Column.COUNT_FREE) + "\ncurrentBytes=" + r.currentBytes()
                        + "\nhighBytes=" + r.highBytes() + "\ncurrentCount=" + r.get(Column.CURRENT_COUNT_USED) + "\n");
            }
        }
    }
}
