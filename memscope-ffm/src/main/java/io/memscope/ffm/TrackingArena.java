package io.memscope.ffm;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import io.memscope.error.MemscopeException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * An {@link Arena} (and so a {@link java.lang.foreign.SegmentAllocator}) that accounts for the native memory it
 * hands out, and makes it visible to the memscope agent with the site and stack of the code that asked for it.
 *
 * <pre>{@code
 * try (Arena arena = TrackingArena.ofConfined()) {           // instead of Arena.ofConfined()
 *     MemorySegment s = arena.allocate(JAVA_LONG, 1024);
 *     ...
 * }                                                            // closing frees it, in the accounting too
 * }</pre>
 *
 * <h2>Accounting, always</h2>
 * Every segment is an {@link MemoryAccounting#alloc alloc} of its {@link MemorySegment#byteSize() byte size} under
 * an instrument ({@value #DEFAULT_INSTRUMENT} of {@link MemoryAccounting#global()} unless given), charged to the
 * allocating thread and its user@host; {@link #close()} frees each segment, charged back to the same owner. So the
 * accounting tables (JMX, {@code memscope accounting <pid>}) show per thread, user and host how many segments and
 * bytes tracking arenas hold now (CURRENT), held at most (HIGH), allocated and freed in all. Budgets on the
 * instrument apply ({@code alloc} always charges; the arena never refuses memory the JDK gave it).
 *
 * <h2>The capture, when the memscope agent runs</h2>
 * The agent already sees every block a JDK arena allocates (its {@code Unsafe.allocateMemory} hook) with its real
 * address and size, and its free when the arena closes. Around each allocation this arena tells the agent that the
 * block is an arena segment made for its caller ({@link AgentBridge}): the block is then recorded once, typed
 * {@code native:arena}, with the caller's line as its site and a stack that starts at the caller (no JDK arena or
 * memscope frames). An arena never closed is therefore a native leak in the report, per call site, with its stack.
 * The agent is looked up when the arena is made: the segments of an arena made before {@code memscope attach} are
 * still recorded (the agent sees every block), typed by their stack, which then starts in the JDK's arena code.
 * The recorded size is what the JDK allocated for the segment: its byte size rounded up to a multiple of 8
 * (JDK 22 to 25), plus {@code alignment - 16} bytes for alignments above 16; the accounting counts the byte size
 * itself. Memory the wrapped arena hands out without allocating (an arena slicing memory it already holds) is not
 * new native memory: the capture recorded it when that memory was allocated, and only the accounting counts the
 * slices. Without the agent, only the accounting runs.
 *
 * <h2>Errors</h2>
 * Whatever the wrapped arena throws ({@code IllegalArgumentException} for a bad size, {@code IllegalStateException}
 * once closed, {@code WrongThreadException} for a confined arena used from another thread,
 * {@code UnsupportedOperationException} when closing an arena that cannot be closed) is thrown as it would be
 * without tracking, and then nothing is charged or freed. memscope's own failures (accounting, the agent bridge)
 * are counted in {@link MemscopeException#report}, never thrown into the application (except in strict mode, for tests).
 *
 * <p>Thread-safety is the wrapped arena's: confined arenas allocate and close on their owner thread, shared ones
 * from any thread.
 */
public final class TrackingArena implements Arena {
    /** The instrument tracking arenas account to unless told otherwise. */
    public static final String DEFAULT_INSTRUMENT = "memory/ffm/arena";

    private final Arena arena;
    private final Instrument instrument;
    private final MemoryAccounting accounting;
    private final SegmentLedger ledger = new SegmentLedger();
    /** The agent, when one runs (looked up when the arena is made, at most once a second while absent), or null. */
    private final AgentBridge bridge;

    private TrackingArena(Arena arena, Instrument instrument) {
        this.arena = Objects.requireNonNull(arena, "arena");
        this.instrument = Objects.requireNonNull(instrument, "instrument");
        this.accounting = instrument.accounting();
        this.bridge = AgentBridge.current();
    }

    /** @return a tracking {@link Arena#ofConfined() confined arena}, accounted to {@value #DEFAULT_INSTRUMENT} */
    public static TrackingArena ofConfined() {
        return new TrackingArena(Arena.ofConfined(), defaultInstrument());
    }

    /** @return a tracking {@link Arena#ofConfined() confined arena}, accounted to {@code instrument} */
    public static TrackingArena ofConfined(Instrument instrument) {
        return new TrackingArena(Arena.ofConfined(), instrument);
    }

    /** @return a tracking {@link Arena#ofShared() shared arena}, accounted to {@value #DEFAULT_INSTRUMENT} */
    public static TrackingArena ofShared() {
        return new TrackingArena(Arena.ofShared(), defaultInstrument());
    }

    /** @return a tracking {@link Arena#ofShared() shared arena}, accounted to {@code instrument} */
    public static TrackingArena ofShared(Instrument instrument) {
        return new TrackingArena(Arena.ofShared(), instrument);
    }

    /**
     * Tracks the segments of an existing arena (or any arena implementation, such as a pool): allocations go
     * through it, {@link #close()} closes it. Memory it releases by other means (an {@link Arena#ofAuto()
     * automatic arena} freed by the GC, a pool's own release) is not seen by the accounting; close it through
     * this wrapper.
     *
     * @return a tracking wrapper of {@code arena}, accounted to {@value #DEFAULT_INSTRUMENT}
     */
    public static TrackingArena wrap(Arena arena) {
        return new TrackingArena(arena, defaultInstrument());
    }

    /** @return a tracking wrapper of {@code arena}, accounted to {@code instrument} (see {@link #wrap(Arena)}) */
    public static TrackingArena wrap(Arena arena, Instrument instrument) {
        return new TrackingArena(arena, instrument);
    }

    private static Instrument defaultInstrument() {
        return MemoryAccounting.global().instrument(DEFAULT_INSTRUMENT);
    }

    /**
     * Allocates through the wrapped arena, then charges the segment's byte size to the instrument.
     *
     * @throws IllegalArgumentException as the wrapped arena does
     * @throws IllegalStateException     as the wrapped arena does
     * @throws WrongThreadException      as the wrapped arena does
     */
    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        AgentBridge bridge = this.bridge;
        boolean marked = bridge != null && bridge.enter();
        MemorySegment segment;
        try {
            segment = arena.allocate(byteSize, byteAlignment);
        } finally {
            if (marked) {
                bridge.exit();
            }
        }
        charge(segment.byteSize());
        return segment;
    }

    private void charge(long size) {
        try {
            Owner owner = accounting.alloc(instrument, size);
            if (!ledger.add(size, owner)) {
                // closed by another thread meanwhile (shared arena): the JDK freed the segment with the rest
                accounting.free(instrument, size, owner);
            }
        } catch (Throwable t) {
            MemscopeException.report("ffm.accounting", t); // counted; thrown only in strict mode (tests)
        }
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    /**
     * Closes the wrapped arena (which frees its segments), then frees every segment in the accounting, each charged
     * to the owner that allocated it.
     *
     * @throws IllegalStateException         as the wrapped arena does (nothing is freed in the accounting then)
     * @throws UnsupportedOperationException as the wrapped arena does (nothing is freed in the accounting then)
     * @throws WrongThreadException          as the wrapped arena does (nothing is freed in the accounting then)
     */
    @Override
    public void close() {
        arena.close();
        try {
            ledger.close(accounting, instrument);
        } catch (Throwable t) {
            MemscopeException.report("ffm.accounting", t);
        }
    }

    /** @return the instrument this arena accounts to */
    public Instrument instrument() {
        return instrument;
    }

    /** @return segments this arena handed out and has not freed (0 once closed) */
    public int segmentCount() {
        return ledger.segments();
    }

    /** @return the byte sizes of the segments this arena handed out and has not freed, summed (0 once closed) */
    public long allocatedBytes() {
        return ledger.bytes();
    }

    @Override
    public String toString() {
        return "TrackingArena[" + arena + ", " + instrument.name() + ", " + segmentCount() + " segments, "
                + allocatedBytes() + " bytes]";
    }
}
