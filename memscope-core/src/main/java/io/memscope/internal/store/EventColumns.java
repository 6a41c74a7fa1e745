package io.memscope.internal.store;

import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.error.ErrorCategory;
import io.memscope.error.MemscopeException;
import io.memscope.error.Severity;

import java.util.ArrayList;
import java.util.List;

/**
 * The immutable merged events behind a {@link Snapshot}: events in timestamp order as primitive columns (32
 * bytes per event, the layout of {@link Chunk}) plus the concatenated {@link ContextTable}s of the threads that
 * contributed, so that a context word's low 29 bits index the context columns here.
 */
final class EventColumns {
    final int count;
    final long[] timestamps;
    final long[] addresses;
    final long[] sizes;
    final int[] contexts;
    final int[] previous;

    final long[] ctxThreadIds;
    final int[] ctxThreadNames;
    final int[] ctxSites;
    final long[] ctxStacks;
    final int[] ctxTypeNames;
    final int[] ctxVariableNames;
    final long[] ctxPreviousSizes;

    final StringTable strings;
    final long dropped;
    final long wallClockEpochNanos;
    final long nanoTimeAtEpoch;

    private EventColumns(int count, int contextCount, StringTable strings, long dropped, long wallClockEpochNanos,
                         long nanoTimeAtEpoch) {
        this.count = count;
        this.timestamps = new long[count];
        this.addresses = new long[count];
        this.sizes = new long[count];
        this.contexts = new int[count];
        this.previous = new int[count];
        this.ctxThreadIds = new long[contextCount];
        this.ctxThreadNames = new int[contextCount];
        this.ctxSites = new int[contextCount];
        this.ctxStacks = new long[contextCount];
        this.ctxTypeNames = new int[contextCount];
        this.ctxVariableNames = new int[contextCount];
        this.ctxPreviousSizes = new long[contextCount];
        this.strings = strings;
        this.dropped = dropped;
        this.wallClockEpochNanos = wallClockEpochNanos;
        this.nanoTimeAtEpoch = nanoTimeAtEpoch;
    }

    /**
     * Under the store's lock: merges positions [from[i], to[i]) of each buffer.
     */
    static EventColumns build(ThreadBuffer[] buffers, long[] from, long[] to, int n, StringTable strings,
                              long dropped, long wallClockEpochNanos, long nanoTimeAtEpoch) {
        long total = 0;
        long contextTotal = 0;
        int[] contextSizes = new int[n];
        ContextTable.Entries[] entries = new ContextTable.Entries[n];
        for (int b = 0; b < n; b++) {
            if (to[b] > from[b]) {
                total += to[b] - from[b];
                contextSizes[b] = buffers[b].contexts.size(); // read after the end: covers every event below it
                entries[b] = buffers[b].contexts.entries();
                contextTotal += contextSizes[b];
            }
        }
        if (total > Snapshot.MAX_EVENTS) {
            throw new MemscopeException(ErrorCategory.ANALYSIS,
                    Severity.MEDIUM, true, "a snapshot holds at most " + Snapshot.MAX_EVENTS
                    + " events and the store has " + total + ": use drainTo(EventSink) to stream them instead");
        }
        if (contextTotal > ContextTable.MAX_ENTRIES) {
            throw new MemscopeException(ErrorCategory.ANALYSIS,
                    Severity.MEDIUM, true, "a snapshot holds at most " + ContextTable.MAX_ENTRIES
                    + " distinct event contexts and the store has " + contextTotal
                    + ": use drainTo(EventSink) instead");
        }
        EventColumns c = new EventColumns((int) total, (int) contextTotal, strings, dropped, wallClockEpochNanos,
                nanoTimeAtEpoch);
        List<Run> runs = new ArrayList<>();
        int offset = 0;
        for (int b = 0; b < n; b++) {
            if (to[b] <= from[b]) {
                continue;
            }
            ContextTable.Entries e = entries[b];
            int m = contextSizes[b];
            System.arraycopy(e.threadIds, 0, c.ctxThreadIds, offset, m);
            System.arraycopy(e.threadNames, 0, c.ctxThreadNames, offset, m);
            System.arraycopy(e.sites, 0, c.ctxSites, offset, m);
            System.arraycopy(e.stacks, 0, c.ctxStacks, offset, m);
            System.arraycopy(e.typeNames, 0, c.ctxTypeNames, offset, m);
            System.arraycopy(e.variableNames, 0, c.ctxVariableNames, offset, m);
            System.arraycopy(e.previousSizes, 0, c.ctxPreviousSizes, offset, m);
            Run.split(buffers[b], e, offset, from[b], to[b], runs);
            offset += m;
        }
        Run[] array = runs.toArray(new Run[0]);
        if (array.length == 1) {
            c.copyRun(array[0]);
        } else {
            Merge.merge(array, c.new Filler());
        }
        return c;
    }

