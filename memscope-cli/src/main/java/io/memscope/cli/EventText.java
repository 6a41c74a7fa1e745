package io.memscope.cli;

import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.text.TerminalText;
import io.memscope.events.EventCursor;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Prints ring events one per line, as text (tab-separated) or JSON lines; the format {@code memscope events}
 * prints and docs/formats/events.md describes. Timestamps are ns since the producer's start (monotonic clock
 * minus the header's monotonic start).
 * <pre>
 * text:  ts  tid  begin|end      name
 *        ts  tid  lifecycle|counter  name  value
 *        ts  tid  custom  name  type  value      (value: int/long decimal, span begin|end, unit empty, else hex)
 *        -   tid  lost  count
 * json:  {"ts":..,"tid":..,"kind":"..","name":"..","value":..}  ({"kind":"lost","tid":..,"count":..})
 * </pre>
 */
final class EventText implements EventCursor.Callbacks {
    private final PrintStream out;
    private final boolean json;
    private final long origin;
    private final long pid;
    private final boolean withPid;
    long printed;

    EventText(PrintStream out, boolean json, EventCursor cursor, boolean withPid) {
        this.out = out;
        this.json = json;
        this.origin = cursor.startMonotonicNanos();
        this.pid = cursor.pid();
        this.withPid = withPid;
    }

    @Override
    public void spanBegin(long tid, long ts, String name) {
        line(ts, tid, "begin", name, null, null);
    }

    @Override
    public void spanEnd(long tid, long ts, String name) {
        line(ts, tid, "end", name, null, null);
    }

    @Override
    public void lifecycle(long tid, long ts, String name, long data) {
        line(ts, tid, "lifecycle", name, null, Long.toString(data));
    }

    @Override
    public void counter(long tid, long ts, String name, long value) {
        line(ts, tid, "counter", name, null, Long.toString(value));
    }

    @Override
    public void custom(long tid, long ts, String name, String type, ByteBuffer payload) {
        ByteBuffer p = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int n = p.remaining();
        String value;
        boolean number = false;
        switch (type) {
            case "unit": value = ""; break;
            case "int": value = n >= 4 ? Integer.toString(p.getInt(0)) : "?"; number = n >= 4; break;
            case "long": value = n >= 8 ? Long.toString(p.getLong(0)) : "?"; number = n >= 8; break;
            case "span": value = n > 0 && p.get(0) == 1 ? "end" : "begin"; break;
            default: {
                StringBuilder sb = new StringBuilder(2 * n);
                for (int i = 0; i < n; i++) {
                    sb.append(Character.forDigit((p.get(i) >> 4) & 0xF, 16)).append(Character.forDigit(p.get(i) & 0xF, 16));
                }
                value = sb.toString();
            }
        }
        if (json) {
            line(ts, tid, "custom", name, type, number ? value : JsonWriter.quote(value));
        } else {
            line(ts, tid, "custom", name, type, value);
        }
    }

    /** Rings found damaged (printed on stderr as they are met; the other rings are read on). */
    final java.util.List<String> damaged = new java.util.ArrayList<>();

    @Override
    public void damaged(long tid, io.memscope.error.CorruptFileException damage) {
        String what = "thread " + tid + "'s ring is damaged and skipped: " + TerminalText.safe(damage.getMessage());
        damaged.add(what);
        System.err.println("memscope events: " + (withPid ? "pid " + pid + ": " : "") + what);
    }

    @Override
    public void lost(long tid, long count) {
        printed++;
        if (json) {
            out.println("{" + (withPid ? "\"pid\":" + pid + "," : "") + "\"kind\":\"lost\",\"tid\":" + tid
                    + ",\"count\":" + count + "}");
        } else {
            out.println((withPid ? pid + "\t" : "") + "-\t" + tid + "\tlost\t" + count);
        }
    }

    private void line(long ts, long tid, String kind, String name, String type, String value) {
        printed++;
        long rel = ts - origin;
        if (json) {
            StringBuilder sb = new StringBuilder(96).append('{');
            if (withPid) {
                sb.append("\"pid\":").append(pid).append(',');
            }
            sb.append("\"ts\":").append(rel).append(",\"tid\":").append(tid).append(",\"kind\":\"").append(kind)
                    .append("\",\"name\":").append(JsonWriter.quote(name));
            if (type != null) {
                sb.append(",\"type\":").append(JsonWriter.quote(type));
            }
            if (value != null) {
                sb.append(",\"value\":").append(value);
            }
            out.println(sb.append('}'));
        } else {
            StringBuilder sb = new StringBuilder(64);
            if (withPid) {
                sb.append(pid).append('\t');
            }
            sb.append(rel).append('\t').append(tid).append('\t').append(kind).append('\t')
                    .append(TerminalText.safe(name)); // one line, whatever the application named it
            if (type != null) {
                sb.append('\t').append(TerminalText.safe(type));
            }
            if (value != null) {
                sb.append('\t').append(TerminalText.safe(value));
            }
            out.println(sb);
        }
    }
}
