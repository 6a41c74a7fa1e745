package io.memscope.internal.recording;

import io.memscope.recording.RecordingReader.ChunkSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.error.CorruptFileException;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.ScopePath;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chunked recording (format 1.7): tiny chunks, each one readable alone with every string, site and stack it uses
 * (and no string it does not use)
 * and the state carried from the chunks before it; the chunks read as one recording give exactly what one file of
 * the same stream gives; a chunk set whose first chunks were deleted starts from its first chunk's carried state.
 */
class ChunkRotationTest {
    private static final int EVENTS = 60_000;
    private static final int SITES = 300;

    /** The producer's side: which sites and stacks the current chunk has, re-defined after a rotation. */
    private static class Producer implements RecordingWriter.ChunkDefinitions {
        final Set<Integer> sitesWritten = new HashSet<>();
        final Set<Long> stacksWritten = new HashSet<>();

        void site(RecordingWriter w, int id) {
            if (sitesWritten.add(id)) {
                w.site(id, "app.Site" + id, "make" + id, "Site" + id + ".java", id, "byte[]");
            }
        }

        void stack(RecordingWriter w, long id) {
            if (stacksWritten.add(id)) {
                w.stack(id, List.of("app.Leaf" + id + ".run(Leaf.java:" + id + ")", "app.Main.main(Main.java:1)"));
            }
        }

        @Override
        public void define(RecordingWriter w, List<Integer> siteIds, List<Long> stackIds, List<Long> stacksDefined) {
            sitesWritten.clear();
            stacksWritten.clear();
            stacksWritten.addAll(stacksDefined);
            siteIds.forEach(id -> site(w, id));
            stackIds.forEach(id -> stack(w, id));
        }
    }

    /** Writes the same stream to {@code w}; with {@code rotate}, asks for a rotation every 1,000 events. */
    private static void write(RecordingWriter w, boolean rotate) {
        write(w, rotate, false);
    }

    /** With {@code eager}, the writer may begin a chunk inside {@code accept} (its chunk definitions are set). */
    private static void write(RecordingWriter w, boolean rotate, boolean eager) {
        Random r = new Random(42);
        Producer p = new Producer();
        if (eager) {
            w.chunkDefinitions(p);
        }
        int main = w.strings().intern("main");
        int worker = w.strings().intern("worker");
        w.metadata("mode", "sample");
        w.metadata("startNanos", "1000");
        w.scopePath(1, 0, "request");
        w.scopePath(2, 1, "parse");
        List<Long> live = new ArrayList<>();
        long t = 1_000;
        long nextAddress = 1;
        for (int i = 0; i < EVENTS; i++) {
            t += 1 + r.nextInt(1000);
            if (!live.isEmpty() && r.nextInt(3) == 0) {
                long address = live.remove(r.nextInt(live.size()));
                w.accept(t, MemoryEventType.DEALLOCATE, address, 0, 0, 1, main, 0, 0, 0, 0);
            } else {
                int site = 1 + r.nextInt(SITES);
                long stack = 1 + r.nextInt(SITES * 2);
                p.site(w, site);
                p.stack(w, stack);
                long address = nextAddress++;
                live.add(address);
                int type = w.strings().intern("T" + (site % 17));
                w.accept(t, MemoryEventType.ALLOCATE, address, 16 + site, 0, r.nextBoolean() ? 1 : 2,
                        r.nextBoolean() ? main : worker, 0, type, stack, site);
            }
            if (i % 5_000 == 0) {
                w.gc(t, 100, i % 20_000 == 0 ? "G1 Old Generation" : "G1 Young Generation", "Allocation Failure",
                        1000 + i, 500 + i, 4000 + i, "end of GC", i % 20_000 == 0 ? GcRecord.Examined.WHOLE_HEAP
                                : GcRecord.Examined.YOUNG, i % 20_000 == 0 ? t - 10 : t, t);
            }
            if (i % 700 == 0) {
                w.scopeEdge(t, 1, main, false, 1, 0, -1);
                w.scopeEdge(t, 1, main, false, 2, 0, -1);
            } else if (i % 700 == 350) {
                w.scopeEdge(t, 1, main, true, 2, 0, 10);
                w.scopeEdge(t, 1, main, true, 1, 0, 20);
            }
            if (i % 10_000 == 0) {
                w.siteCount(1 + (i / 10_000) % SITES, i, i * 10L);
            }
            if (rotate && i % 1_000 == 999) {
                w.flush();
                w.rotateIfDue(p);
            }
        }
        w.metadata("endNanos", Long.toString(t));
        w.close();
    }

