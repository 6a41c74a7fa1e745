package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link TimeOrder}: events put in time order within a window, in bounded memory, against a plain model. */
class TimeOrderTest {
    /** An event as the sink saw it: its time and its arrival number (carried in the address column). */
    private record Seen(long time, long arrival) {
    }

    private static List<Seen> run(TimeOrder[] made, long window, int capacity, long[] times) {
        List<Seen> out = new ArrayList<>();
        TimeOrder order = new TimeOrder(window, capacity, e -> out.add(new Seen(e.timestampNanos(), e.address())));
        io.memscope.recording.EventView view = new io.memscope.recording.EventView();
        made[0] = order;
        for (int i = 0; i < times.length; i++) {
            order.accept(view.set(times[i], MemoryEventType.ALLOCATE, i, 1, 0, 1, 0, 0, 0, 0, 1));
        }
        order.finish();
        return out;
    }

    /**
     * The rule written plainly: hold events; when full release the oldest; an event older than one released passes at
     * once (late); an event newer than all before releases every held event {@code window} or more older.
     */
    private static List<Seen> model(long window, int capacity, long[] times, long[] late) {
        List<Seen> out = new ArrayList<>();
        List<Seen> held = new ArrayList<>();
        Comparator<Seen> oldestFirst = Comparator.comparingLong(Seen::time).thenComparingLong(Seen::arrival);
        long newest = Long.MIN_VALUE;
        long released = Long.MIN_VALUE;
        for (int i = 0; i < times.length; i++) {
            if (held.size() == capacity) {
                Seen s = held.stream().min(oldestFirst).orElseThrow();
                held.remove(s);
                released = Math.max(released, s.time());
                out.add(s);
            }
            Seen e = new Seen(times[i], i);
            if (e.time() < released) {
                late[0]++;
                out.add(e);
                continue;
            }
            held.add(e);
            if (e.time() > newest) {
                newest = e.time();
                while (!held.isEmpty()) {
                    Seen s = held.stream().min(oldestFirst).orElseThrow();
                    if (s.time() > newest - window) {
                        break;
                    }
                    held.remove(s);
                    released = Math.max(released, s.time());
                    out.add(s);
                }
            }
        }
        held.sort(oldestFirst);
        out.addAll(held);
        return out;
    }

    @Test
    void sortsWithinItsWindowAndCountsWhatCameLater() {
        TimeOrder[] order = new TimeOrder[1];
        List<Seen> out = run(order, 100, 8, new long[] {10, 5, 60, 30, 150, 120, 90, 400, 20, 390, 500});
        // 20 arrives after 400 released everything up to 300: out of order, passed on at once and counted
        assertThat(order[0].late()).isEqualTo(1);
        assertThat(out.stream().map(Seen::time).toList())
                .containsExactly(5L, 10L, 30L, 60L, 90L, 120L, 150L, 20L, 390L, 400L, 500L);
    }

    /** Ties in time leave in the order they arrived, whether they arrived in order or behind. */
    @Test
    void tiesLeaveInArrivalOrder() {
        TimeOrder[] order = new TimeOrder[1];
        List<Seen> out = run(order, 1000, 64, new long[] {50, 50, 70, 50, 60, 50, 70});
        assertThat(out).containsExactly(new Seen(50, 0), new Seen(50, 1), new Seen(50, 3), new Seen(50, 5),
                new Seen(60, 4), new Seen(70, 2), new Seen(70, 6));
    }

    /**
     * Drains that hand over whole buffers of several threads one after another (every event of a buffer behind the
     * last event of the one before), events a little behind each other, and now and then one far behind: the same
     * output as the plain rule, event for event, with the window and the capacity both binding.
     */
    @Test
    void matchesThePlainRuleOnInterleavedBuffers() {
        Random rnd = new Random(7);
        for (int round = 0; round < 40; round++) {
            int threads = 1 + rnd.nextInt(8);
            long window = 1 + rnd.nextInt(5_000);
            int capacity = 1 << (2 + rnd.nextInt(9));
            List<Long> times = new ArrayList<>();
            long drainStart = 0;
            for (int drain = 0; drain < 20; drain++) {
                long period = 1 + rnd.nextInt(2_000);
                for (int t = 0; t < threads; t++) {
                    long clock = drainStart;
                    for (int e = rnd.nextInt(50); e > 0; e--) {
                        clock += rnd.nextInt(40);
                        long time = rnd.nextInt(20) == 0 ? clock - rnd.nextInt(10_000) : clock - rnd.nextInt(3);
                        times.add(time);
                    }
                }
                drainStart += period;
            }
            long[] in = times.stream().mapToLong(Long::longValue).toArray();
            long[] late = new long[1];
            List<Seen> expected = model(window, capacity, in, late);
            TimeOrder[] order = new TimeOrder[1];
            List<Seen> actual = run(order, window, capacity, in);
            int first = 0;
            while (first < Math.min(actual.size(), expected.size()) && actual.get(first).equals(expected.get(first))) {
                first++;
            }
            int from = Math.max(0, first - 3);
            assertThat(actual).as("round %d: window %d, capacity %d, first difference at %d: %s where the rule gives %s",
                    round, window, capacity, first, actual.subList(from, Math.min(actual.size(), first + 3)),
                    expected.subList(from, Math.min(expected.size(), first + 3))).isEqualTo(expected);
            assertThat(order[0].late()).isEqualTo(late[0]);
        }
    }

