package io.memscope.internal.recording;

import io.memscope.recording.Totals;
import io.memscope.recording.Damage;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
    private long eventsRead;
    private int skippedBlocks;
    private byte[] payload = new byte[64 * 1024];
    /** The table blocks' payloads and the string table. */
    private final TableBlockDecoder tables;

    public RecordingParser(Path path, RecordingVisitor visitor) {
        this.path = path;
        this.name = path.toString();
        this.visitor = visitor;
        this.tables = new TableBlockDecoder(visitor);
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
            tables.deliverPendingGc();
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
                    tables.deliverPendingGc();
                    eventsRead += EventBlockFolder.declaredCount(payload, len);
                    payload = folder.submit(payload, len, tables.stringCount(), offset, payloadOffset);
                    offset = payloadOffset + len;
                    continue;
                }
                Optional<Damage> malformed = settle(ch); // nothing after a malformed EVENTS block is delivered
                if (malformed.isPresent()) {
                    return malformed;
                }
            }
            if (type != BlockType.GC_DETAILS && type != BlockType.GC_SCOPE) {
                tables.deliverPendingGc();
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
            case STRINGS: tables.strings(in); break;
            case SITES: tables.sites(in); break;
            case STACKS: tables.stacks(in); break;
            case EVENTS: events(in); break;
            case GC: tables.gc(in); break;
            case SITE_COUNTS: tables.siteCounts(in); break;
            case METADATA: tables.metadata(in); break;
            case ANOMALIES: tables.anomalies(in); break;
            case GC_DETAILS: tables.gcDetails(in); break;
            case GC_SCOPE: tables.gcScope(in); break;
            case SCOPE_PATHS: tables.scopePaths(in); break;
            case SCOPE_EDGES: edgeDecoder.decode(in, tables.stringCount(), visitor::scopeEdge); break;
            case API_EVENTS: apiEvents(in); break;
            case FUNCTIONS: tables.functions(in); break;
            case ACCOUNTING: tables.accounting(in); break;
            case RETENTION: tables.retention(in); break;
            case PROCESS_MEMORY: visitor.processMemory(ProcessMemoryCodec.decode(in, tables::nonNullString)); break;
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
        int n = TableBlockDecoder.count(in, RecordingFormat.BLOCK_HEADER_BYTES, "carried block");
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
                tables.deliverPendingGc();
            }
            ByteSource inner = new ByteSource(payload, start, start + (int) length);
            decode(type, inner);
            if (inner.hasRemaining()) {
                throw new ByteSource.Malformed(inner.position(), "unused bytes at the end of a carried " + type
                        + " block");
            }
            in.reset(start + (int) length);
        }
        tables.deliverPendingGc();
        eventsRead = readBefore;
    }













    private void events(ByteSource in) {
        if (folder != null) { // a carried block (top-level ones go to the folder whole)
            in.reset(folder.carried(payload, in.position(), in.position() + in.remaining(), tables.stringCount()));
            return;
        }
        decoder.decode(in, tables.stringCount(), blockEvents);
        eventsRead += blockEvents.size;
        if (visitor instanceof ColumnSink) {
            ((ColumnSink) visitor).events(blockEvents);     // in-memory reads copy whole columns
        } else {
            blockEvents.forEach(visitor);
        }
    }

    /** API_EVENTS (1.2): memory events reported through the API, encoded as EVENTS; not counted in END. */
    private void apiEvents(ByteSource in) {
        apiDecoder.decode(in, tables.stringCount(), blockEvents);
        for (int i = 0; i < blockEvents.size; i++) {
            visitor.apiEvent(blockEvents.view(i, apiView));
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
