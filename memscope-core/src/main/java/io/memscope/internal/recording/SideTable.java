package io.memscope.internal.recording;

import java.io.IOException;

/**
 * One side-table block being filled (SITES, STACKS, METADATA, GC, SITE_COUNTS...): its type, its entry count and
 * its encoded entries. Written as one block whose prefix is the count:
 *
 * <pre>
 *  payload: [count uleb][entry 0][entry 1]...[entry count-1]
 * </pre>
 *
 * <p>The entries' encodings are {@link SideTables}'; this class only counts and writes them.
 */
final class SideTable {
    final BlockType type;
    final ByteSink body = new ByteSink(256);
    private int count;

    SideTable(BlockType type) {
        this.type = type;
    }

    /** Counts the entry just encoded into {@link #body}. */
    SideTable added() {
        count++;
        return this;
    }

    int count() {
        return count;
    }

    /** Writes the pending entries as one block, if any, and empties the table. */
    void writeTo(BlockOutput out) throws IOException {
        if (count == 0) {
            return;
        }
        out.countedBlock(type, count, body);
        discard();
    }

    /** Drops the pending entries. */
    void discard() {
        count = 0;
        body.reset();
    }
}