    /**
     * Many events behind the newest (a buffer of 200,000 events handed over after a later one): every one is put in
     * order, none late, as many out as in. (Before the heap, each shifted every event held: minutes, where this takes
     * well under a second; the timeout is a guard against that, not a measurement.)
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLargeBufferBehindIsPutInOrder() {
        int n = 200_000;
        long[] in = new long[2 * n];
        for (int i = 0; i < n; i++) {
            in[i] = 1_000_000L + i; // the later thread's buffer first
            in[n + i] = i * 5L; // then the earlier one's, every event behind
        }
        TimeOrder[] order = new TimeOrder[1];
        List<Seen> out = run(order, 10_000_000L, 1 << 18, in);
        assertThat(order[0].late()).isZero();
        assertThat(out).hasSize(2 * n);
        for (int i = 1; i < out.size(); i++) {
            assertThat(out.get(i).time()).isGreaterThanOrEqualTo(out.get(i - 1).time());
        }
    }

    /** Every field of an event as a sink saw it. */
    private static String fields(io.memscope.recording.EventView e) {
        return e.toString();
    }

    /** A sink that takes runs of columns too (as the decoding thread's chunks do), recording every event's fields. */
    private static final class RunRecorder implements TimeOrder.RunSink {
        final List<String> seen = new ArrayList<>();
        int runs;

        @Override
        public void accept(io.memscope.recording.EventView e) {
            seen.add(fields(e));
        }

        @Override
        public void run(long[] ts, byte[] type, long[] address, long[] size, long[] previous, long[] thread,
                        int[] threadName, int[] variable, int[] typeName, long[] stack, int[] site, int from, int n) {
            runs++;
            io.memscope.recording.EventView v = new io.memscope.recording.EventView();
            for (int i = from; i < from + n; i++) {
                seen.add(fields(v.set(ts[i], MemoryEventType.values()[type[i]], address[i], size[i], previous[i],
                        thread[i], threadName[i], variable[i], typeName[i], stack[i], site[i])));
            }
        }
    }

    /** Feeds the same events, every field set from the event's number, to the ring-order time order and the old one. */
    private static void assertSameAsSlotOrder(String what, long window, int capacity, long[] times) {
        List<String> expected = new ArrayList<>();
        SlotTimeOrder reference = new SlotTimeOrder(window, capacity, e -> expected.add(fields(e)));
        List<String> plain = new ArrayList<>();
        TimeOrder perEvent = new TimeOrder(window, capacity, e -> plain.add(fields(e)));
        RunRecorder runs = new RunRecorder();
        TimeOrder inRuns = new TimeOrder(window, capacity, runs);
        io.memscope.recording.EventView view = new io.memscope.recording.EventView();
        MemoryEventType[] types = MemoryEventType.values();
        for (int i = 0; i < times.length; i++) {
            view.set(times[i], types[i % types.length], 1000L + i, 16L * i, i % 5, i % 7, i % 11, i % 13, i % 17,
                    30_000L + i, i % 3000);
            reference.accept(view);
            perEvent.accept(view);
            inRuns.accept(view);
        }
        reference.finish();
        perEvent.finish();
        inRuns.finish();
        assertThat(plain).as(what + ": event by event").isEqualTo(expected);
        assertThat(runs.seen).as(what + ": in runs").isEqualTo(expected);
        assertThat(perEvent.late()).as(what).isEqualTo(reference.late());
        assertThat(inRuns.late()).as(what).isEqualTo(reference.late());
    }

    /**
     * The ring-order columns release exactly what the slot columns released, every field, whether the sink takes
     * runs or single events: random streams (window and capacity binding or not), a buffer far behind (the heap's
     * columns grow), long runs in order (the ring grows and wraps), ties between the ring and the heap, late events.
     */
    @Test
    void releasesWhatTheSlotColumnsReleasedFieldForField() {
        Random rnd = new Random(11);
        for (int round = 0; round < 60; round++) {
            int n = 1 + rnd.nextInt(20_000);
            long window = 1 + rnd.nextInt(rnd.nextBoolean() ? 50 : 20_000);
            int capacity = 1 << (1 + rnd.nextInt(14));
            long[] times = new long[n];
            long clock = 0;
            for (int i = 0; i < n; i++) {
                clock += rnd.nextInt(4); // many ties
                int kind = rnd.nextInt(100);
                times[i] = kind < 70 ? clock : kind < 95 ? clock - rnd.nextInt(30) : clock - rnd.nextInt(40_000);
            }
            assertSameAsSlotOrder("random round " + round, window, capacity, times);
        }
        int n = 50_000;
        long[] behind = new long[n];
        for (int i = 0; i < n / 2; i++) {
            behind[i] = 1_000_000L + i;
            behind[n / 2 + i] = i * 7L; // every event behind the newest: the heap's columns grow
        }
        assertSameAsSlotOrder("a buffer behind", 10_000_000L, 1 << 18, behind);
        assertSameAsSlotOrder("a buffer behind, capacity binding", 10_000_000L, 1 << 12, behind);
        long[] inOrder = new long[n];
        for (int i = 0; i < n; i++) {
            inOrder[i] = i / 3 + (i % 1000 == 999 ? -500 : 0); // in order (ties), now and then one behind
        }
        assertSameAsSlotOrder("in order, the ring wrapping and growing", 1_000, 1 << 16, inOrder);
        assertSameAsSlotOrder("in order, window wide", Long.MAX_VALUE / 4, 1 << 16, inOrder);
        long[] sawtooth = new long[n];
        for (int i = 0; i < n; i++) {
            sawtooth[i] = (i / 100) * 50L + (i % 100); // each buffer overlaps the one before: ring and heap ties
        }
        assertSameAsSlotOrder("overlapping buffers", 120, 1 << 10, sawtooth);
        long[] late = new long[n];
        for (int i = 0; i < n; i++) {
            late[i] = i % 10 == 0 ? i - 5_000L : i; // far behind the window: late, passed on at once
        }
        assertSameAsSlotOrder("late events", 100, 1 << 14, late);
    }
}
