package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.GcRecord;
import io.memscope.recording.GcRecord.Examined;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The collection log's matching of the JVM's pauses (JVMTI) with its beans' collections (counts, last collection,
 * notifications), on made-up JVMs: the orders and delays a loaded machine produces, which a real JVM shows only
 * sometimes. The real JVMs' side is {@code GcRecordsTest} (memscope-cli) and the Maven build test.
 */
class CollectionMatchingTest {
    private static final long MS = 1_000_000L;

    /** A made-up JVM: beans, the library's ordinals, and the management clock {@code OFFSET} ns behind nanoTime. */
    static final class FakeJvm implements GcBeans {
        static final long OFFSET = 5_000_000_321L;
        final List<String> names;
        final long[] counts;
        final GcBeans.Collection[] last;
        int started;
        int finished;
        final List<long[]> pauses = new ArrayList<>();
        final List<List<GcBeans.Collection>> inPause = new ArrayList<>();
        long clock = 10_000 * MS;

        FakeJvm(String... names) {
            this.names = List.of(names);
            this.counts = new long[names.length];
            this.last = new GcBeans.Collection[names.length];
        }

        /**
         * A pause of {@code pauseMs} in which each given bean counts a collection; the management interval starts
         * {@code setUpMs} after the pause (its set-up) and lasts {@code statsMs}.
         *
         * @return the collections it counted
         */
        List<GcBeans.Collection> pause(long pauseMs, long setUpMs, long statsMs, long usedBefore, long usedAfter,
                                        int... beans) {
            long start = clock;
            long end = start + pauseMs * MS;
            started++;
            List<GcBeans.Collection> counted = new ArrayList<>();
            long mgmt = start + setUpMs * MS - OFFSET;
            for (int b : beans) {
                counts[b]++;
                GcBeans.Collection c = new GcBeans.Collection(b, counts[b], mgmt / MS, statsMs, usedBefore, usedAfter,
                        64 * MS);
                last[b] = c;
                counted.add(c);
            }
            finished++;
            pauses.add(new long[] {started, start, end});
            inPause.add(counted);
            clock = end + 300 * MS;
            return counted;
        }

        /** A concurrent cycle of bean {@code b} that started {@code agoMs} ago and ends now. */
        GcBeans.Collection cycle(int b, long agoMs, long usedBefore, long usedAfter) {
            counts[b]++;
            long mgmtStart = clock - agoMs * MS - OFFSET;
            GcBeans.Collection c = new GcBeans.Collection(b, counts[b], mgmtStart / MS, agoMs, usedBefore, usedAfter,
                    64 * MS);
            last[b] = c;
            clock += 100 * MS;
            return c;
        }

        /** Hands the pauses the drain thread has not seen to the log, as the heap sampler does. */
        void drain(CollectionLog log, int[] seen) {
            for (; seen[0] < pauses.size(); seen[0]++) {
                long[] p = pauses.get(seen[0]);
                log.pause((int) p[0], p[1], p[2]);
            }
        }

        long ordinals() {
            return (long) started << 32 | finished;
        }

        @Override
        public int size() {
            return names.size();
        }

        @Override
        public String name(int i) {
            return names.get(i);
        }

        @Override
        public long count(int i) {
            return counts[i];
        }

        @Override
        public GcBeans.Collection last(int i) {
            return last[i];
        }
    }

    /** Three young collections, each in a cut of its own with its notification: the clock learns the offset. */
    private static void learnClock(FakeJvm jvm, CollectionLog log, int[] seen) {
        for (int i = 0; i < 3; i++) {
            GcBeans.Collection c = jvm.pause(8, 2, 5, 30 << 20, 8 << 20, 0).get(0);
            jvm.drain(log, seen);
            log.cut();
            log.notified(0, "end of minor GC", "G1 Evacuation Pause", c);
        }
    }

    private static CollectionLog log(FakeJvm jvm) {
        CollectionLog log = new CollectionLog(true, true, 0);
        log.ordinals(jvm::ordinals);
        return log;
    }

