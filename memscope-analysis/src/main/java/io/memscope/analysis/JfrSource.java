package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;
import io.memscope.launch.MetadataKeys;
import io.memscope.launch.SiteFrames;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.RetentionWalk;
import io.memscope.recording.Site;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording (the JDK's flight recorder, or async-profiler's JFR output) read as a run: the same records a
 * memscope recording gives the analysis, from {@link RecordingFile} streamed event by event (never the whole file in
 * memory; kept are the stacks, the sites, the collections, the process-memory samples and the held samples, which JFR
 * bounds: 256 old-object samples by default). Read twice like a memscope recording: {@link #read} learns the tables and
 * feeds the first read's {@link FirstReadStreams}; {@link #replay} streams the events again.
 *
 * <p>Mapping (docs/jfr.md):
 * <ul>
 * <li>{@code jdk.ObjectAllocationSample}: a heap allocation of {@code weight} bytes (JFR's throttled sampler: the bytes
 *     the thread allocated since its previous sample, attributed to the sampled allocation's stack);
 *     {@code jdk.ObjectAllocationInNewTLAB}: {@code tlabSize} bytes; {@code jdk.ObjectAllocationOutsideTLAB}:
 *     {@code allocationSize} bytes (async-profiler writes its {@code alloc} samples as these two, with the sample's
 *     weight in those fields). When a recording has both allocation samples and TLAB events, only the samples count.
 *     These objects are not followed ({@link ReportReplay#UNTRACKED}): never held, no lifetime.</li>
 * <li>{@code jdk.OldObjectSample} and async-profiler's {@code profiler.LiveObject}: an object alive when the recording
 *     stopped, allocated at its {@code allocationTime} and never freed, of its own size ({@code objectSize}, JDK 21 and
 *     later; older JDKs give none: an array's from its length, else 0 bytes).</li>
 * <li>{@code profiler.Malloc} / {@code profiler.Free}: native blocks of site type {@value #MALLOC}.</li>
 * <li>{@code jdk.GarbageCollection} with the {@code jdk.GCHeapSummary} before and after it (by {@code gcId}): a
 *     collection, whole-heap or young by its collector's name.</li>
 * <li>{@code jdk.ResidentSetSize}: process-memory samples (part {@code rss}); {@code jdk.NativeMemoryUsage} (with
 *     {@code -XX:NativeMemoryTracking}): NMT's committed bytes per category (parts {@code nmt.<type>.committed}).</li>
 * </ul>
 * Timestamps are nanoseconds since the epoch (the header's clock pair is 0, 0). A site is named by
 * {@link SiteFrames}' rule, as the agent names its own: the first frame outside library code, per object type.
 */
final class JfrSource {
    /** The site type of async-profiler's malloc samples. */
    static final String MALLOC = Site.NATIVE_PREFIX + "malloc";
    private static final byte[] MAGIC = {'F', 'L', 'R', 0};

    private final Path file;
    private final JfrStacks stacks = new JfrStacks();
    private final JfrRetention retention = new JfrRetention();
    private final Map<String, String> metadata = new LinkedHashMap<>();
    /** The records that are not events: collections, process memory, the JVM. */
    private final JfrRuntimeRecords runtime = new JfrRuntimeRecords(metadata);
    /** The allocation samples' weights, and the TLAB events' (which count when there are no samples). */
    private final Weights sampleWeights = new Weights();
    private final Weights tlabWeights = new Weights();
    private final List<Held> held = new ArrayList<>();
    private final EventView view = new EventView();
    private long allocationSamples;
    private long tlabEvents;
    private long oldObjects;
    private long oldObjectsSized;
    private long liveObjects;
    private long mallocs;
    /** async-profiler's {@code nativemem} interval from its settings (4.2 and later write it), -1 when not written. */
    private long nativememInterval = -1;
    /** The recorded mallocs' addresses not yet freed (first read): which frees find their malloc. */
    private final java.util.Set<Long> mallocAddresses = new java.util.HashSet<>();
    private long frees;
    private long freesWithoutMalloc;
    private boolean asyncProfiler;
    private RecordingHeader header;
    private List<GcRecord> gcRecords = List.of();
    private RecordedRun.Origin origin;

    /**
     * Metadata key: the allocation samples' size-biased mean weight {@code Σw²/Σw}, bytes. A site's allocated bytes
     * {@code B = Σ w} over its samples has variance about {@code Σ w²} over them (a sample lands on a site in
     * proportion to the site's share of the bytes, and brings its whole weight); with weights independent of the
     * site, that is this figure times {@code B}: the diff's noise band uses it where memscope's own samples use
     * their interval ({@link DiffBuilder#varianceFactor}).
     */
    static final String EFFECTIVE_WEIGHT_BYTES = "jfr.effectiveWeightBytes";

    /** Sums of weights and of their squares. */
    private static final class Weights {
        double sum;
        double squares;

        void add(long w) {
            if (w > 0) {
                sum += w;
                squares += (double) w * w;
            }
        }
    }

    private JfrSource(Path file) {
        this.file = file;
    }

    /** @return whether the file starts with JFR's magic {@code FLR\0} */
    static boolean isJfr(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        boolean magic;
        try (InputStream in = Files.newInputStream(file)) {
            magic = Arrays.equals(in.readNBytes(4), MAGIC);
        } catch (IOException e) {
            return false;
        }
        if (!magic && file.getFileName().toString().endsWith(".jfr")) {
            throw new CorruptFileException(file.toString(), 0, "not a JFR recording (it does not start with FLR\\0)"
                    + " nor a memscope recording");
        }
        return magic;
    }

    /**
     * Reads a JFR recording once: its tables, and its events into {@code first} (the first read's streams).
     *
     * @throws CorruptFileException if it is not a complete JFR recording (truncated, damaged)
     */
    static JfrSource read(Path file, RecordingVisitor first) {
        JfrSource s = new JfrSource(file);
        long[] span = s.checkChunks();
        s.metadata.put(MetadataKeys.START_NANOS, Long.toString(span[0]));
        s.metadata.put(MetadataKeys.END_NANOS, Long.toString(span[1]));
        s.metadata.put(MetadataKeys.MODE, "jfr");
        s.header = new RecordingHeader((int) span[2], (int) span[3], 0, 0, 0, 0, span[0] / 1_000_000);
        first.header(s.header);
        first.metadata(MetadataKeys.START_NANOS, Long.toString(span[0]));
        s.readAll(first);
        Weights w = s.allocationSamples > 0 ? s.sampleWeights : s.tlabWeights;
        if (w.sum > 0) {
            s.metadata.put(EFFECTIVE_WEIGHT_BYTES, Long.toString(Math.max(1, Math.round(w.squares / w.sum))));
        }
        if (s.mallocs > 0) {
            // async-profiler's nativemem: a byte counter, the call that takes it past the interval recorded; bare
            // nativemem (interval 0) records every call, and is what is assumed when the recording does not say
            s.metadata.put(MetadataKeys.MALLOC_SAMPLING, MallocSampling.COUNTER);
            s.metadata.put(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(Math.max(0, s.nativememInterval)));
        }
        s.mallocAddresses.clear();
        s.held.sort(Comparator.comparingLong(h -> h.allocatedNanos));
        for (Held h : s.held) {
            first.accept(h.view(s.view));
        }
        s.gcRecords = s.runtime.collections();
        s.origin = s.describe();
        return s;
    }

    /**
     * Walks the chunk headers: each chunk's size must fit the file.
     *
     * @return the first chunk's start, the last chunk's end (ns since the epoch), the format's major and minor
     */
    private long[] checkChunks() {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        int major = 0;
        int minor = 0;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long length = f.length();
            long at = 0;
            int n = 0;
            while (at < length) {
                if (length - at < 68) {
                    throw corrupt(at, "the file ends inside chunk " + (n + 1) + "'s header (" + (length - at)
                            + " bytes of 68): truncated");
                }
                f.seek(at);
                byte[] magic = new byte[4];
                f.readFully(magic);
                if (!Arrays.equals(magic, MAGIC)) {
                    throw corrupt(at, "chunk " + (n + 1) + " does not start with JFR's magic FLR\\0: damaged");
                }
                int ma = f.readUnsignedShort();
                int mi = f.readUnsignedShort();
                long size = f.readLong();
                f.readLong(); // constant pool offset
                f.readLong(); // metadata offset
                long startNanos = f.readLong();
                long durationNanos = f.readLong();
                if (size < 68 || size > length - at) {
                    throw corrupt(at, "chunk " + (n + 1) + " claims " + size + " bytes, the file has " + (length - at)
                            + " from it: truncated or still being written (a recording that was not dumped)");
                }
                if (n++ == 0) {
                    major = ma;
                    minor = mi;
                }
                start = Math.min(start, startNanos);
                end = Math.max(end, startNanos + durationNanos);
                at += size;
            }
            if (n == 0) {
                throw corrupt(0, "an empty file");
            }
        } catch (IOException e) {
            throw MemscopeException.system(file + ": cannot read: " + e.getMessage(), e);
        }
        return new long[] {start, end, major, minor};
    }

    private CorruptFileException corrupt(long offset, String what) {
        return new CorruptFileException(file.toString(), offset, "not a readable JFR recording: " + what);
    }

    private void readAll(RecordingVisitor first) {
        try (RecordingFile rf = new RecordingFile(file)) {
            for (EventType t : rf.readEventTypes()) {
                if (t.getName().startsWith("profiler.")) {
                    asyncProfiler = true;
                }
            }
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                if (map(e, true)) {
                    first.accept(view);
                } else {
                    runtime.accept(e);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw unreadable(e);
        }
    }

    private MemscopeException unreadable(Exception e) {
        if (e instanceof MemscopeException m) {
            return m;
        }
        return new CorruptFileException(file.toString(), -1, "not a readable JFR recording: "
                + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    /**
     * Streams the events again ({@link RecordedRun.Replay}): the file's allocation and native events, and the held
     * samples merged in at their allocation times.
     */
    long replay(long limit, EventSink sink, RecordingVisitor alongside, boolean timeOrdered) {
        HeldMerge merge = new HeldMerge(sink);
        TimeOrder order = timeOrdered ? new TimeOrder(merge) : null;
        EventSink into = order != null ? order : merge;
        try (RecordingFile rf = new RecordingFile(file)) {
            while (rf.hasMoreEvents()) {
                if (map(rf.readEvent(), false)) {
                    into.accept(view);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw unreadable(e);
        }
        if (order != null) {
            order.finish();
        }
        merge.finish();
        return order != null ? order.late() : 0;
    }

    /**
     * Puts an allocation or native event into {@link #view} (the first read also learns its stack and site, and keeps
     * held samples aside).
     *
     * @return false when the event is not one (a table's record, or not read)
     */
    private boolean map(RecordedEvent e, boolean first) {
        String type = e.getEventType().getName();
        switch (type) {
            case "jdk.ObjectAllocationSample": {
                if (first) {
                    allocationSamples++;
                    sampleWeights.add(e.getLong("weight"));
                }
                return heapEvent(e, e.getLong("weight"));
            }
            case "jdk.ObjectAllocationInNewTLAB":
            case "jdk.ObjectAllocationOutsideTLAB": {
                if (first) {
                    tlabEvents++;
                    tlabWeights.add(type.endsWith("InNewTLAB") ? e.getLong("tlabSize") : e.getLong("allocationSize"));
                } else if (allocationSamples > 0) {
                    return false; // the samples count: these would count the same bytes again
                }
                return heapEvent(e, type.endsWith("InNewTLAB") ? e.getLong("tlabSize") : e.getLong("allocationSize"));
            }
            case "jdk.OldObjectSample":
            case "profiler.LiveObject": {
                if (first) {
                    held(e, type.equals("profiler.LiveObject"));
                }
                return false;
            }
            case "jdk.ActiveSetting": {
                if (first && "nativemem".equals(e.getString("name"))) {
                    nativememInterval = parseSetting(e.getString("value"));
                }
                return false;
            }
            case "profiler.Malloc": {
                if (first) {
                    mallocs++;
                    mallocAddresses.add(e.getLong("address"));
                }
                long stack = stacks.stackId(e.getStackTrace());
                int site = stacks.siteId(e.getStackTrace(), MALLOC);
                view.set(nanos(e.getStartTime()), MemoryEventType.ALLOCATE, e.getLong("address"), e.getLong("size"),
                        0, threadId(e), 0, 0, 0, stack, site);
                return true;
            }
            case "profiler.Free": {
                if (first) {
                    frees++;
                    if (!mallocAddresses.remove(e.getLong("address"))) {
                        freesWithoutMalloc++;
                    }
                }
                view.set(nanos(e.getStartTime()), MemoryEventType.DEALLOCATE, e.getLong("address"), 0, 0,
                        threadId(e), 0, 0, 0, 0, JfrStacks.FREE_SITE);
                return true;
            }
            default:
                return false;
        }
    }

    private boolean heapEvent(RecordedEvent e, long bytes) {
        RecordedStackTrace st = e.getStackTrace();
        String typeName = JfrStacks.typeName(e.getClass("objectClass"));
        view.set(nanos(e.getStartTime()), MemoryEventType.ALLOCATE, ReportReplay.UNTRACKED, Math.max(0, bytes), 0,
                threadId(e), 0, 0, 0, stacks.stackId(st), stacks.siteId(st, typeName));
        return true;
    }

    /** A held sample: kept aside (JFR bounds them), replayed at its allocation time. */
    private void held(RecordedEvent e, boolean live) {
        RecordedStackTrace st = e.getStackTrace();
        RecordedClass type;
        long size;
        if (live) {
            liveObjects++;
            type = e.getClass("objectClass");
            size = e.getLong("allocationSize");
        } else {
            oldObjects++;
            RecordedObject object = e.getValue("object");
            type = object == null ? null : object.getValue("type");
            if (e.hasField("objectSize")) {
                oldObjectsSized++;
                size = e.getLong("objectSize");
            } else {
                size = arrayBytes(JfrStacks.typeName(type), e.getInt("arrayElements"));
            }
        }
        Instant at = e.getInstant("allocationTime");
        long t = at == null || at.equals(Instant.MIN) ? nanos(e.getStartTime()) : nanos(at);
        String typeName = JfrStacks.typeName(type);
        Held h = new Held(t, held.size() + 1L, Math.max(0, size), threadId(e), stacks.stackId(st),
                stacks.siteId(st, typeName));
        held.add(h);
        retention.add(h.sampleId, h.siteId, h.size, nanos(e.getStartTime()), live ? null : e.getValue("object"),
                live ? null : e.getValue("root"));
    }

    /**
     * An array's size from its length, where the JDK gives no object size: a 16-byte header and the elements
     * (references 4 bytes: compressed oops), rounded to 8 bytes; 0 for anything else (not known).
     */
    static long arrayBytes(String typeName, int elements) {
        if (typeName == null || !typeName.endsWith("[]") || elements < 0) {
            return 0;
        }
        String element = typeName.substring(0, typeName.length() - 2);
        int each = switch (element) {
            case "byte", "boolean" -> 1;
            case "short", "char" -> 2;
            case "int", "float" -> 4;
            case "long", "double" -> 8;
            default -> 4;
        };
        return (16 + (long) each * elements + 7) & ~7L;
    }

    private RecordedRun.Origin describe() {
        List<String> l = new ArrayList<>();
        String producer = asyncProfiler ? "async-profiler" : "JDK flight recorder" + (runtime.jvm() == null ? "" : ", " + runtime.jvm());
        long heap = allocationSamples > 0 ? allocationSamples : tlabEvents;
        if (heap == 0) {
            l.add("no allocation samples: record with jdk.ObjectAllocationSample (settings=profile or default) or "
                    + "async-profiler's alloc");
        } else {
            l.add(String.format(Locale.ROOT, "allocated bytes are JFR's weights, not memscope's Poisson estimates: each "
                    + "of the %d samples stands for the bytes its thread allocated since its previous one; object "
                    + "counts are sample counts", heap));
        }
        long heldSamples = oldObjects + liveObjects;
        if (heldSamples == 0) {
            l.add("nothing held: no old-object samples (enable jdk.OldObjectSample, or async-profiler's live)");
        } else {
            l.add("held bytes not estimated: " + heldSamples + " sampled objects alive at the recording's end (JFR "
                    + "keeps at most 256 by default), each counting its own size only");
            if (liveObjects > 0) {
                l.add("async-profiler's live objects were not collected by the end of profiling, which does not make "
                        + "them reachable: without a whole-heap collection after them they are unconfirmed, not held");
            }
            if (oldObjects > oldObjectsSized) {
                l.add("old-object samples carry no size on this JDK: arrays are sized from their length, other "
                        + "objects count 0 bytes");
            }
        }
        l.add("no lifetimes: JFR does not record when a sampled object is collected");
        if (oldObjects > 0 && retention.rooted() == 0) {
            l.add("no paths to GC roots: record with path-to-gc-roots=true");
        }
        if (mallocs > 0) {
            mallocLimitations(l);
        } else {
            l.add("no native memory: JFR records no malloc (async-profiler's nativemem does)" + (!runtime.hasNmt() ? ""
                    : "; NMT's committed bytes per category are in the process memory section"));
        }
        if (gcRecords.isEmpty()) {
            l.add("no collections: held samples are not confirmed by a whole-heap collection");
        }
        l.add("no scopes, named objects, pools or accounting (memscope's API)");
        return new RecordedRun.Origin("jfr", producer, l, true);
    }

    /** What the malloc figures are: exact, estimates at a known interval, or counted as exact on an assumption. */
    private void mallocLimitations(List<String> l) {
        if (nativememInterval > 1) {
            l.add(String.format(Locale.ROOT, "native figures are estimates: async-profiler recorded one malloc call "
                    + "per %d bytes malloc'd (nativemem=%d); a recorded block of s bytes stands for max(s, %d) bytes",
                    nativememInterval, nativememInterval, nativememInterval));
        } else if (nativememInterval < 0) {
            double unmatched = frees == 0 ? 0 : (double) freesWithoutMalloc / frees;
            l.add(String.format(Locale.ROOT, "native figures count each recorded malloc call once: async-profiler "
                    + "before 4.2 does not write its nativemem interval, and nativemem without one records every call"
                    + "%s", unmatched <= 0.5 ? "" : String.format(Locale.ROOT, "; but %.0f%% of the %d frees found no "
                    + "recorded malloc, as when an interval was set (nativemem=N records one call per N bytes): "
                    + "then the native figures are under-estimates", 100 * unmatched, frees)));
        }
    }

    /** @return a setting's integer value, -1 when it is not one */
    private static long parseSetting(String value) {
        try {
            return value == null ? -1 : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static long threadId(RecordedEvent e) {
        RecordedThread t = e.hasField("eventThread") ? e.getThread("eventThread") : null;
        return t == null ? 0 : t.getJavaThreadId();
    }

    static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    // ---------------------------------------------------------------------------------------------------- tables

    RecordedRun.Origin origin() {
        return origin;
    }

    RecordedRun.Tables tables() {
        List<RetentionWalk> walks = retention.walks();
        List<Recording.ProcessMemorySamples> memory = runtime.processMemory();
        return new JfrTables(header, metadata, stacks.sites, stacks.stacks, gcRecords, walks, memory);
    }

    /** A sampled object alive at the recording's end, allocated at {@code allocatedNanos}. */
    private record Held(long allocatedNanos, long sampleId, long size, long threadId, long stackId, int siteId) {
        EventView view(EventView v) {
            return v.set(allocatedNanos, MemoryEventType.ALLOCATE, sampleId, size, 0, threadId, 0, 0, 0, stackId,
                    siteId);
        }
    }

    /** Passes the events on, with the held samples (in allocation order) put before the first event after them. */
    private final class HeldMerge implements EventSink {
        private final EventSink out;
        private final EventView own = new EventView();
        private int next;

        HeldMerge(EventSink out) {
            this.out = out;
        }

        @Override
        public void accept(EventView e) {
            long t = e.timestampNanos();
            while (next < held.size() && held.get(next).allocatedNanos <= t) {
                out.accept(held.get(next++).view(own));
            }
            out.accept(e);
        }

        void finish() {
            while (next < held.size()) {
                out.accept(held.get(next++).view(own));
            }
        }
    }
}