    /** Fast path for a single run: bulk copies, chunk by chunk. */
    private void copyRun(Run r) {
        int k = 0;
        Chunk chunk = r.chunk;
        int i = r.index;
        long left = r.remaining;
        int offset = r.contextOffset;
        while (left > 0) {
            int len = (int) Math.min(left, chunk.capacity - i);
            System.arraycopy(chunk.timestamps, i, timestamps, k, len);
            System.arraycopy(chunk.addresses, i, addresses, k, len);
            System.arraycopy(chunk.sizes, i, sizes, k, len);
            System.arraycopy(chunk.previous, i, previous, k, len);
            if (offset == 0) {
                System.arraycopy(chunk.contexts, i, contexts, k, len);
            } else {
                for (int j = 0; j < len; j++) {
                    contexts[k + j] = chunk.contexts[i + j] + offset;
                }
            }
            k += len;
            left -= len;
            chunk = chunk.next;
            i = 0;
        }
    }

    private final class Filler implements Merge.Target {
        private int k;

        @Override
        public void take(Run r) {
            Chunk chunk = r.chunk;
            int i = r.index;
            int j = k++;
            timestamps[j] = chunk.timestamps[i];
            addresses[j] = chunk.addresses[i];
            sizes[j] = chunk.sizes[i];
            contexts[j] = chunk.contexts[i] + r.contextOffset;
            previous[j] = chunk.previous[i];
        }
    }

    // ------------------------------------------------------------------------------------------ row access

    MemoryEventType type(int row) {
        return MemoryEventType.ofCode(contexts[row] >>> ContextTable.TYPE_SHIFT);
    }

    int typeCode(int row) {
        return contexts[row] >>> ContextTable.TYPE_SHIFT;
    }

    int context(int row) {
        return contexts[row] & ContextTable.INDEX_MASK;
    }

    long previousSize(int row) {
        int p = previous[row];
        return p >= 0 ? p : ctxPreviousSizes[context(row)];
    }

    long threadId(int row) {
        return ctxThreadIds[context(row)];
    }

    int threadNameId(int row) {
        return ctxThreadNames[context(row)];
    }

    int siteId(int row) {
        return ctxSites[context(row)];
    }

    long stackId(int row) {
        return ctxStacks[context(row)];
    }

    int typeNameId(int row) {
        return ctxTypeNames[context(row)];
    }

    int variableNameId(int row) {
        return ctxVariableNames[context(row)];
    }

    void emit(int row, EventSink sink, EventView view) {
        int ctx = context(row);
        int p = previous[row];
        sink.accept(view.set(timestamps[row], type(row), addresses[row], sizes[row],
                p >= 0 ? p : ctxPreviousSizes[ctx], ctxThreadIds[ctx], ctxThreadNames[ctx], ctxVariableNames[ctx],
                ctxTypeNames[ctx], ctxStacks[ctx], ctxSites[ctx]));
    }

    MemoryEvent event(int row) {
        int ctx = context(row);
        int p = previous[row];
        return new MemoryEvent(timestamps[row], type(row), addresses[row], sizes[row],
                p >= 0 ? p : ctxPreviousSizes[ctx], ctxThreadIds[ctx], strings.get(ctxThreadNames[ctx]),
                strings.get(ctxVariableNames[ctx]), strings.get(ctxTypeNames[ctx]), ctxStacks[ctx], ctxSites[ctx]);
    }
}