    /**
     * The end check's System.gc() ran a full collection, and another thread's young collection followed before the
     * call returned, both before their bean collections were known: the young one, the last in the check's window,
     * stays young (a young collection proves nothing about old objects); the full one judges the whole heap.
     */
    @Test
    void aYoungCollectionAfterTheEndChecksOwnInItsWindowStaysYoung() {
        FakeJvm jvm = new FakeJvm("G1 Young Generation", "G1 Old Generation");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        learnClock(jvm, log, seen);
        long from = jvm.clock - 1;
        List<GcBeans.Collection> sent = new ArrayList<>();
        sent.addAll(jvm.pause(40, 1, 38, 60 << 20, 12 << 20, 1)); // the check's full collection
        sent.addAll(jvm.pause(5, 1, 3, 14 << 20, 12 << 20, 0));   // another thread's young one
        jvm.drain(log, seen);
        long to = jvm.clock;
        log.endCheck(from, to, 60 << 20, 12 << 20, 64 << 20); // before the cut: neither pause classified yet
        log.cut();
        for (GcBeans.Collection c : sent) {
            log.notified(c.bean(), c.bean() == 0 ? "end of minor GC" : "end of major GC", "System.gc()", c);
        }
        List<GcRecord> records = log.take(true);
        assertThat(records).hasSize(5);
        assertThat(records.subList(3, 5)).extracting(GcRecord::name)
                .containsExactly("G1 Old Generation", "G1 Young Generation");
        assertThat(records.subList(3, 5)).extracting(GcRecord::examined)
                .containsExactly(Examined.WHOLE_HEAP, Examined.YOUNG);
        assertThat(records.get(4).heapUsedBefore()).as("the JVM's figures, not the check's").isEqualTo(14 << 20);
        assertThat(log.takeVerdict()).isGreaterThanOrEqualTo(from);
    }

    @Test
    void aFirstPauseLongerThanItsManagementIntervalDoesNotMisplaceTheLaterOnes() {
        // The bug of a loaded machine: the first pause's JVMTI interval was 40 ms longer than its management interval;
        // an offset learned from it placed every later notification 40 ms early, in no collection.
        FakeJvm jvm = new FakeJvm("G1 Young Generation", "G1 Old Generation");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        jvm.pause(48, 38, 10, 20 << 20, 7 << 20, 0);
        jvm.drain(log, seen);
        log.readBeans(jvm, () -> jvm.clock);
        log.cut();
        for (int i = 0; i < 5; i++) {
            GcBeans.Collection c = jvm.pause(10, 0, 10, 30 << 20, 8 << 20, 0).get(0);
            jvm.drain(log, seen);
            log.notified(0, "end of minor GC", "G1 Evacuation Pause", c); // before the cut: waits for it
            log.cut();
        }
        List<GcRecord> records = log.take(true);
        assertThat(records).hasSize(6).allSatisfy(r -> {
            assertThat(r.hasHeapFigures()).isTrue();
            assertThat(r.name()).isEqualTo("G1 Young Generation");
            assertThat(r.examined()).isEqualTo(Examined.YOUNG);
        });
        assertThat(records.subList(1, 6)).allSatisfy(r -> assertThat(r.cause()).isEqualTo("G1 Evacuation Pause"));
        assertThat(log.unmatched()).isZero();
    }

