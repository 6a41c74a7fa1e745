package io.memscope.internal.recording;

/** The block types of a recording file, with their stable one-byte codes (see {@link RecordingFormat}). */
public enum BlockType {
    /** New string table entries: uleb firstId, uleb count, count x (uleb byteLength, UTF-8 bytes). */
    STRINGS(1),
    /** Allocation sites: uleb count, count x (uleb siteId, class, method, file ids, uleb line, type id). */
    SITES(2),
    /** Call stacks: uleb count, count x (uleb stackId, uleb frameCount, frameCount x uleb frame string id). */
    STACKS(3),
    /** Memory events, compressed; see {@link EventBlockCodec}. */
    EVENTS(4),
    /** GC records: uleb count, count x (zz start, uleb duration, name, cause, used before/after, committed). */
    GC(5),
    /** Cumulative per-site totals: uleb count, count x (uleb siteId, uleb allocations, uleb bytes). */
    SITE_COUNTS(6),
    /** Key/value pairs: uleb count, count x (uleb keyId, uleb valueId). */
    METADATA(7),
    /** Anomalies: uleb count, count x (kind id, zz timestamp, address, size, thread id, stack id, detail id). */
    ANOMALIES(8),
    /**
     * Since 1.1, written SKIPPABLE right after a GC block: uleb count (that block's record count), count x (uleb
     * action id), entry i extending record i of that block.
     */
    GC_DETAILS(9, true),
    /** Since 1.2, SKIPPABLE: scope paths: uleb count, count x (uleb pathId, uleb parentId, uleb name id). */
    SCOPE_PATHS(10, true),
    /** Since 1.2, SKIPPABLE: scope entries and exits per thread; see {@link ScopeEdgeCodec}. */
    SCOPE_EDGES(11, true),
    /**
     * Since 1.2, SKIPPABLE: memory events that application code reported through memscope's API (named objects,
     * pool borrows and returns, ownership moves), encoded exactly as EVENTS ({@link EventBlockCodec}).
     */
    API_EVENTS(12, true),
    /**
     * Since 1.2, SKIPPABLE: the function profile: uleb count, count x (function id, descriptor id, call site id,
     * uleb calls, recursive calls, total ns, max ns, allocated bytes, calls without allocation).
     */
    FUNCTIONS(13, true),
    /**
     * Since 1.3, SKIPPABLE: a snapshot of the application's accounting summary tables: zz timestamp, uleb count,
     * count x (u8 table, zz thread id, thread name id, user id, host id, instrument id, 11 x zz column values).
     */
    ACCOUNTING(14, true),
    /**
     * Since 1.4, SKIPPABLE, right after a GC block (and its GC_DETAILS block, when there is one): uleb count (that
     * GC block's record count), count x (u8 examined, uleb snapshot before start, uleb verdict after start), entry i
     * extending record i of that block.
     */
    GC_SCOPE(16, true),
    /**
     * Since 1.4, SKIPPABLE: one walk of the heap from the GC roots: zz timestamp, its figures, its forest of nodes
     * (parent, kind, class, label, index) and its samples (id, site, size, node); see
     * {@link io.memscope.recording.RetentionWalk}.
     */
    RETENTION(17, true),
    /**
     * Since 1.5, SKIPPABLE: samples of the process's memory: zz base timestamp, named parts, samples of one value per
     * part; see {@link ProcessMemoryCodec}. (Code 18 is reserved.)
     */
    PROCESS_MEMORY(19, true),
    /**
     * Since 1.6, in chunks after the first only (header flag CONTINUED): the state a reader needs to start at this
     * chunk (outstanding allocations, open scope entries, the collections since the last whole-heap one): uleb n, n
     * complete inner blocks (EVENTS, SCOPE_EDGES, GC, GC_DETAILS, GC_SCOPE); see {@link ChunkState}. A reader that
     * reads the chunk before it skips it (its content was delivered already).
     */
    CARRY(20),
    /** Totals, last block: uleb events, uleb dropped, u8 flags, zz end timestamp. */
    END(15);

    public final int code;
    /** Written with the SKIPPABLE flag: added by a minor version, so that older readers of the major skip it. */
    final boolean skippable;

    BlockType(int code) {
        this(code, false);
    }

    BlockType(int code, boolean skippable) {
        this.code = code;
        this.skippable = skippable;
    }

    private static final BlockType[] BY_CODE = new BlockType[256];

    static {
        for (BlockType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    /** @return the type with this code, or null if this reader does not know it */
    static BlockType ofCode(int code) {
        return BY_CODE[code & 0xFF];
    }
}
