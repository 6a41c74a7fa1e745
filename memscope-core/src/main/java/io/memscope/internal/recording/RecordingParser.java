package io.memscope.internal.recording;

import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.Totals;
import io.memscope.recording.Anomaly;
import io.memscope.recording.SiteCount;
import io.memscope.recording.ScopePath;
import io.memscope.recording.FunctionStats;
import io.memscope.recording.Damage;
import io.memscope.recording.GcRecord;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.Site;
import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Reads a recording block by block and hands each valid block to a {@link RecordingVisitor}. Every length is
 * checked against what remains in the block or the file before anything is allocated, every block's CRC is
 * checked before it is decoded, and a block is decoded completely before any of it is delivered. The first
 * problem ends the read and becomes a {@link Damage}; problems with the file header are thrown instead.
 */
public final class RecordingParser {
    private final Path path;
    private final String name;
    private final RecordingVisitor visitor;
    private final CRC32C crc = new CRC32C();
    /** Blocks whose CRC matched so far. */
    private long blocksRead;
    private final EventBlockCodec.Decoder decoder = new EventBlockCodec.Decoder();
    private final EventColumns blockEvents = new EventColumns(1024);
    private final io.memscope.recording.EventView apiView = new io.memscope.recording.EventView();
    private final EventBlockCodec.Decoder apiDecoder = new EventBlockCodec.Decoder();
    private final ScopeEdgeCodec.Decoder edgeDecoder = new ScopeEdgeCodec.Decoder();
    private String[] strings = new String[256];
    private int stringCount = 1;
    private long eventsRead;
    private int skippedBlocks;
    private byte[] payload = new byte[64 * 1024];
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

    public RecordingParser(Path path, RecordingVisitor visitor) {
        this.path = path;
        this.name = path.toString();
        this.visitor = visitor;
    }

    public int skippedBlocks() {
        return skippedBlocks;
    }

    /**
     * Whether CARRY blocks (a chunk's carried state, format 1.6) are delivered (the default: the chunk is read alone
     * or is the first of those read) or skipped (the chunk before it was read: its content was delivered already).
     */
    public RecordingParser deliverCarry(boolean deliver) {
        this.deliverCarry = deliver;
        return this;
    }

    private boolean deliverCarry = true;

    /**
     * Hands the events of EVENTS blocks to {@code folder} (its fold) instead of the visitor ({@link EventBlockFolder}),
     * if not null; every other callback is delivered as without it, and so is the damage.
     */
    public RecordingParser foldEvents(EventBlockFolder<?> folder) {
        this.folder = folder;
        return this;
    }

    /** Where the events go instead of the visitor; null: to the visitor. */
    private EventBlockFolder<?> folder;

