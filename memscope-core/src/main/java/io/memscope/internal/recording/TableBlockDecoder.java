package io.memscope.internal.recording;

import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.Anomaly;
import io.memscope.recording.FunctionStats;
import io.memscope.recording.GcRecord;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.ScopePath;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Decodes the payloads of a recording's table blocks (STRINGS, SITES, STACKS, GC with GC_DETAILS and GC_SCOPE,
 * SITE_COUNTS, METADATA, ANOMALIES, SCOPE_PATHS, FUNCTIONS, RETENTION, ACCOUNTING: {@code docs/formats/recording.md})
 * into {@link RecordingVisitor} calls, and holds the file's string table they and the events refer to. Each block
 * is decoded whole, every count checked against the bytes left, before any of it is delivered: a malformed block
 * throws {@link ByteSource.Malformed} and gives the visitor nothing of itself. The framing (header, block headers,
 * CRCs, damage) is {@link RecordingParser}'s.
 */
final class TableBlockDecoder {
    private final RecordingVisitor visitor;
    private String[] strings = new String[256];
    private int stringCount = 1;
    /**
     * The records of the last GC block, delivered when the next block is known: a GC_DETAILS block right after it
     * (format 1.1) and a GC_SCOPE block after that (format 1.4) complete them; anything else, the end or damage
     * delivers them as they are.
     */
    private GcRecord[] pendingGc;
    /** Whether {@link #pendingGc} was completed by a GC_DETAILS block, by a GC_SCOPE block. */
    private boolean detailed;
    private boolean scoped;
    /** Largest snapshot-before-start and verdict-after-start of a GC_SCOPE entry (about 146 years). */
    private static final long MAX_SCOPE_NANOS = 1L << 62;

    TableBlockDecoder(RecordingVisitor visitor) {
        this.visitor = visitor;
    }

    /** @return string ids defined so far (ids 0 .. this - 1 are valid) */
    int stringCount() {
        return stringCount;
    }

    /** Reads an entry count, checking it against the bytes left ({@code minBytes} per entry at least). */
    static int count(ByteSource in, int minBytes, String what) {
        int at = in.position();
        long n = in.uleb();
        if (n < 1 || n > in.remaining() / minBytes) {
            throw new ByteSource.Malformed(at, what + " count " + Long.toUnsignedString(n) + " impossible for "
                    + in.remaining() + " remaining bytes");
        }
        return (int) n;
    }

    /** One entry of a block, read and validated; a bad one throws {@link ByteSource.Malformed}. */
    @FunctionalInterface
    private interface EntryReader<T> {
        T read(ByteSource in);
    }

