package io.memscope.events;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Test callbacks that keep every event as a line "kind name tid value". */
final class Recorded implements EventCursor.Callbacks {
    final List<String> lines = new ArrayList<>();
    final List<Long> values = new ArrayList<>();
    final List<Long> timestamps = new ArrayList<>();
    long lost;

    @Override
    public void spanBegin(long tid, long ts, String name) {
        add("begin " + name, tid, ts, 0);
    }

    @Override
    public void spanEnd(long tid, long ts, String name) {
        add("end " + name, tid, ts, 0);
    }

    @Override
    public void lifecycle(long tid, long ts, String name, long data) {
        add("lifecycle " + name + " " + data, tid, ts, data);
    }

    @Override
    public void counter(long tid, long ts, String name, long value) {
        add("counter " + name + " " + value, tid, ts, value);
    }

    @Override
    public void custom(long tid, long ts, String name, String type, ByteBuffer payload) {
        StringBuilder sb = new StringBuilder("custom " + name + ":" + type + " [");
        for (int i = payload.position(); i < payload.limit(); i++) {
            sb.append(String.format("%02x", payload.get(i)));
        }
        add(sb.append("]").toString(), tid, ts, 0);
    }

    @Override
    public void lost(long tid, long count) {
        lost += count;
    }

    private void add(String s, long tid, long ts, long v) {
        lines.add(s);
        values.add(v);
        timestamps.add(ts);
    }
}