    /**
     * @return the damage, if the file is truncated or corrupt after its header
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     * @throws MemscopeException    (SYSTEM) if the file cannot be read
     */
    public Optional<Damage> run() {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long fileSize = ch.size();
            readHeader(ch, fileSize);
            Optional<Damage> damage = readBlocks(ch, fileSize);
            Optional<Damage> malformed = settle(ch);
            if (malformed.isPresent()) {
                damage = malformed; // before whatever ended the read: the read ends at it
            }
            deliverPendingGc();
            return damage;
        } catch (NoSuchFileException e) {
            throw MemscopeException.system("no such file: " + name, e);
        } catch (IOException e) {
            throw MemscopeException.system("cannot read " + name + ": " + e, e);
        }
    }

    private void readHeader(FileChannel ch, long fileSize) throws IOException {
        int h = RecordingFormat.HEADER_BYTES;
        if (fileSize == 0) {
            throw new CorruptFileException(name, 0, "empty file, not a memscope recording");
        }
        byte[] header = new byte[h];
        int got = readAt(ch, 0, header, (int) Math.min(h, fileSize));
        for (int i = 0; i < RecordingFormat.MAGIC.length; i++) {
            if (i >= got || header[i] != RecordingFormat.MAGIC[i]) {
                if (i >= got) {
                    throw new CorruptFileException(name, got, "truncated file header: " + got + " of " + h
                            + " bytes");
                }
                throw new CorruptFileException(name, i, "not a memscope recording (bad magic)");
            }
        }
        if (got < h) {
            throw new CorruptFileException(name, got, "truncated file header: " + got + " of " + h + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(header).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int major = b.getShort(8) & 0xFFFF;
        int minor = b.getShort(10) & 0xFFFF;
        crc.reset();
        crc.update(header, 0, h - 4);
        long stored = b.getInt(h - 4) & 0xFFFF_FFFFL;
        if (major != RecordingFormat.VERSION_MAJOR) {
            throw new CorruptFileException(name, 8, "recording format version " + major + "." + minor
                    + " is not supported (this memscope reads " + RecordingFormat.VERSION_MAJOR + ".x)"
                    + (major > RecordingFormat.VERSION_MAJOR ? "; it was written by a newer memscope" : ""));
        }
        if (crc.getValue() != stored) {
            throw new CorruptFileException(name, h - 4, "file header CRC mismatch (stored 0x"
                    + Long.toHexString(stored) + ", computed 0x" + Long.toHexString(crc.getValue()) + ")");
        }
        int flags = b.getInt(12);
        int unknown = flags & RecordingFormat.REQUIRED_FLAGS_MASK & ~RecordingFormat.KNOWN_REQUIRED_FLAGS;
        if (unknown != 0) {
            throw new CorruptFileException(name, 12, "unknown required header flags 0x"
                    + Integer.toHexString(unknown));
        }
        visitor.header(new RecordingHeader(major, minor, flags, b.getLong(16), b.getLong(24), b.getLong(32),
                b.getLong(40)));
    }

    /**
     * Waits for the EVENTS blocks handed to the folder: @return the damage of the malformed one first in file order,
     * empty if none (or without a folder)
     */
    private Optional<Damage> settle(FileChannel ch) throws IOException {
        if (folder == null) {
            return Optional.empty();
        }
        EventBlockFolder.Failure f = folder.settle((at, dst, length) -> readAt(ch, at, dst, length));
        if (f == null) {
            return Optional.empty();
        }
        return damage(f.payloadOffset() + f.malformed().position, BlockType.EVENTS + " block at " + f.blockOffset()
                + ": " + f.malformed().getMessage());
    }

    private Optional<Damage> readBlocks(FileChannel ch, long fileSize) throws IOException {
        long offset = RecordingFormat.HEADER_BYTES;
        byte[] head = new byte[RecordingFormat.BLOCK_HEADER_BYTES];
        ByteBuffer hb = ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        while (true) {
            if (visitor.done()) {
                return Optional.empty();
            }
            long remaining = fileSize - offset;
            if (remaining == 0) {
                return damage(offset, "file ends without an END block (the writer did not close it: killed, "
                        + "crashed or still running); " + eventsRead + " events read");
            }
            if (remaining < RecordingFormat.BLOCK_HEADER_BYTES) {
                return damage(offset, "truncated block header: " + remaining + " of "
                        + RecordingFormat.BLOCK_HEADER_BYTES + " bytes");
            }
            if (readAt(ch, offset, head, head.length) < head.length) {
                return damage(offset, "file shrank while being read");
            }
            int typeCode = head[0] & 0xFF;
            int blockFlags = head[1] & 0xFF;
            long length = hb.getInt(4) & 0xFFFF_FFFFL;
            long storedCrc = hb.getInt(8) & 0xFFFF_FFFFL;
            if (length > RecordingFormat.MAX_BLOCK_PAYLOAD) {
                return damage(offset, "block length " + length + " exceeds the limit of "
                        + RecordingFormat.MAX_BLOCK_PAYLOAD + " bytes");
            }
            long payloadOffset = offset + RecordingFormat.BLOCK_HEADER_BYTES;
            if (length > fileSize - payloadOffset) {
                return damage(offset, "truncated block: payload of " + length + " bytes, only "
                        + (fileSize - payloadOffset) + " remain in the file");
            }
            int len = (int) length;
            if (payload.length < len) {
                payload = new byte[Math.max(len, payload.length * 2)];
            }
            if (readAt(ch, payloadOffset, payload, len) < len) {
                return damage(offset, "file shrank while being read");
            }
            crc.reset();
            crc.update(head, 0, 8);
            crc.update(payload, 0, len);
            if (crc.getValue() != storedCrc) {
                BlockType damaged = BlockType.ofCode(typeCode);
                return damage(offset, "block CRC mismatch in block " + (blocksRead + 1) + " ("
                        + (damaged != null ? damaged.name() : "type " + typeCode) + ", " + len + " bytes of payload): "
                        + "stored 0x" + Long.toHexString(storedCrc) + ", computed 0x" + Long.toHexString(crc.getValue())
                        + "; " + eventsRead + " events read before it");
            }
            blocksRead++;
            BlockType type = BlockType.ofCode(typeCode);
            if (folder != null) {
                if (type == BlockType.EVENTS) {
                    // decoded on the folder's threads; the count it declares is checked there (damage if wrong)
                    deliverPendingGc();
                    eventsRead += EventBlockFolder.declaredCount(payload, len);
                    payload = folder.submit(payload, len, stringCount, offset, payloadOffset);
                    offset = payloadOffset + len;
                    continue;
                }
                Optional<Damage> malformed = settle(ch); // nothing after a malformed EVENTS block is delivered
                if (malformed.isPresent()) {
                    return malformed;
                }
            }
            if (type != BlockType.GC_DETAILS && type != BlockType.GC_SCOPE) {
                deliverPendingGc();
            }
            if (type == null) {
                if ((blockFlags & RecordingFormat.BLOCK_FLAG_SKIPPABLE) != 0) {
                    skippedBlocks++;
                    visitor.skippedBlock(typeCode, offset);
                    offset = payloadOffset + len;
                    continue;
                }
                return damage(offset, "unknown block type " + typeCode + " that is not marked skippable "
                        + "(written by a newer memscope?)");
            }
            ByteSource in = new ByteSource(payload, 0, len);
            try {
                decode(type, in);
                if (in.hasRemaining()) {
                    throw new ByteSource.Malformed(in.position(), in.remaining() + " unused bytes at the end of the "
                            + type + " block");
                }
            } catch (ByteSource.Malformed m) {
                return damage(payloadOffset + m.position, type + " block at " + offset + ": " + m.getMessage());
            } catch (BlockError e) {
                return damage(offset, e.getMessage());
            }
            offset = payloadOffset + len;
            if (type == BlockType.END) {
                if (offset != fileSize) {
                    return damage(offset, (fileSize - offset) + " bytes after the END block");
                }
                return Optional.empty();
            }
        }
    }

    private Optional<Damage> damage(long offset, String what) {
        return Optional.of(new Damage(name, offset, what));
    }

    private void decode(BlockType type, ByteSource in) {
        switch (type) {
            case STRINGS: strings(in); break;
            case SITES: sites(in); break;
            case STACKS: stacks(in); break;
            case EVENTS: events(in); break;
            case GC: gc(in); break;
            case SITE_COUNTS: siteCounts(in); break;
            case METADATA: metadata(in); break;
            case ANOMALIES: anomalies(in); break;
            case GC_DETAILS: gcDetails(in); break;
            case GC_SCOPE: gcScope(in); break;
            case SCOPE_PATHS: scopePaths(in); break;
            case SCOPE_EDGES: edgeDecoder.decode(in, stringCount, visitor::scopeEdge); break;
            case API_EVENTS: apiEvents(in); break;
            case FUNCTIONS: functions(in); break;
            case ACCOUNTING: accounting(in); break;
            case RETENTION: retention(in); break;
            case PROCESS_MEMORY: visitor.processMemory(ProcessMemoryCodec.decode(in, this::nonNullString)); break;
            case CARRY: carry(in); break;
            case END: end(in); break;
            default: throw new IllegalStateException(type.toString());
        }
    }

    /** The types a CARRY block may hold. */
    private static final java.util.EnumSet<BlockType> CARRIED = java.util.EnumSet.of(BlockType.EVENTS,
            BlockType.SCOPE_EDGES, BlockType.GC, BlockType.GC_DETAILS, BlockType.GC_SCOPE);

    /** CARRY (1.6): uleb n, n complete inner blocks, each checked (CRC, type) and decoded as at top level. */
    private void carry(ByteSource in) {
        if (!deliverCarry) {
            in.reset(in.position() + in.remaining());
            return;
        }
        int n = count(in, RecordingFormat.BLOCK_HEADER_BYTES, "carried block");
        long readBefore = eventsRead;   // carried events are not the chunk's: END does not count them
        ByteBuffer b = ByteBuffer.wrap(payload).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            int at = in.position();
            if (in.remaining() < RecordingFormat.BLOCK_HEADER_BYTES) {
                throw new ByteSource.Malformed(at, "truncated carried block header");
            }
            BlockType type = BlockType.ofCode(payload[at] & 0xFF);
            long length = b.getInt(at + 4) & 0xFFFF_FFFFL;
            long stored = b.getInt(at + 8) & 0xFFFF_FFFFL;
            int start = at + RecordingFormat.BLOCK_HEADER_BYTES;
            if (length > in.remaining() - RecordingFormat.BLOCK_HEADER_BYTES) {
                throw new ByteSource.Malformed(at, "carried block of " + length + " bytes exceeds its CARRY block");
            }
            if (type == null || !CARRIED.contains(type)) {
                throw new ByteSource.Malformed(at, "block type " + (payload[at] & 0xFF) + " cannot be carried");
            }
            crc.reset();
            crc.update(payload, at, 8);
            crc.update(payload, start, (int) length);
            if (crc.getValue() != stored) {
                throw new ByteSource.Malformed(at, "carried block CRC mismatch");
            }
            if (type != BlockType.GC_DETAILS && type != BlockType.GC_SCOPE) {
                deliverPendingGc();
            }
            ByteSource inner = new ByteSource(payload, start, start + (int) length);
            decode(type, inner);
            if (inner.hasRemaining()) {
                throw new ByteSource.Malformed(inner.position(), "unused bytes at the end of a carried " + type
                        + " block");
            }
            in.reset(start + (int) length);
        }
        deliverPendingGc();
        eventsRead = readBefore;
    }

    /** Reads an entry count, checking it against the bytes left ({@code minBytes} per entry at least). */
    private static int count(ByteSource in, int minBytes, String what) {
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

    private String nonNullString(ByteSource in, String what) {
        int at = in.position();
        int id = stringId(in, what);
        if (id == 0) {
            throw new ByteSource.Malformed(at, what + " string id must not be 0");
        }
        return strings[id];
    }

    private void strings(ByteSource in) {
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

    private void sites(ByteSource in) {
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

    private void stacks(ByteSource in) {
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

    private void events(ByteSource in) {
        if (folder != null) { // a carried block (top-level ones go to the folder whole)
            in.reset(folder.carried(payload, in.position(), in.position() + in.remaining(), stringCount));
            return;
        }
        decoder.decode(in, stringCount, blockEvents);
        eventsRead += blockEvents.size;
        if (visitor instanceof ColumnSink) {
            ((ColumnSink) visitor).events(blockEvents);     // in-memory reads copy whole columns
        } else {
            blockEvents.forEach(visitor);
        }
    }

    /** API_EVENTS (1.2): memory events reported through the API, encoded as EVENTS; not counted in END. */
    private void apiEvents(ByteSource in) {
        apiDecoder.decode(in, stringCount, blockEvents);
        for (int i = 0; i < blockEvents.size; i++) {
            visitor.apiEvent(blockEvents.view(i, apiView));
        }
    }

    /** FUNCTIONS (1.2). */
    private void functions(ByteSource in) {
        List<FunctionStats> stats = entries(in, 9, "function", e -> new FunctionStats(
                nonNullString(e, "function name"), string(e, "function descriptor"), string(e, "call site"),
                e.uleb(), e.uleb(), e.uleb(), e.uleb(), e.uleb(), e.uleb()));
        for (FunctionStats f : stats) {
            visitor.functionStats(f);
        }
    }

    /** RETENTION (1.4): one walk of the heap from the GC roots. */
    private void retention(ByteSource in) {
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
    private void accounting(ByteSource in) {
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
    private void scopePaths(ByteSource in) {
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

    private void gc(ByteSource in) {
        pendingGc = entries(in, 7, "GC record", e -> new GcRecord(e.zigzag(), e.uleb(), string(e, "GC name"),
                string(e, "GC cause"), e.uleb(), e.uleb(), e.uleb())).toArray(new GcRecord[0]);
    }

    /** GC_DETAILS (1.1): the action of each record of the GC block just before. */
    private void gcDetails(ByteSource in) {
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
    private void gcScope(ByteSource in) {
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

    private void deliverPendingGc() {
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

    private void siteCounts(ByteSource in) {
        List<SiteCount> counts = entries(in, 3, "site count",
                e -> new SiteCount((int) e.ulebAtMost(0xFFFF_FFFFL, "site id"), e.uleb(), e.uleb()));
        for (SiteCount c : counts) {
            visitor.siteCount(c);
        }
    }

    private void metadata(ByteSource in) {
        List<String[]> entries = entries(in, 2, "metadata entry",
                e -> new String[] {nonNullString(e, "metadata key"), string(e, "metadata value")});
        for (String[] kv : entries) {
            visitor.metadata(kv[0], kv[1]);
        }
    }

    private void anomalies(ByteSource in) {
        List<Anomaly> anomalies = entries(in, 7, "anomaly", e -> new Anomaly(nonNullString(e, "anomaly kind"),
                e.zigzag(), e.uleb(), e.uleb(), e.uleb(), e.uleb(), string(e, "anomaly detail")));
        for (Anomaly a : anomalies) {
            visitor.anomaly(a);
        }
    }

    private void end(ByteSource in) {
        long written = in.uleb();
        long dropped = in.uleb();
        int flagsAt = in.position();
        int flags = in.u8();
        if ((flags & ~RecordingFormat.END_CLEAN) != 0) {
            throw new ByteSource.Malformed(flagsAt, "unknown END flags 0x" + Integer.toHexString(flags));
        }
        long endNanos = in.zigzag();
        if (written != eventsRead) {
            throw new BlockError("END block says " + Long.toUnsignedString(written) + " events were written, the "
                    + "file holds " + eventsRead);
        }
        visitor.end(new Totals(written, dropped, (flags & RecordingFormat.END_CLEAN) != 0, endNanos));
    }

    private static int readAt(FileChannel ch, long position, byte[] dst, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(dst, 0, length);
        while (buf.hasRemaining()) {
            int n = ch.read(buf, position + buf.position());
            if (n < 0) {
                break;
            }
        }
        return buf.position();
    }

    /** A visitor that takes a whole decoded EVENTS block at once (must copy it: the columns are reused). */
    public interface ColumnSink {
        void events(EventColumns block);
    }

    /** A block-level inconsistency reported at the block's offset. */
    private static final class BlockError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BlockError(String what) {
            super(what, null, false, false);
        }
    }
}
