package io.memscope.analysis.export;

import io.memscope.analysis.json.JsonWriter;
import java.io.IOException;
import java.io.Writer;
import java.util.function.Consumer;

/**
 * Writes Chrome trace-event JSON, the array form Perfetto and chrome://tracing load: {@code [} then one event object
 * per line, then {@code ]}. The one writer of memscope's traces: {@code memscope trace} (ring events, through the
 * CLI's {@code RingTraceEvents}) and {@code memscope export --format chrome-trace} (a report's timeline,
 * {@link RecordingTraceEvents}).
 *
 * <p>Every event has its fields in one order: {@code name}, {@code cat} (when given), {@code ph}, {@code ts},
 * {@code dur} (complete events), {@code pid}, {@code tid}, {@code s} (instants), {@code args} (when given).
 * {@code ts} and {@code dur} are microseconds with exactly three decimals, computed from nanoseconds without rounding
 * (the producers' {@code System.nanoTime()} clock). Strings go through {@link JsonWriter}. Not thread-safe: callers
 * that feed it from several threads hold a lock.
 */
public final class ChromeTraceWriter {
    private final Writer out;
    private boolean first = true;
    private boolean ended;
    private long events;

    /** Starts the array in {@code out}. */
    public ChromeTraceWriter(Writer out) throws IOException {
        this.out = out;
        out.write("[\n");
    }

    /** A complete event ({@code "ph":"X"}) from {@code tsNanos}, lasting {@code durNanos}. */
    public void complete(String name, String category, long pid, long tid, long tsNanos, long durNanos,
                         Consumer<JsonWriter> args) throws IOException {
        JsonWriter w = begin(name, category, "X").rawField("ts", micros(tsNanos)).rawField("dur", micros(durNanos));
        end(w.field("pid", pid).field("tid", tid), null, args);
    }

    /** A counter event ({@code "ph":"C"}): each field of {@code args} is one series of the counter track. */
    public void counter(String name, long pid, long tid, long tsNanos, Consumer<JsonWriter> args)
            throws IOException {
        JsonWriter w = begin(name, null, "C").rawField("ts", micros(tsNanos));
        end(w.field("pid", pid).field("tid", tid), null, args);
    }

    /** An instant event ({@code "ph":"i"}) of scope {@code scope}: {@code t} thread, {@code p} process. */
    public void instant(String name, String scope, long pid, long tid, long tsNanos, Consumer<JsonWriter> args)
            throws IOException {
        JsonWriter w = begin(name, null, "i").rawField("ts", micros(tsNanos));
        end(w.field("pid", pid).field("tid", tid), scope, args);
    }

    /** A metadata event ({@code "ph":"M"}), e.g. {@code process_name}, {@code thread_name}, {@code process_labels}. */
    public void metadata(String name, long pid, long tid, Consumer<JsonWriter> args) throws IOException {
        end(begin(name, null, "M").field("pid", pid).field("tid", tid), null, args);
    }

    /** Closes the array and flushes; later events are not written. */
    public void end() throws IOException {
        if (!ended) {
            ended = true;
            out.write("\n]\n");
            out.flush();
        }
    }

    /** @return events written so far */
    public long events() {
        return events;
    }

    private static JsonWriter begin(String name, String category, String ph) {
        JsonWriter w = JsonWriter.compact().beginObject().field("name", name);
        if (category != null) {
            w.field("cat", category);
        }
        return w.field("ph", ph);
    }

    private void end(JsonWriter w, String scope, Consumer<JsonWriter> args) throws IOException {
        if (scope != null) {
            w.field("s", scope);
        }
        if (args != null) {
            w.name("args").beginObject();
            args.accept(w);
            w.endObject();
        }
        w.endObject();
        if (ended) {
            return;
        }
        if (!first) {
            out.write(",\n");
        }
        first = false;
        out.write(w.toString());
        events++;
    }

    /** @return {@code nanos} as microseconds with three decimals, exactly ({@code -1500} → {@code -1.500}) */
    public static String micros(long nanos) {
        return java.math.BigDecimal.valueOf(nanos, 3).toPlainString(); // nanos × 10^-3, exact (nanoTime may be < 0)
    }
}
