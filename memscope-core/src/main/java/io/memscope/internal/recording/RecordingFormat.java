package io.memscope.internal.recording;

/**
 * The layout of a memscope recording file (version 1.6): constants and limits shared by {@link RecordingWriter}
 * and {@link RecordingReader}. The full specification, for readers in other languages, is
 * {@code docs/formats/recording.md}; this javadoc is its summary.
 *
 * <p>All fixed-width integers are little-endian. A file is a 52-byte header followed by self-delimiting blocks:
 *
 * <pre>
 *  file header (52 bytes)
 *  offset  size  field
 *  +------+----+---------------------------------------------------------------------------+
 *  |    0 |  8 | magic 4D 53 52 45 43 0D 0A 1A ("MSREC\r\n\x1a")                          |
 *  |    8 |  2 | major version u16 (1): a reader rejects a major version it does not know  |
 *  |   10 |  2 | minor version u16 (2): newer minors only add skippable block types       |
 *  |   12 |  4 | flags u32: bits 0-15 must-understand (bit 0 CONTINUED), 16-31 informational|
 *  |   16 |  8 | clock pair: wall-clock time, ns since 1970-01-01T00:00Z (i64)             |
 *  |   24 |  8 | clock pair: System.nanoTime() at the same instant, ns (i64)               |
 *  |   32 |  8 | pid of the recorded process (i64, 0 = unknown)                            |
 *  |   40 |  8 | start time of the recorded process, ms since the epoch (i64, 0 = unknown) |
 *  |   48 |  4 | CRC32C of bytes 0..47 (u32)                                               |
 *  +------+----+---------------------------------------------------------------------------+
 *
 *  block (12-byte header + payload)
 *  +------+----+---------------------------------------------------------------------------+
 *  |    0 |  1 | block type u8 (see {@link BlockType})                                     |
 *  |    1 |  1 | block flags u8: bit 0 SKIPPABLE (an unknown type with it is skipped)      |
 *  |    2 |  2 | reserved u16, written 0, ignored by readers                               |
 *  |    4 |  4 | payload length N u32, at most {@link #MAX_BLOCK_PAYLOAD}                 |
 *  |    8 |  4 | CRC32C of block bytes 0..7 followed by the N payload bytes (u32)          |
 *  |   12 |  N | payload: varints, see below                                               |
 *  +------+----+---------------------------------------------------------------------------+
 * </pre>
 *
 * <p>Inside payloads, integers are unsigned LEB128 varints ("uleb": 7 bits per byte, low group first, high bit
 * = more bytes follow, at most 10 bytes) or zig-zag varints ("zz": {@code (v << 1) ^ (v >> 63)} then uleb).
 * Strings are referred to by id into the file's string table (id 0 = none); ids are defined by STRINGS blocks
 * densely and in order, and every id a block uses must have been defined by an earlier block.
 *
 * <p>The last block of a complete file is END. A file without END was not closed (the writer was killed): a
 * reader returns every complete block and reports the damage at the offset where the file stops making sense.
 */
public final class RecordingFormat {
    /** The 8 magic bytes at offset 0: {@code "MSREC\r\n\u001a"} (the line ending catches text-mode mangling). */
    public static final byte[] MAGIC = {0x4D, 0x53, 0x52, 0x45, 0x43, 0x0D, 0x0A, 0x1A};
    /** Major version written by this code; readers reject other majors. */
    public static final int VERSION_MAJOR = 1;
    /** Minor version written by this code; readers accept any minor of their major. */
    public static final int VERSION_MINOR = 7;
    /** Length of the file header in bytes, CRC included. */
    public static final int HEADER_BYTES = 52;
    /** Length of a block header in bytes. */
    public static final int BLOCK_HEADER_BYTES = 12;
    /** Largest payload a block may have, in bytes (16 MiB). Larger lengths are damage. */
    public static final int MAX_BLOCK_PAYLOAD = 16 << 20;
    /** Largest UTF-8 encoding of one string, in bytes (1 MiB); writers truncate longer strings. */
    public static final int MAX_STRING_BYTES = 1 << 20;
    /** Most frames in one stack; writers keep the innermost {@value} frames of deeper stacks. */
    public static final int MAX_FRAMES = 4096;
    /** Most events in one EVENTS block. */
    public static final int MAX_EVENTS_PER_BLOCK = 1 << 20;
    /** Header flag bits a reader must understand; an unknown one set in this mask is rejected. */
    static final int REQUIRED_FLAGS_MASK = 0xFFFF;
    /**
     * Header flag (1.6, must-understand): this file is a chunk after the first of a chunked recording; it begins with
     * CARRY blocks. Readers before 1.6 reject it (an unknown must-understand flag).
     */
    public static final int FLAG_CONTINUED = 1;
    /**
     * Header flag (1.7, must-understand): this file's string ids are its own, not those of the chunks before it (a
     * chunk defines only the strings its records use). Written with {@link #FLAG_CONTINUED}; readers before 1.7,
     * which took a chunk's ids for the recording's, reject it.
     */
    public static final int FLAG_OWN_STRINGS = 2;
    /** The must-understand header flags this reader knows. */
    static final int KNOWN_REQUIRED_FLAGS = FLAG_CONTINUED | FLAG_OWN_STRINGS;
    /** Block flag: a reader that does not know this block's type skips it instead of stopping. */
    public static final int BLOCK_FLAG_SKIPPABLE = 1;

    // EVENTS: bits of the per-event tag varint.
    static final int TAG_TYPE_MASK = 0x7;
    static final int TAG_THREAD = 1 << 3;
    static final int TAG_SIZE = 1 << 4;
    static final int TAG_TYPE_NAME = 1 << 5;
    static final int TAG_STACK = 1 << 6;
    static final int TAG_PREVIOUS_SIZE = 1 << 7;
    static final int TAG_VARIABLE = 1 << 8;
    static final int TAG_ALL = (1 << 9) - 1;

    /** END flags: bit 0 = the writer was closed normally (not after an I/O failure or from an emergency hook). */
    static final int END_CLEAN = 1;

    private RecordingFormat() {
    }
}