    private static RecordingWriter writer(Path file, ChunkPolicy policy) {
        RecordingWriterBuilder b = RecordingWriter.builder(file).blockBytes(4096).clock(5_000_000_000L, 1_000)
                .process(7, 0);
        if (policy != null) {
            b.chunks(policy);
        }
        return b.open();
    }

    private static List<Path> chunks(Path dir) throws Exception {
        TreeMap<Integer, Path> byIndex = new TreeMap<>();
        try (var l = Files.list(dir)) {
            l.forEach(f -> {
                int i = ChunkPolicy.chunkIndex(f.getFileName().toString(), "recording");
                if (i > 0) {
                    byIndex.put(i, f);
                }
            });
        }
        return new ArrayList<>(byIndex.values());
    }

    @Test
    void eachChunkStandsAloneAndTheChunksReadAsOneGiveTheSingleFile(@TempDir Path dir) throws Exception {
        Path single = dir.resolve("single/recording.msrec");
        Files.createDirectories(single.getParent());
        write(writer(single, null), false);
        Path chunked = dir.resolve("chunked/recording.msrec");
        Files.createDirectories(chunked.getParent());
        write(writer(chunked, ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE)), true);

        List<Path> files = chunks(chunked.getParent());
        assertThat(files).as("tiny chunks").hasSizeGreaterThan(3);
        assertThat(files.get(1).getFileName().toString()).isEqualTo("recording-000002.msrec");
        for (int c = 0; c < files.size(); c++) {
            Recording alone = RecordingReader.readStrict(files.get(c));
            assertThat(alone.header().flags()).as("CONTINUED and OWN_STRINGS on chunk " + (c + 1))
                    .isEqualTo(c == 0 ? 0 : RecordingFormat.FLAG_CONTINUED | RecordingFormat.FLAG_OWN_STRINGS);
            assertThat(alone.header().minorVersion()).isEqualTo(7);
            Set<Integer> sites = new HashSet<>();
            Set<Long> stacks = new HashSet<>();
            Set<String> names = new HashSet<>();
            for (MemoryEvent e : alone.events()) {
                if (e.type() == MemoryEventType.ALLOCATE) {
                    sites.add(e.siteId());
                    stacks.add(e.callStackHash());
                    names.add(e.typeName().substring(0, 1));
                }
                names.add(e.threadName());
            }
            assertThat(alone.sites().keySet()).as("chunk " + (c + 1) + " defines its sites").containsAll(sites);
            assertThat(alone.stacks().keySet()).as("chunk " + (c + 1) + " defines its stacks").containsAll(stacks);
            assertThat(names).as("chunk " + (c + 1) + " names").containsOnly("main", "worker", "T");
            assertThat(alone.metadata()).containsEntry("mode", "sample").containsEntry("startNanos", "1000");
            if (c > 0) {
                assertThat(alone.metadata()).containsEntry(ChunkPolicy.META_INDEX, Integer.toString(c + 1));
                assertThat(alone.scopePaths()).containsKeys(1, 2);
            }
        }