    /**
     * A drain thread that fell thousands of collections behind before the management clock was learned: one cut holds
     * them all, placed by time with an offset calibrated on them. Calibrating by trying every pairing against every
     * notification took minutes at this size, under the lock the JDK's notification thread waits for (the timeout
     * guards against that hang; it measures nothing).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void thousandsOfPausesInOneCutBeforeTheClockIsKnownArePlacedByTime() {
        FakeJvm jvm = new FakeJvm("PS Scavenge", "PS MarkSweep");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        List<GcBeans.Collection> sent = new ArrayList<>();
        int n = 3000;
        for (int i = 0; i < n; i++) {
            sent.addAll(jvm.pause(5, 1, 3, 40 << 20, 20 << 20, 0));
            if (i % 10 == 0) {
                jvm.pause(1, 0, 0, 0, 0); // a VM operation no bean counts: not one bean collection per pause
            }
        }
        jvm.drain(log, seen);
        for (GcBeans.Collection c : sent) {
            log.notified(c.bean(), "end of minor GC", "Allocation Failure", c);
        }
        log.cut();
        List<GcRecord> records = log.take(true);
        assertThat(records).hasSize(n + n / 10);
        assertThat(records).filteredOn(r -> r.hasHeapFigures()).hasSize(n)
                .allSatisfy(r -> assertThat(r.cause()).isEqualTo("Allocation Failure"));
        assertThat(log.unmatched()).isZero();
    }

    @Test
    void notificationsThatArriveLateAndOutOfOrderArePlacedByTheirIds() {
        FakeJvm jvm = new FakeJvm("PS Scavenge", "PS MarkSweep");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        List<GcBeans.Collection> sent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sent.addAll(i == 3 ? jvm.pause(30, 1, 28, 50 << 20, 10 << 20, 0, 1) // young + full in one pause
                    : jvm.pause(5, 1, 3, 40 << 20, 20 << 20, 0));
            jvm.drain(log, seen);
            log.cut();
        }
        for (int i = sent.size() - 1; i >= 0; i--) {
            GcBeans.Collection c = sent.get(i);
            log.notified(c.bean(), c.bean() == 0 ? "end of minor GC" : "end of major GC", "Allocation Failure", c);
        }
        List<GcRecord> records = log.take(true);
        assertThat(records).hasSize(6);
        assertThat(records).allSatisfy(r -> assertThat(r.cause()).isEqualTo("Allocation Failure"));
        GcRecord full = records.get(3);
        assertThat(full.name()).isEqualTo("PS MarkSweep");
        assertThat(full.examined()).isEqualTo(Examined.WHOLE_HEAP);
        assertThat(full.snapshotNanos()).isEqualTo(full.startNanos());
        assertThat(full.heapUsedBefore()).isEqualTo(50 << 20);
        assertThat(records.get(2).examined()).isEqualTo(Examined.YOUNG);
        assertThat(log.takeVerdict()).isEqualTo(full.startNanos());
    }

    @Test
    void pausesBeforeTheFirstReadingOfTheBeansKeepTheirNamesAndGetTheHeapReadRightAfterThem() {
        FakeJvm jvm = new FakeJvm("G1 Young Generation", "G1 Old Generation");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        jvm.pause(5, 1, 3, 20 << 20, 7 << 20, 0);
        jvm.drain(log, seen); // the drain thread sees the first pause, starts reading the beans: slow
        jvm.pause(5, 1, 3, 21 << 20, 8 << 20, 0);
        log.readBeans(jvm, () -> jvm.clock);
        log.cut(); // a pause the log was not told about yet: no cut
        jvm.drain(log, seen);
        log.cut();
        List<GcRecord> records = log.take(true);
        assertThat(records).extracting(GcRecord::name).containsExactly("G1 Young Generation", "G1 Young Generation");
        assertThat(records).extracting(GcRecord::examined).containsExactly(Examined.YOUNG, Examined.YOUNG);
        // the first one's notification was sent before the listener was registered: the drain thread read the heap
        // (this JVM's Runtime, in this test) right after it; the second is the beans' latest: the JVM's figures
        assertThat(records.get(0).hasHeapFigures()).isTrue();
        assertThat(records.get(0).heapUsedBefore()).isZero();
        assertThat(records.get(0).heapCommitted()).isPositive();
        assertThat(records.get(1).heapUsedAfter()).isEqualTo(8 << 20);
        java.util.Map<String, String> meta = new java.util.LinkedHashMap<>();
        log.metadata(meta);
        assertThat(meta).containsEntry("gc.collectionsWithoutHeapFigures", "0")
                .containsEntry("gc.collectionsWithMeasuredHeap", "1");
    }

    @Test
    void aG1PauseNoBeanCountsIsARemarkOnlyWhenItFreedSamples() {
        FakeJvm jvm = new FakeJvm("G1 Young Generation", "G1 Old Generation");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        long firstYoung = jvm.clock;
        jvm.pause(5, 1, 3, 20 << 20, 7 << 20, 0);                          // young (the marking may start here)
        jvm.drain(log, seen);
        log.cut();
        jvm.pause(0, 0, 0, 0, 0);                                          // a pause that collected nothing
        jvm.drain(log, seen);
        log.cut();
        jvm.pause(5, 1, 3, 20 << 20, 7 << 20, 0);                          // young
        jvm.drain(log, seen);
        log.cut();
        assertThat(log.takeVerdict()).isEqualTo(CollectionLog.NO_VERDICT);
        long remarkStart = jvm.clock;
        jvm.pause(3, 0, 0, 0, 0);                                          // Remark
        jvm.drain(log, seen);
        log.freed(4, firstYoung - 1);                                      // the heap sampler saw it free a sample
        log.cut();
        jvm.pause(1, 0, 0, 0, 0);                                          // Cleanup: frees nothing
        jvm.drain(log, seen);
        log.cut();
        assertThat(log.takeVerdict()).as("the snapshot: the first pause of the capture").isEqualTo(firstYoung);
        List<GcRecord> records = log.take(true);
        assertThat(records).extracting(GcRecord::name).containsExactly("G1 Young Generation",
                CollectionLog.UNNAMED, "G1 Young Generation", CollectionLog.MARKING_END, CollectionLog.UNNAMED);
        assertThat(records).extracting(GcRecord::examined).containsExactly(Examined.YOUNG, Examined.UNKNOWN,
                Examined.YOUNG, Examined.WHOLE_HEAP, Examined.UNKNOWN);
        GcRecord remark = records.get(3);
        assertThat(remark.startNanos()).isEqualTo(remarkStart);
        assertThat(remark.snapshotNanos()).isEqualTo(firstYoung);

        // the next marking: its snapshot is the first pause after this Remark
        long afterRemark = jvm.clock;
        jvm.pause(5, 1, 3, 20 << 20, 7 << 20, 0);
        jvm.drain(log, seen);
        log.cut();
        jvm.pause(3, 0, 0, 0, 0);
        jvm.drain(log, seen);
        log.freed(7, afterRemark - 5);
        log.cut();
        assertThat(log.takeVerdict()).isEqualTo(afterRemark);

        // a Remark that freed an object allocated later than the first young pause after the last marking: the
        // marking started after that allocation
        long young1 = jvm.clock;
        jvm.pause(5, 1, 3, 20 << 20, 7 << 20, 0);
        jvm.drain(log, seen);
        log.cut();
        jvm.pause(5, 1, 3, 20 << 20, 7 << 20, 0);
        jvm.drain(log, seen);
        log.cut();
        long freedAllocation = jvm.clock - 50 * MS;
        jvm.pause(3, 0, 0, 0, 0);
        jvm.drain(log, seen);
        log.freed(10, freedAllocation);
        log.cut();
        assertThat(log.takeVerdict()).isEqualTo(freedAllocation + 1).isGreaterThan(young1);
    }

    @Test
    void severalPausesBetweenTwoCutsArePlacedByTimeOnceTheClockIsKnown() {
        FakeJvm jvm = new FakeJvm("G1 Young Generation", "G1 Old Generation");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        learnClock(jvm, log, seen);
        // a young and a full collection end before the drain thread runs again
        GcBeans.Collection young = jvm.pause(8, 2, 5, 30 << 20, 8 << 20, 0).get(0);
        GcBeans.Collection full = jvm.pause(40, 2, 37, 60 << 20, 12 << 20, 1).get(0);
        jvm.drain(log, seen);
        log.cut();
        log.notified(0, "end of minor GC", "G1 Evacuation Pause", young);
        log.notified(1, "end of major GC", "G1 Compaction Pause", full);
        List<GcRecord> records = log.take(true);
        assertThat(records).hasSize(5);
        assertThat(records.get(3).name()).isEqualTo("G1 Young Generation");
        assertThat(records.get(3).examined()).isEqualTo(Examined.YOUNG);
        assertThat(records.get(4).name()).isEqualTo("G1 Old Generation");
        assertThat(records.get(4).examined()).isEqualTo(Examined.WHOLE_HEAP);
        assertThat(records.get(4).heapUsedAfter()).isEqualTo(12 << 20);
    }

    @Test
    void aRemarkInACutWithAYoungCollectionIsStillNamedARemark() {
        FakeJvm jvm = new FakeJvm("G1 Young Generation", "G1 Old Generation");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        long firstYoung = jvm.clock;
        learnClock(jvm, log, seen);
        // a young collection and a Remark (no bean counts it before JDK 20) end before the drain thread runs again:
        // one cut, two pauses, the young one's collection placed by time, none in the Remark
        GcBeans.Collection young = jvm.pause(8, 2, 5, 30 << 20, 8 << 20, 0).get(0);
        jvm.pause(3, 0, 0, 0, 0);
        jvm.drain(log, seen);
        log.freed(5, firstYoung - 1); // the heap sampler saw the Remark (the fifth pause) free a sample
        log.cut();
        log.notified(0, "end of minor GC", "G1 Evacuation Pause", young);
        List<GcRecord> records = log.take(true);
        assertThat(records).hasSize(5);
        assertThat(records.get(3).name()).isEqualTo("G1 Young Generation");
        assertThat(records.get(4).examined()).isEqualTo(Examined.WHOLE_HEAP);
        assertThat(records.get(4).name()).as("a whole-heap pause no bean counts: a Remark, not an unknown pause")
                .isEqualTo(CollectionLog.MARKING_END);
    }

    @Test
    void aZgcCycleIsAWholeHeapRecordOfItsOwnPlacedByTheClock() {
        FakeJvm jvm = new FakeJvm("ZGC Cycles", "ZGC Pauses");
        CollectionLog log = log(jvm);
        int[] seen = {0};
        log.readBeans(jvm, () -> jvm.clock);
        long cycleStart = jvm.clock;
        for (int i = 0; i < 3; i++) { // Mark Start, Mark End, Relocate Start
            jvm.pause(1, 0, 0, 30 << 20, 30 << 20, 1);
            jvm.drain(log, seen);
            log.cut();
        }
        GcBeans.Collection cycle = jvm.cycle(0, (jvm.clock - cycleStart) / MS, 30 << 20, 12 << 20);
        log.cut();
        long verdict = log.takeVerdict();
        assertThat(verdict).isLessThanOrEqualTo(cycleStart).isGreaterThan(cycleStart - 2 * MS);
        log.notified(0, "end of GC cycle", "Allocation Rate", cycle);
        List<GcRecord> records = log.take(true);
        GcRecord c = records.stream().filter(r -> r.name().equals("ZGC Cycles")).findFirst().orElseThrow();
        assertThat(c.examined()).isEqualTo(Examined.WHOLE_HEAP);
        assertThat(c.isPause()).isFalse();
        assertThat(c.snapshotNanos()).isEqualTo(c.startNanos()).isLessThanOrEqualTo(cycleStart);
        assertThat(c.verdictNanos()).isGreaterThanOrEqualTo(c.startNanos() + c.durationNanos());
        assertThat(c.cause()).isEqualTo("Allocation Rate");
        assertThat(records).filteredOn(r -> r.name().equals("ZGC Pauses")).hasSize(3)
                .allSatisfy(r -> assertThat(r.examined()).isEqualTo(Examined.UNKNOWN));
    }
}