    /**
     * Reads a block's entries: their count (each takes at least {@code minBytes}), then every entry, before the
     * caller delivers any, so that a damaged block gives the visitor nothing of itself.
     */
    private static <T> List<T> entries(ByteSource in, int minBytes, String what, EntryReader<T> entry) {
        int n = count(in, minBytes, what);
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(entry.read(in));
        }
        return out;
    }

    private int stringId(ByteSource in, String what) {
        return EventBlockCodec.Decoder.stringId(in, stringCount, what);
    }

    private String string(ByteSource in, String what) {
        int id = stringId(in, what);
        return strings[id];
    }

    String nonNullString(ByteSource in, String what) {
        int at = in.position();
        int id = stringId(in, what);
        if (id == 0) {
            throw new ByteSource.Malformed(at, what + " string id must not be 0");
        }
        return strings[id];
    }

    void strings(ByteSource in) {
        int at = in.position();
        long first = in.uleb();
        if (first != stringCount) {
            throw new ByteSource.Malformed(at, "string ids not dense: block starts at id " + Long.toUnsignedString(first)
                    + ", expected " + stringCount);
        }
        int n = count(in, 1, "string");
        String[] added = new String[n];
        for (int i = 0; i < n; i++) {
            int len = in.intAtMost(RecordingFormat.MAX_STRING_BYTES, "string length");
            added[i] = in.utf8(len);
        }
        if (stringCount + (long) n > Integer.MAX_VALUE - 8) {
            throw new ByteSource.Malformed(at, "too many strings");
        }
        if (stringCount + n > strings.length) {
            strings = Arrays.copyOf(strings, Math.max(stringCount + n, strings.length * 2));
        }
        for (int i = 0; i < n; i++) {
            strings[stringCount] = added[i];
            visitor.string(stringCount, added[i]);
            stringCount++;
        }
    }

    void sites(ByteSource in) {
        for (Site s : entries(in, 6, "site", this::site)) {
            visitor.site(s);
        }
    }

    private Site site(ByteSource in) {
        int at = in.position();
        int id = (int) in.ulebAtMost(0xFFFF_FFFFL, "site id");
        if (id == 0) {
            throw new ByteSource.Malformed(at, "site id 0 is reserved");
        }
        String cls = string(in, "class name");
        String method = string(in, "method name");
        String file = string(in, "file name");
        int line = in.intAtMost(Integer.MAX_VALUE, "line");
        String typeName = string(in, "type name");
        return new Site(id, cls, method, file, line, typeName);
    }

    void stacks(ByteSource in) {
        for (Stack s : entries(in, 2, "stack", this::stack)) {
            visitor.stack(s.id(), s.frames());
        }
    }

    /** A STACKS entry. */
    private record Stack(long id, List<String> frames) {
    }

    private Stack stack(ByteSource in) {
        int at = in.position();
        long id = in.uleb();
        if (id == 0) {
            throw new ByteSource.Malformed(at, "stack id 0 is reserved");
        }
        int depth = in.intAtMost(RecordingFormat.MAX_FRAMES, "frame count");
        if (depth > in.remaining()) {
            throw new ByteSource.Malformed(at, "frame count " + depth + " exceeds the remaining bytes");
        }
        String[] f = new String[depth];
        for (int j = 0; j < depth; j++) {
            f[j] = nonNullString(in, "frame");
        }
        return new Stack(id, Collections.unmodifiableList(Arrays.asList(f)));
    }

    /** FUNCTIONS (1.2). */
    void functions(ByteSource in) {
        List<FunctionStats> stats = entries(in, 9, "function", e -> new FunctionStats(
                nonNullString(e, "function name"), string(e, "function descriptor"), string(e, "call site"),
                e.uleb(), e.uleb(), e.uleb(), e.uleb(), e.uleb(), e.uleb()));
        for (FunctionStats f : stats) {
            visitor.functionStats(f);
        }
    }

    /** RETENTION (1.4): one walk of the heap from the GC roots. */
    void retention(ByteSource in) {
        long timestamp = in.zigzag();
        long pause = in.uleb();
        long total = in.uleb();
        int outcomeAt = in.position();
        io.memscope.recording.RetentionWalk.Outcome outcome = io.memscope.recording.RetentionWalk.Outcome.ofCode(
                in.u8());
        if (outcome == null) {
            throw new ByteSource.Malformed(outcomeAt, "retention outcome unknown");
        }
        String trigger = string(in, "retention trigger");
        String detail = string(in, "retention detail");
        long visited = in.uleb();
        long references = in.uleb();
        long memory = in.uleb();
        int countAt = in.position();
        long n = in.uleb();
        if (n < 0 || n > in.remaining() / 5) {
            throw new ByteSource.Malformed(countAt, "retention node count " + Long.toUnsignedString(n)
                    + " exceeds what " + in.remaining() + " bytes can hold");
        }
        List<io.memscope.recording.RetentionWalk.Node> nodes = new ArrayList<>((int) n);
        for (int i = 0; i < n; i++) {
            int at = in.position();
            long parent = in.uleb() - 1;
            if (parent < -1 || parent >= i) {
                throw new ByteSource.Malformed(at, "retention node " + i + ": parent " + parent
                        + " does not come before it");
            }
            int kindAt = in.position();
            long kindWord = in.uleb();
            io.memscope.recording.RetentionWalk.Kind kind = kindWord > Integer.MAX_VALUE ? null
                    : io.memscope.recording.RetentionWalk.Kind.ofCode((int) (kindWord >>> 1));
            if (kind == null) {
                throw new ByteSource.Malformed(kindAt, "retention node " + i + ": reference kind "
                        + Long.toUnsignedString(kindWord >>> 1) + " unknown");
            }
            String className = nonNullString(in, "retention class name");
            String label = string(in, "retention label");
            long index = in.uleb();
            nodes.add(new io.memscope.recording.RetentionWalk.Node((int) parent, kind, (kindWord & 1) != 0, className,
                    label, index));
        }
        countAt = in.position();
        long m = in.uleb();
        if (m < 0 || m > in.remaining() / 4) {
            throw new ByteSource.Malformed(countAt, "retention sample count " + Long.toUnsignedString(m)
                    + " exceeds what " + in.remaining() + " bytes can hold");
        }
        List<io.memscope.recording.RetentionWalk.Sample> samples = new ArrayList<>((int) m);
        for (int i = 0; i < m; i++) {
            long id = in.uleb();
            int siteAt = in.position();
            long site = in.uleb();
            if (site > 0xFFFF_FFFFL || site < 0) {
                throw new ByteSource.Malformed(siteAt, "retention sample site id " + Long.toUnsignedString(site)
                        + " is not a u32");
            }
            long size = in.uleb();
            int nodeAt = in.position();
            long node = in.uleb() - 1;
            if (node < -1 || node >= n) {
                throw new ByteSource.Malformed(nodeAt, "retention sample " + Long.toUnsignedString(id) + ": node "
                        + node + " beyond the block's " + n);
            }
            samples.add(new io.memscope.recording.RetentionWalk.Sample(id, (int) site, size, (int) node));
        }
        visitor.retention(new io.memscope.recording.RetentionWalk(timestamp, pause, total, outcome, trigger, detail,
                visited, references, memory, nodes, samples));
    }

    /** ACCOUNTING (1.3): one snapshot of the accounting summary tables. */
    void accounting(ByteSource in) {
        long t = in.zigzag();
        int at = in.position();
        long n = in.uleb();
        io.memscope.accounting.Column[] columns = io.memscope.accounting.Column.values();
        io.memscope.accounting.SummaryTable[] tables = io.memscope.accounting.SummaryTable.values();
        if (n > in.remaining() / (6 + columns.length)) {
            throw new ByteSource.Malformed(at, "accounting row count " + Long.toUnsignedString(n)
                    + " impossible for " + in.remaining() + " remaining bytes");
        }
        java.util.List<io.memscope.accounting.SummaryRow> rows = new java.util.ArrayList<>((int) n);
        for (int i = 0; i < n; i++) {
            int tableAt = in.position();
            int table = in.u8();
            if (table >= tables.length) {
                throw new ByteSource.Malformed(tableAt, "accounting table " + table + " unknown");
            }
            long threadId = in.zigzag();
            String threadName = string(in, "accounting thread name");
            String user = string(in, "accounting user");
            String host = string(in, "accounting host");
            String instrument = nonNullString(in, "accounting instrument");
            long[] values = new long[columns.length];
            for (int c = 0; c < values.length; c++) {
                values[c] = in.zigzag();
            }
            rows.add(new io.memscope.accounting.SummaryRow(tables[table], threadId, threadName, user, host,
                    instrument, values));
        }
        visitor.accounting(new AccountingSnapshot(t, rows));
    }

    /** SCOPE_PATHS (1.2). */
    void scopePaths(ByteSource in) {
        List<ScopePath> paths = entries(in, 3, "scope path", e -> {
            int at = e.position();
            int id = (int) e.ulebAtMost(0xFFFF_FFFFL, "scope path id");
            if (id == 0) {
                throw new ByteSource.Malformed(at, "scope path id 0 is reserved");
            }
            int parent = (int) e.ulebAtMost(0xFFFF_FFFFL, "scope parent id");
            return new ScopePath(id, parent, nonNullString(e, "scope name"));
        });
        for (ScopePath p : paths) {
            visitor.scopePath(p);
        }
    }

    void gc(ByteSource in) {
        pendingGc = entries(in, 7, "GC record", e -> new GcRecord(e.zigzag(), e.uleb(), string(e, "GC name"),
                string(e, "GC cause"), e.uleb(), e.uleb(), e.uleb())).toArray(new GcRecord[0]);
    }

    /** GC_DETAILS (1.1): the action of each record of the GC block just before. */
    void gcDetails(ByteSource in) {
        int at = in.position();
        GcRecord[] records = pendingGc;
        if (records == null) {
            throw new ByteSource.Malformed(at, "GC_DETAILS block without a GC block right before it");
        }
        int n = count(in, 1, "GC detail");
        if (n != records.length) {
            throw new ByteSource.Malformed(at, "GC_DETAILS has " + n + " entries, the GC block before it "
                    + records.length + " records");
        }
        if (detailed) {
            throw new ByteSource.Malformed(at, "a second GC_DETAILS block for the same GC block");
        }
        if (scoped) {
            throw new ByteSource.Malformed(at, "GC_DETAILS block after the GC_SCOPE block of its GC block");
        }
        GcRecord[] completed = new GcRecord[n];
        for (int i = 0; i < n; i++) {
            completed[i] = records[i].withAction(string(in, "GC action"));
        }
        pendingGc = completed;
        detailed = true;
    }

    /**
     * GC_SCOPE (1.4): what each record of the GC block before it (after its GC_DETAILS block, if any) examined: u8
     * examined, uleb snapshot before start, uleb verdict after start.
     */
    void gcScope(ByteSource in) {
        int at = in.position();
        GcRecord[] records = pendingGc;
        if (records == null) {
            throw new ByteSource.Malformed(at, "GC_SCOPE block without a GC block right before it");
        }
        if (scoped) {
            throw new ByteSource.Malformed(at, "a second GC_SCOPE block for the same GC block");
        }
        int n = count(in, 3, "GC scope");
        if (n != records.length) {
            throw new ByteSource.Malformed(at, "GC_SCOPE has " + n + " entries, the GC block before it "
                    + records.length + " records");
        }
        GcRecord[] completed = new GcRecord[n];
        for (int i = 0; i < n; i++) {
            GcRecord r = records[i];
            int codeAt = in.position();
            GcRecord.Examined examined = GcRecord.Examined.ofCode(in.u8());
            if (examined == null) {
                throw new ByteSource.Malformed(codeAt, "unknown GC scope code");
            }
            long before = in.uleb();
            long after = in.uleb();
            if (before < 0 || before > MAX_SCOPE_NANOS || after < 0 || after > MAX_SCOPE_NANOS
                    || before != 0 && examined != GcRecord.Examined.WHOLE_HEAP) {
                throw new ByteSource.Malformed(codeAt, "GC scope times impossible for its record");
            }
            completed[i] = r.withExamined(examined, r.startNanos() - before, r.startNanos() + after);
        }
        pendingGc = completed;
        scoped = true;
    }

    void deliverPendingGc() {
        GcRecord[] records = pendingGc;
        pendingGc = null;
        detailed = false;
        scoped = false;
        if (records != null) {
            for (GcRecord r : records) {
                visitor.gc(r);
            }
        }
    }

    void siteCounts(ByteSource in) {
        List<SiteCount> counts = entries(in, 3, "site count",
                e -> new SiteCount((int) e.ulebAtMost(0xFFFF_FFFFL, "site id"), e.uleb(), e.uleb()));
        for (SiteCount c : counts) {
            visitor.siteCount(c);
        }
    }

    void metadata(ByteSource in) {
        List<String[]> entries = entries(in, 2, "metadata entry",
                e -> new String[] {nonNullString(e, "metadata key"), string(e, "metadata value")});
        for (String[] kv : entries) {
            visitor.metadata(kv[0], kv[1]);
        }
    }

    void anomalies(ByteSource in) {
        List<Anomaly> anomalies = entries(in, 7, "anomaly", e -> new Anomaly(nonNullString(e, "anomaly kind"),
                e.zigzag(), e.uleb(), e.uleb(), e.uleb(), e.uleb(), string(e, "anomaly detail")));
        for (Anomaly a : anomalies) {
            visitor.anomaly(a);
        }
    }
}
