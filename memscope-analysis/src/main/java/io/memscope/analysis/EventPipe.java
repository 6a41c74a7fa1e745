package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Streams a recording's events to a sink with the file decoded on a second thread: the decoder fills chunks of
 * {@value #CHUNK} events in primitive columns and hands them over through a small queue (four chunks in flight, reused),
 * so that decoding and analysing overlap on two cores. Memory: the four chunks (about 1.2 MiB). Events arrive in
 * file order, exactly as {@link RecordingReader#stream} delivers them; a failure of the decoder is rethrown here.
 *
 * <p>A second analysis that needs the whole file in order (not only the events) can ride along as a
 * {@link RecordingVisitor} run on the decoder thread: it sees everything {@link RecordingReader#stream} delivers, to
 * the end of the file, and is done when {@link #stream} returns (the decoder thread has ended). It must not share
 * mutable state with the sink; its failure is rethrown like the decoder's.
 */
final class EventPipe {
    static final int CHUNK = 4096;
    private static final MemoryEventType[] TYPES = MemoryEventType.values();

    private EventPipe() {
    }

    /** Streams at most {@code limit} events of {@code file} to {@code sink}. */
    static void stream(Path file, long limit, EventSink sink) {
        stream(file, limit, sink, null, false);
    }

    /**
     * Streams at most {@code limit} events of {@code file} to {@code sink}, and the whole file to {@code alongside}
     * (if not null) on the decoder thread.
     *
     * @param timeOrdered put the events in time order on the decoder thread first (a {@link TimeOrder})
     * @return the events the time order passed on late ({@link TimeOrder#late()}), 0 if not {@code timeOrdered}
     */
    static long stream(Path file, long limit, EventSink sink, RecordingVisitor alongside, boolean timeOrdered) {
        return stream(v -> RecordingReader.stream(file, v), limit, sink, alongside, timeOrdered);
    }

    /** The same from a source other than a path (some chunks of a chunked recording). */
    static long stream(java.util.function.Consumer<RecordingVisitor> source, long limit, EventSink sink,
                       RecordingVisitor alongside, boolean timeOrdered) {
        BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(4);
        BlockingQueue<Chunk> free = new ArrayBlockingQueue<>(4);
        for (int i = 0; i < 4; i++) {
            free.add(new Chunk());
        }
        Throwable[] failure = new Throwable[1];
        long[] late = new long[1];
        java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
        Thread decoder = new Thread(() -> {
            Filler filler = new Filler(full, free, cancelled);
            TimeOrder order = timeOrdered ? new TimeOrder(filler) : null;
            EventSink into = order != null ? order : filler;
            try {
                RecordingVisitor side = alongside == null ? new RecordingVisitor() { } : alongside;
                source.accept(new Alongside(side) {
                    long seen;

                    @Override
                    public void accept(EventView e) {
                        if (alongside != null && !cancelled.get()) {
                            alongside.accept(e);
                        }
                        if (seen++ >= limit || cancelled.get()) {
                            return;
                        }
                        into.accept(e);
                    }

                    @Override
                    public boolean done() {
                        return (alongside == null && seen >= limit) || cancelled.get();
                    }
                });
                if (order != null && !cancelled.get()) {
                    order.finish();
                    late[0] = order.late();
                }
                filler.flush();
            } catch (Throwable t) {
                failure[0] = t;
            } finally {
                put(full, Chunk.END);
            }
        }, "memscope-decoder");
        decoder.setDaemon(true);
        decoder.start();
        // every chunk handed over goes back, to the end: after the sink failed too, so that the decoder can stop
        Throwable sinkFailure = null;
        EventView view = new EventView();
        for (Chunk c = take(full); c != Chunk.END; c = take(full)) {
            if (sinkFailure == null) {
                try {
                    c.emit(sink, view);
                } catch (RuntimeException | Error e) {
                    sinkFailure = e;
                    cancelled.set(true);
                }
            }
            put(free, c);
        }
        try {
            decoder.join(); // it has handed over its end: the join is short
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rethrow(sinkFailure);
        rethrow(failure[0]);
        return late[0];
    }

    private static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }

    /** Fills chunks with events on the decoder thread and hands the full ones over. */
    private static final class Filler implements TimeOrder.RunSink {
        private final BlockingQueue<Chunk> full;
        private final BlockingQueue<Chunk> free;
        private final java.util.concurrent.atomic.AtomicBoolean cancelled;
        private Chunk current;

        Filler(BlockingQueue<Chunk> full, BlockingQueue<Chunk> free,
               java.util.concurrent.atomic.AtomicBoolean cancelled) {
            this.full = full;
            this.free = free;
            this.cancelled = cancelled;
        }

        @Override
        public void accept(EventView e) {
            if (cancelled.get()) {
                return;
            }
            Chunk c = current;
            if (c == null) {
                c = take(free);
                c.size = 0;
                current = c;
            }
            c.add(e);
            if (c.size == CHUNK) {
                put(full, c);
                current = null;
            }
        }

        @Override
        public void run(long[] ts, byte[] type, long[] address, long[] size, long[] previous, long[] thread,
                        int[] threadName, int[] variable, int[] typeName, long[] stack, int[] site, int from, int n) {
            while (n > 0 && !cancelled.get()) {
                Chunk c = current;
                if (c == null) {
                    c = take(free);
                    c.size = 0;
                    current = c;
                }
                int k = Math.min(n, CHUNK - c.size);
                c.add(ts, type, address, size, previous, thread, threadName, variable, typeName, stack, site, from, k);
                from += k;
                n -= k;
                if (c.size == CHUNK) {
                    put(full, c);
                    current = null;
                }
            }
        }

        /** Hands over the last, partly filled chunk. */
        void flush() {
            if (current != null) {
                put(full, current);
                current = null;
            }
        }
    }

    private static Chunk take(BlockingQueue<Chunk> q) {
        return handOff(q, null);
    }

    private static void put(BlockingQueue<Chunk> q, Chunk c) {
        handOff(q, c);
    }

    /**
     * Puts {@code c} into {@code q}, or takes a chunk from it when {@code c} is null, waiting as long as it takes:
     * the other side always makes room or hands one over. An interrupt does not cut the wait short (a chunk lost
     * would stall the other side); it is kept for the caller to see afterwards.
     */
    private static Chunk handOff(BlockingQueue<Chunk> q, Chunk c) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (c == null) {
                        return q.take();
                    }
                    q.put(c);
                    return c;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Hands everything but the events to a visitor (the events are handed over by the subclass). */
    private abstract static class Alongside implements RecordingVisitor {
        private final RecordingVisitor v;

        Alongside(RecordingVisitor v) {
            this.v = v;
        }

        @Override
        public void header(io.memscope.recording.RecordingHeader header) {
            v.header(header);
        }

        @Override
        public void string(int id, String value) {
            v.string(id, value);
        }

        @Override
        public void site(io.memscope.recording.Site site) {
            v.site(site);
        }

        @Override
        public void stack(long stackId, java.util.List<String> frames) {
            v.stack(stackId, frames);
        }

        @Override
        public void gc(io.memscope.recording.GcRecord record) {
            v.gc(record);
        }

        @Override
        public void siteCount(io.memscope.recording.SiteCount count) {
            v.siteCount(count);
        }

        @Override
        public void metadata(String key, String value) {
            v.metadata(key, value);
        }

        @Override
        public void anomaly(io.memscope.recording.Anomaly anomaly) {
            v.anomaly(anomaly);
        }

        @Override
        public void functionStats(io.memscope.recording.FunctionStats stats) {
            v.functionStats(stats);
        }

        @Override
        public void accounting(io.memscope.recording.AccountingSnapshot snapshot) {
            v.accounting(snapshot);
        }

        @Override
        public void scopePath(io.memscope.recording.ScopePath path) {
            v.scopePath(path);
        }

        @Override
        public void scopeEdge(long t, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                              long allocatedBytes) {
            v.scopeEdge(t, threadId, threadNameId, exit, pathId, taskId, allocatedBytes);
        }

        @Override
        public void apiEvent(EventView e) {
            v.apiEvent(e);
        }

        @Override
        public void skippedBlock(int type, long offset) {
            v.skippedBlock(type, offset);
        }

        @Override
        public void end(io.memscope.recording.Totals totals) {
            v.end(totals);
        }
    }

    /** Events in columns. */
    private static final class Chunk {
        static final Chunk END = new Chunk();
        int size;
        final long[] ts = new long[CHUNK];
        final byte[] type = new byte[CHUNK];
        final long[] address = new long[CHUNK];
        final long[] size_ = new long[CHUNK];
        final long[] previous = new long[CHUNK];
        final long[] thread = new long[CHUNK];
        final int[] threadName = new int[CHUNK];
        final int[] variable = new int[CHUNK];
        final int[] typeName = new int[CHUNK];
        final long[] stack = new long[CHUNK];
        final int[] site = new int[CHUNK];

        void add(EventView e) {
            int i = size++;
            ts[i] = e.timestampNanos();
            type[i] = (byte) e.type().code();
            address[i] = e.address();
            size_[i] = e.size();
            previous[i] = e.previousSize();
            thread[i] = e.threadId();
            threadName[i] = e.threadNameId();
            variable[i] = e.variableNameId();
            typeName[i] = e.typeNameId();
            stack[i] = e.stackId();
            site[i] = e.siteId();
        }

        /** Appends {@code n} events from index {@code from} of the columns given. */
        void add(long[] ts, byte[] type, long[] address, long[] size, long[] previous, long[] thread,
                 int[] threadName, int[] variable, int[] typeName, long[] stack, int[] site, int from, int n) {
            int i = this.size;
            System.arraycopy(ts, from, this.ts, i, n);
            System.arraycopy(type, from, this.type, i, n);
            System.arraycopy(address, from, this.address, i, n);
            System.arraycopy(size, from, this.size_, i, n);
            System.arraycopy(previous, from, this.previous, i, n);
            System.arraycopy(thread, from, this.thread, i, n);
            System.arraycopy(threadName, from, this.threadName, i, n);
            System.arraycopy(variable, from, this.variable, i, n);
            System.arraycopy(typeName, from, this.typeName, i, n);
            System.arraycopy(stack, from, this.stack, i, n);
            System.arraycopy(site, from, this.site, i, n);
            this.size = i + n;
        }

        /** Passes the chunk's events to {@code sink}, in order, through {@code view}. */
        void emit(EventSink sink, EventView view) {
            for (int i = 0; i < size; i++) {
                sink.accept(view.set(ts[i], TYPES[type[i]], address[i], size_[i], previous[i], thread[i],
                        threadName[i], variable[i], typeName[i], stack[i], site[i]));
            }
        }
    }
}
