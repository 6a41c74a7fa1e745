package io.memscope.cli;

import io.memscope.analysis.export.ChromeTraceWriter;
import io.memscope.events.EventCursor;

import java.io.BufferedWriter;
import io.memscope.launch.OutputFolders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Ring events as a Chrome trace ({@link ChromeTraceWriter}), streaming: spans become complete events
 * ({@code "ph":"X"}, begin and end paired per thread by name), counters {@code "C"}, lifecycle events thread-scoped
 * instants {@code "i"} (process-scoped for {@code vm.*}), custom events spans / counters / instants by their type,
 * lost events an instant named {@code "lost events"}, on the producers' monotonic clock. {@link #close()} ends
 * unfinished spans at the last timestamp seen (marked {@code "unfinished":true}), writes {@code process_name} /
 * {@code thread_name} metadata and closes the array.
 */
final class RingTraceEvents implements AutoCloseable {
    private final Writer out;
    private final ChromeTraceWriter trace;
    private boolean closed;
    private long lastTs;
    private final Map<Long, String> processNames = new LinkedHashMap<>();
    private final List<PerProcess> processes = new ArrayList<>();

    /** The output file, replaced as a whole when the trace is closed (private, never written through a link). */
    private final OutputFolders.Replacement file;

    RingTraceEvents(Path file) throws IOException {
        this.file = OutputFolders.replace(file);
        this.out = new BufferedWriter(new java.io.OutputStreamWriter(this.file.stream(), StandardCharsets.UTF_8),
                1 << 16);
        this.trace = new ChromeTraceWriter(out);
    }

    /** @return trace events written so far */
    synchronized long events() {
        return trace.events();
    }

    EventCursor.Callbacks forCursor(EventCursor cursor) {
        PerProcess p = new PerProcess(cursor);
        synchronized (this) {
            processes.add(p);
            processNames.put(cursor.pid(), "pid " + cursor.pid());
        }
        return p;
    }

    /** One write to the trace, under the lock every process's callbacks share; nothing once closed. */
    private interface Write {
        void to(ChromeTraceWriter t) throws IOException;
    }

    private synchronized void emit(Write write) {
        if (closed) {
            return;
        }
        try {
            write.to(trace);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final class PerProcess implements EventCursor.Callbacks {
        private final EventCursor cursor;
        private final long pid;
        private final Map<Long, Deque<long[]>> open = new HashMap<>();
        private final Map<Long, Deque<String>> openNames = new HashMap<>();
        private final Map<Long, Boolean> threads = new LinkedHashMap<>();

        PerProcess(EventCursor cursor) {
            this.cursor = cursor;
            this.pid = cursor.pid();
        }

        /** Notes the thread and the latest timestamp of an event about to be written. */
        private void seen(long tid, long ts) {
            threads.putIfAbsent(tid, Boolean.TRUE);
            if (ts > lastTs) {
                lastTs = ts;
            }
        }

        @Override
        public void spanBegin(long tid, long ts, String name) {
            open.computeIfAbsent(tid, k -> new ArrayDeque<>()).push(new long[] {ts});
            openNames.computeIfAbsent(tid, k -> new ArrayDeque<>()).push(name);
            threads.putIfAbsent(tid, Boolean.TRUE);
        }

        @Override
        public void spanEnd(long tid, long ts, String name) {
            Deque<String> names = openNames.get(tid);
            if (names == null) {
                return; // its begin was lost
            }
            Iterator<String> it = names.iterator();
            Iterator<long[]> its = open.get(tid).iterator();
            while (it.hasNext()) {
                String n = it.next();
                long[] begin = its.next();
                if (n.equals(name)) {
                    it.remove();
                    its.remove();
                    complete(name, tid, begin[0], ts, false);
                    return;
                }
            }
        }

        void complete(String name, long tid, long begin, long end, boolean unfinished) {
            seen(tid, begin);
            emit(t -> t.complete(name, null, pid, tid, begin, Math.max(0, end - begin),
                    unfinished ? a -> a.field("unfinished", true) : null));
        }

        @Override
        public void counter(long tid, long ts, String name, long value) {
            seen(tid, ts);
            emit(t -> t.counter(name, pid, tid, ts, a -> a.field("value", value)));
        }

        @Override
        public void lifecycle(long tid, long ts, String name, long data) {
            String scope = name.startsWith("vm.") ? "p" : "t";
            seen(tid, ts);
            emit(t -> t.instant(name, scope, pid, tid, ts, a -> a.field("data", data)));
        }

        @Override
        public void custom(long tid, long ts, String name, String type, ByteBuffer payload) {
            ByteBuffer p = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            switch (type) {
                case "span":
                    if (p.remaining() > 0 && p.get(0) == 1) {
                        spanEnd(tid, ts, name);
                    } else {
                        spanBegin(tid, ts, name);
                    }
                    return;
                case "int":
                    counter(tid, ts, name, p.remaining() >= 4 ? p.getInt(0) : 0);
                    return;
                case "long":
                    counter(tid, ts, name, p.remaining() >= 8 ? p.getLong(0) : 0);
                    return;
                default:
                    StringBuilder hex = new StringBuilder();
                    for (int i = 0; i < p.remaining(); i++) {
                        hex.append(Character.forDigit((p.get(i) >> 4) & 0xF, 16))
                                .append(Character.forDigit(p.get(i) & 0xF, 16));
                    }
                    seen(tid, ts);
                    emit(t -> t.instant(name, "t", pid, tid, ts,
                            a -> a.field("type", type).field("bytes", hex.toString())));
            }
        }

        @Override
        public void lost(long tid, long count) {
            long ts = lastTs;
            seen(tid, ts);
            emit(t -> t.instant("lost events", "t", pid, tid, ts, a -> a.field("count", count)));
        }

        void finish() {
            for (Map.Entry<Long, Deque<String>> e : openNames.entrySet()) {
                Iterator<long[]> its = open.get(e.getKey()).iterator();
                for (String n : e.getValue()) {
                    complete(n, e.getKey(), its.next()[0], lastTs, true);
                }
            }
            open.clear();
            openNames.clear();
            for (Long tid : threads.keySet()) {
                String tn = cursor.threadName(tid);
                String name = tn == null ? "thread " + tid : tn;
                emit(t -> t.metadata("thread_name", pid, tid, a -> a.field("name", name)));
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        for (PerProcess p : processes) {
            p.finish();
        }
        for (Map.Entry<Long, String> e : processNames.entrySet()) {
            emit(t -> t.metadata("process_name", e.getKey(), 0, a -> a.field("name", e.getValue())));
        }
        closed = true;
        try (OutputFolders.Replacement f = file) {
            trace.end();
            f.commit();
        }
    }
}