        Recording one = RecordingReader.readStrict(single);
        Recording set = RecordingReader.readStrict(chunked.getParent());
        assertThat(set.eventCount()).isEqualTo(EVENTS).isEqualTo(one.eventCount());
        assertThat(set.events()).containsExactlyElementsOf(one.events());
        assertThat(set.gcRecords()).containsExactlyElementsOf(one.gcRecords());
        assertThat(set.siteCounts()).isEqualTo(one.siteCounts());
        assertThat(set.sites()).isEqualTo(one.sites());
        assertThat(set.stacks()).isEqualTo(one.stacks());
        assertThat(edges(set)).containsExactlyElementsOf(edges(one));
        assertThat(set.totals()).isEqualTo(one.totals());
        assertThat(set.header()).isEqualTo(one.header());
    }

    private static List<String> edges(Recording r) {
        List<String> out = new ArrayList<>();
        for (ScopePath.Edge e : r.scopeEdges()) {
            out.add(e.toString());
        }
        return out;
    }

    @Test
    void aSetWhoseFirstChunksWereDeletedStartsFromItsFirstChunksCarriedState(@TempDir Path dir) throws Exception {
        Path single = dir.resolve("single/recording.msrec");
        Files.createDirectories(single.getParent());
        write(writer(single, null), false);
        Path chunked = dir.resolve("chunked/recording.msrec");
        Files.createDirectories(chunked.getParent());
        write(writer(chunked, ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE)), true);
        List<Path> files = chunks(chunked.getParent());
        int drop = files.size() / 2;
        for (int i = 0; i < drop; i++) {
            Files.delete(files.get(i));
        }
        ChunkSet set = ChunkSet.of(chunked.getParent());
        assertThat(set.firstIndex()).isEqualTo(drop + 1);
        assertThat(set.deleted()).isEqualTo(drop);

        Recording one = RecordingReader.readStrict(single);
        Recording rest = RecordingReader.readStrict(chunked.getParent());
        // what is outstanding at the end: the same from the carried state on as from the whole stream
        assertThat(outstanding(rest)).isEqualTo(outstanding(one));
        // every collection since the last whole-heap one before the first chunk read is there
        List<GcRecord> gcs = rest.gcRecords();
        assertThat(gcs.get(0).examined()).isEqualTo(GcRecord.Examined.WHOLE_HEAP);
        assertThat(one.gcRecords()).endsWith(gcs.toArray(new GcRecord[0]));
        // open scopes carried: every exit of the read has its entry
        Map<Long, Integer> depth = new LinkedHashMap<>();
        for (ScopePath.Edge e : rest.scopeEdges()) {
            int d = depth.merge(e.threadId(), e.exit() ? -1 : 1, Integer::sum);
            assertThat(d).as("scope depth after " + e).isGreaterThanOrEqualTo(0);
        }
        assertThat(rest.siteCounts()).isEqualTo(one.siteCounts());
        assertThat(rest.metadata()).containsEntry("endNanos", one.metadata().get("endNanos"));
    }

    private static Map<Long, MemoryEvent> outstanding(Recording r) {
        Map<Long, MemoryEvent> live = new TreeMap<>();
        for (MemoryEvent e : r.events()) {
            if (e.type() == MemoryEventType.ALLOCATE) {
                live.put(e.address(), e);
            } else if (e.type() == MemoryEventType.DEALLOCATE) {
                live.remove(e.address());
            }
        }
        return live;
    }

    @Test
    void boundsDeleteTheOldestChunksButNeverTheOneBeingWritten(@TempDir Path dir) throws Exception {
        Path chunked = dir.resolve("recording.msrec");
        long max = 4 * ChunkPolicy.MIN_CHUNK_BYTES;
        RecordingWriter w = writer(chunked, ChunkPolicy.of(max, 0, ChunkPolicy.MIN_CHUNK_BYTES, 0));
        write(w, true);
        List<Path> files = chunks(dir);
        long total = 0;
        for (Path f : files) {
            total += Files.size(f);
        }
        assertThat(w.chunksDeleted()).isPositive();
        assertThat(files.get(0).getFileName().toString()).isNotEqualTo("recording.msrec");
        assertThat(files.get(files.size() - 1)).isEqualTo(w.chunkFile());
        // within the bound plus the chunk being written (and one rotation period's overshoot of it)
        assertThat(total).isLessThanOrEqualTo(max + 2 * ChunkPolicy.MIN_CHUNK_BYTES);
        Recording rest = RecordingReader.readStrict(dir);
        assertThat(rest.metadata().get(ChunkPolicy.META_DELETED)).isNotNull();
    }

    @Test
    void aChunkCutMidWriteIsReadToItsLastCompleteBlockAndAnOldReaderRejectsAContinuedChunk(@TempDir Path dir)
            throws Exception {
        Path chunked = dir.resolve("recording.msrec");
        write(writer(chunked, ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE)), true);
        List<Path> files = chunks(dir);
        int before = RecordingReader.read(dir).eventCount();
        // killed while the chunk before the last was written: the last never began
        Files.delete(files.get(files.size() - 1));
        Path last = files.get(files.size() - 2);
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(f.length() / 2);  // killed half way through the chunk
        }
        Recording cut = RecordingReader.read(dir);
        assertThat(cut.damage()).isPresent();
        assertThat(cut.damage().get().file()).isEqualTo(last.toString());
        assertThat(cut.eventCount()).isLessThan(before).isGreaterThan(before - 3_000);
        assertThat(cut.totals()).isEmpty();

        // a 1.5 reader: the CONTINUED flag is a must-understand bit it does not know
        byte[] header = Files.readAllBytes(files.get(1));
        assertThat(header[12] & RecordingFormat.FLAG_CONTINUED).isEqualTo(1);
        assertThat(RecordingFormat.KNOWN_REQUIRED_FLAGS & 4).isZero();
        header[12] |= 4;   // a flag this reader does not know: rejected as a 1.5 reader rejects CONTINUED
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(header, 0, 48);
        java.nio.ByteBuffer.wrap(header).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(48, (int) crc.getValue());
        Path future = dir.resolve("future.msrec");
        Files.write(future, header);
        assertThatThrownBy(() -> RecordingReader.read(future)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("unknown required header flags 0x4");
    }

    /**
     * New code all the time (every stack has frames of its own, a few hundred new names per chunk): each chunk
     * defines the strings its own records use and no other, so its table does not grow with the run, the writer's
     * table is that of the chunk being written, and the chunks read as one give every frame.
     */
    @Test
    void eachChunkDefinesOnlyTheStringsItsRecordsUse(@TempDir Path dir) throws Exception {
        Path chunked = dir.resolve("recording.msrec");
        RecordingWriter w = writer(chunked, ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE));
        int main = w.strings().intern("main");
        int type = w.strings().intern("byte[]");
        w.metadata("mode", "sample");
        Producer p = new Producer() {
            @Override
            void stack(RecordingWriter writer, long id) {
                if (stacksWritten.add(id)) {
                    writer.stack(id, List.of("app.Gen" + id + ".make(Gen" + id + ".java:7)",
                            "app.Gen" + id + ".lambda$run$" + id + "(Gen" + id + ".java:9)", "app.Main.main(Main.java:1)"));
                }
            }
        };
        int highest = 0;
        long t = 1_000;
        for (int i = 0; i < 40_000; i++) {
            t += 100;
            long stack = 1 + i / 4;                  // a new stack (and three new names) every four events
            int site = 1 + (i / 4) % SITES;
            p.site(w, site);
            p.stack(w, stack);
            w.accept(t, MemoryEventType.ALLOCATE, i + 1, 64, 0, 1, main, 0, type, stack, site);
            w.accept(t + 1, MemoryEventType.DEALLOCATE, i + 1, 0, 0, 1, main, 0, 0, 0, 0);
            if (i % 500 == 499) {
                w.flush();
                w.rotateIfDue(p);
                highest = Math.max(highest, w.fileStrings());
            }
        }
        w.close();

        List<Path> files = chunks(dir);
        assertThat(files).as("many chunks").hasSizeGreaterThan(10);
        int total = 0;
        for (int c = 0; c < files.size(); c++) {
            Recording alone = RecordingReader.readStrict(files.get(c));
            Set<String> used = new HashSet<>();
            for (MemoryEvent e : alone.events()) {
                used.add(e.threadName());
                used.add(e.typeName());
                if (e.callStackHash() != 0) {
                    assertThat(alone.stacks()).as("chunk " + (c + 1) + " defines its stacks")
                            .containsKey(e.callStackHash());
                }
            }
            alone.stacks().values().forEach(used::addAll);
            alone.sites().values().forEach(s -> {
                used.add(s.className());
                used.add(s.methodName());
                used.add(s.fileName());
                used.add(s.typeName());
            });
            alone.metadata().forEach((k, v) -> {
                used.add(k);
                used.add(v);
            });
            List<String> defined = new ArrayList<>();
            for (int id = 1; id < alone.stringCount(); id++) {
                defined.add(alone.string(id));
            }
            assertThat(defined).as("chunk " + (c + 1) + ": its strings, each once, all used").doesNotHaveDuplicates()
                    .allMatch(used::contains);
            total += defined.size();
        }
        Recording set = RecordingReader.readStrict(dir);
        assertThat(set.stacks()).hasSize(10_000);
        assertThat(set.stacks().get(9_999L)).containsExactly("app.Gen9999.make(Gen9999.java:7)",
                "app.Gen9999.lambda$run$9999(Gen9999.java:9)", "app.Main.main(Main.java:1)");
        assertThat(set.events()).allMatch(e -> "main".equals(e.threadName()));
        // a chunk's table is about its share of the names, not the run's
        assertThat(highest).as("the writer's table: one chunk's strings").isLessThan(set.stringCount() / 5);
        assertThat(total).as("the strings of all chunks: each name about once").isLessThan(2 * set.stringCount());
    }

    /**
     * A chunk set of format 1.6, whose chunks each define the whole string table again (ids keep their meaning across
     * chunks, the table only grows): still read as one recording, every event with its names.
     */
    @Test
    void aChunkSetOfFormat16StillReads(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("recording.msrec");
        try (RecordingWriter w = writer(first, null)) {
            int main = w.strings().intern("main");
            int type = w.strings().intern("byte[]");
            w.metadata("mode", "sample");
            w.accept(2_000, MemoryEventType.ALLOCATE, 1, 64, 0, 1, main, 0, type, 0, 0);
        }
        asVersion16(first);
        Recording one = RecordingReader.readStrict(first);
        // chunk 2 as 1.6 wrote it: the table of chunk 1 again from id 1, then its new string
        FileStrings table = new FileStrings(new io.memscope.internal.store.StringTable());
        for (int id = 1; id < one.stringCount(); id++) {
            assertThat(table.intern(one.string(id))).isEqualTo(id);
        }
        int worker = table.intern("worker-2");
        Path second = dir.resolve("recording-000002.msrec");
        try (java.io.FileOutputStream out = new java.io.FileOutputStream(second.toFile())) {
            BlockOutput o = new BlockOutput(out, table, 4096);
            o.header(RecordingFormat.FLAG_CONTINUED, 5_000_000_000L + 2_000, 3_000, 7, 0);
            o.syncStrings();
            EventBlockCodec.Encoder e = new EventBlockCodec.Encoder(1024);
            e.add(3_000, MemoryEventType.ALLOCATE.code(), 2, 128, 0, 2, worker, 0, table.intern("byte[]"), 0, 0);
            ByteSink prefix = new ByteSink(32);
            e.writePrefix(prefix);
            o.block(BlockType.EVENTS, prefix, e.body);
            ByteSink end = new ByteSink(32);
            end.uleb(1);
            end.uleb(0);
            end.u8(RecordingFormat.END_CLEAN);
            end.zigzag(3_000);
            o.block(BlockType.END, null, end);
        }
        asVersion16(second);
        Recording set = RecordingReader.readStrict(dir);
        assertThat(set.events()).extracting(MemoryEvent::threadName).containsExactly("main", "worker-2");
        assertThat(set.events()).extracting(MemoryEvent::typeName).containsExactly("byte[]", "byte[]");
        assertThat(set.metadata()).containsEntry("mode", "sample");
        assertThat(set.totals().get().eventsWritten()).isEqualTo(2);
    }

    /** Rewrites a file's header as format 1.6 wrote it: minor version 6, CONTINUED without OWN_STRINGS. */
    private static void asVersion16(Path file) throws Exception {
        byte[] b = Files.readAllBytes(file);
        java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        h.putShort(10, (short) 6);
        h.putInt(12, h.getInt(12) & RecordingFormat.FLAG_CONTINUED);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, 0, 48);
        h.putInt(48, (int) crc.getValue());
        Files.write(file, b);
    }

    @Test
    void chunkSizeAndAgeFollowTheBounds() {
        ChunkPolicy size = ChunkPolicy.of(4L << 20, 0, 0, 0);
        assertThat(size.chunkBytes()).isEqualTo(512 * 1024);
        assertThat(size.chunkNanos()).isEqualTo(ChunkPolicy.DEFAULT_CHUNK_NANOS);
        ChunkPolicy age = ChunkPolicy.of(0, 3_000_000_000L, 0, 0);
        assertThat(age.chunkNanos()).isEqualTo(750_000_000L);
        assertThat(age.chunkBytes()).isEqualTo(ChunkPolicy.DEFAULT_CHUNK_BYTES);
        ChunkPolicy attach = ChunkPolicy.of(1L << 30, 24 * 3_600_000_000_000L, 0, 0);
        assertThat(attach.chunkBytes()).isEqualTo(16L << 20);
        assertThat(attach.chunkNanos()).isEqualTo(600_000_000_000L);
        assertThat(ChunkPolicy.of(1L << 20, 0, 0, 0).chunkBytes()).isEqualTo(ChunkPolicy.MIN_CHUNK_BYTES * 2);
        assertThat(ChunkPolicy.chunkIndex("recording.msrec", "recording")).isEqualTo(1);
        assertThat(ChunkPolicy.chunkIndex("recording-000042.msrec", "recording")).isEqualTo(42);
        assertThat(ChunkPolicy.chunkIndex("recording-000001.msrec", "recording")).isZero();
        assertThat(ChunkPolicy.chunkIndex("other-000002.msrec", "recording")).isZero();
        assertThat(ChunkPolicy.chunkFile(Path.of("d/recording.msrec"), 7)).isEqualTo(Path.of("d/recording-000007.msrec"));
    }

    @Test
    void withItsDefinitionsTheWriterEndsAChunkWithinOneBlockOfItsSize(@TempDir Path dir) throws Exception {
        Path chunked = dir.resolve("recording.msrec");
        write(writer(chunked, ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE)), false, true);
        List<Path> files = chunks(dir);
        assertThat(files).hasSizeGreaterThan(3);
        for (Path f : files) {
            // the size, one EVENTS block (4 KiB here) past it, and the next chunk's END
            // (and its head: the string table and the carried state, which may exceed the size alone)
            assertThat(Files.size(f) - headBytes(f)).as(f.toString()).isLessThan(ChunkPolicy.MIN_CHUNK_BYTES + 8192);
            RecordingReader.readStrict(f);
        }
        Path single = dir.resolve("single/recording.msrec");
        Files.createDirectories(single.getParent());
        write(writer(single, null), false);
        assertThat(RecordingReader.readStrict(dir).events())
                .containsExactlyElementsOf(RecordingReader.readStrict(single).events());
    }

    /** @return the bytes of the blocks before the first EVENTS block: the chunk's head */
    private static long headBytes(Path f) throws Exception {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(f)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int off = RecordingFormat.HEADER_BYTES;
        while (off + RecordingFormat.BLOCK_HEADER_BYTES <= b.limit() && (b.get(off) & 0xFF) != BlockType.EVENTS.code) {
            off += RecordingFormat.BLOCK_HEADER_BYTES + b.getInt(off + 4);
        }
        return off;
    }
}
