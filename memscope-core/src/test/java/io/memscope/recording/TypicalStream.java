package io.memscope.recording;

import io.memscope.internal.recording.RecordingWriter;
import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.internal.store.StringTable;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A typical allocation stream as the agent produces it, held in primitive columns so that benchmarks can feed
 * writers without generating it during the measurement (memscope-bench uses it through core's test jar) and tests
 * can write it ({@link #writeTo}): 200 sites with Zipf-like popularity, each with a fixed size, type and stack; 4 threads switching on
 * 5 % of events; timestamps increasing by 50 - 2050 ns; 75 % heap ALLOCATE with increasing sample ids, 18 % heap
 * DEALLOCATE of a recent sample id carrying the lifetime in {@code previousSize}, 7 % native ALLOCATE/DEALLOCATE
 * of 4 KiB at real-looking addresses.
 */
public final class TypicalStream {
    public static final int SITES = 200;
    private static final String[] TYPES = {"byte[]", "java.lang.String", "java.util.HashMap$Node", "int[]",
        "java.lang.Object[]", "com.example.Order", "java.util.ArrayList", "char[]"};

    public final int n;
    public final long[] timestamp;
    public final MemoryEventType[] type;
    public final long[] address;
    public final long[] size;
    public final long[] previousSize;
    public final long[] threadId;
    public final int[] threadName;
    public final int[] typeName;
    public final long[] stack;
    public final int[] site;
    /** The names the events' string ids refer to; copy it for each writer ({@link #strings()}). */
    private final String[] names;
    private final String[] siteType;
    private final long[] siteStack;

    public TypicalStream(int n, long seed) {
        this.n = n;
        timestamp = new long[n];
        type = new MemoryEventType[n];
        address = new long[n];
        size = new long[n];
        previousSize = new long[n];
        threadId = new long[n];
        threadName = new int[n];
        typeName = new int[n];
        stack = new long[n];
        site = new int[n];
        SplittableRandom r = new SplittableRandom(seed);
        StringTable t = new StringTable();
        long[] siteSize = new long[SITES + 1];
        int[] siteTypeId = new int[SITES + 1];
        siteType = new String[SITES + 1];
        siteStack = new long[SITES + 1];
        for (int s = 1; s <= SITES; s++) {
            siteType[s] = TYPES[r.nextInt(TYPES.length)];
            siteTypeId[s] = t.intern(siteType[s]);
            siteSize[s] = 16 + 8L * r.nextInt(64);
            siteStack[s] = r.nextLong();
        }
        int[] threadNames = new int[4];
        for (int i = 0; i < threadNames.length; i++) {
            threadNames[i] = t.intern("worker-" + i);
        }
        long ts = 1_000_000_000L;
        long sampleId = 1;
        long nativeBase = 0x7f3a_1000_0000L;
        int thread = 0;
        for (int i = 0; i < n; i++) {
            ts += 50 + r.nextInt(2000);
            if (r.nextInt(100) < 5) {
                thread = r.nextInt(threadNames.length);
            }
            int s = 1 + (int) (Math.pow(r.nextDouble(), 3) * SITES);
            int kind = r.nextInt(100);
            timestamp[i] = ts;
            threadId[i] = 100 + thread;
            threadName[i] = threadNames[thread];
            if (kind < 75) {
                set(i, MemoryEventType.ALLOCATE, sampleId++, siteSize[s], 0, siteTypeId[s], siteStack[s], s);
            } else if (kind < 93) {
                long victim = Math.max(1, sampleId - 1 - r.nextInt(2000));
                long lifetime = 1_000 + r.nextLong(50_000_000L);
                set(i, MemoryEventType.DEALLOCATE, victim, siteSize[s], lifetime, siteTypeId[s], siteStack[s], s);
            } else {
                long addr = nativeBase + 4096L * r.nextInt(4096);
                set(i, r.nextBoolean() ? MemoryEventType.ALLOCATE : MemoryEventType.DEALLOCATE, addr, 4096, 0, 0,
                        0, 0);
            }
        }
        names = new String[t.size()];
        for (int id = 1; id < names.length; id++) {
            names[id] = t.get(id);
        }
    }

    private void set(int i, MemoryEventType ty, long addr, long sz, long prev, int tn, long st, int si) {
        type[i] = ty;
        address[i] = addr;
        size[i] = sz;
        previousSize[i] = prev;
        typeName[i] = tn;
        stack[i] = st;
        site[i] = si;
    }

    /** @return a new string table with the stream's names at the ids its events carry */
    public StringTable strings() {
        StringTable t = new StringTable();
        for (int id = 1; id < names.length; id++) {
            t.intern(names[id]);
        }
        return t;
    }

    /** Defines the sites and stacks in {@code w}, as a capture would before or while writing events. */
    public void defineSites(RecordingWriter w) {
        for (int s = 1; s <= SITES; s++) {
            w.site(s, "com.example.pkg" + (s % 7) + ".Class" + (s % 23), "method" + (s % 11),
                    "Class" + (s % 23) + ".java", 10 + s, siteType[s]);
            w.stack(siteStack[s], List.of("com.example.pkg.Class" + (s % 23) + ".method" + (s % 11) + "(Class"
                    + (s % 23) + ".java:" + (10 + s) + ")", "com.example.Main.main(Main.java:5)"));
        }
    }

    /** Hands every event to {@code sink}; string ids are those of {@link #strings()}. */
    public void forEach(EventSink sink) {
        EventView view = new EventView();
        for (int i = 0; i < n; i++) {
            sink.accept(view.set(timestamp[i], type[i], address[i], size[i], previousSize[i], threadId[i],
                    threadName[i], 0, typeName[i], stack[i], site[i]));
        }
    }

    /**
     * Writes the sites, stacks and events to {@code w}, whose string table may already hold other strings: the
     * events' string ids are mapped to ids of {@code w.strings()}.
     */
    public void writeTo(RecordingWriter w) {
        defineSites(w);
        int[] id = new int[names.length];
        for (int i = 1; i < names.length; i++) {
            id[i] = w.strings().intern(names[i]);
        }
        for (int i = 0; i < n; i++) {
            w.accept(timestamp[i], type[i], address[i], size[i], previousSize[i], threadId[i], id[threadName[i]], 0,
                    id[typeName[i]], stack[i], site[i]);
        }
    }
}
