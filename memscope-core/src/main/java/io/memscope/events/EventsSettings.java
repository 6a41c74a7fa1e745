package io.memscope.events;

import io.memscope.error.MemscopeException;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

/**
 * Where and how big the ring file is. {@link #fromEnvironment()} reads:
 * <ul>
 *   <li>{@code MEMSCOPE_EVENTS_DIR}: directory of {@code <pid>.events}; default {@code <java.io.tmpdir>/memscope-<user>}
 *       (created with mode 0700)</li>
 *   <li>{@code MEMSCOPE_EVENTS_RING_SIZE}: bytes per thread ring, a power of two from 4096 to 2^30 (default 256 KiB)</li>
 *   <li>{@code MEMSCOPE_EVENTS_SLOTS}: number of thread rings (default 64)</li>
 *   <li>{@code MEMSCOPE_EVENTS_PRESERVE=1}: keep the file at normal exit</li>
 *   <li>{@code MEMSCOPE_EVENTS_GRACE_MS}: how long a dead thread's ring stays readable before another thread may
 *       reuse it (default 2000 ms)</li>
 * </ul>
 * Immutable; the {@code with...} methods return a copy.
 */
public final class EventsSettings {
    /** Default bytes per thread ring. */
    public static final int DEFAULT_RING_SIZE = 256 * 1024;
    /** Default number of thread rings. */
    public static final int DEFAULT_SLOTS = 64;
    /** Default grace period before a dead thread's ring is reused, in milliseconds. */
    public static final long DEFAULT_GRACE_MILLIS = 2000;
    /** Bytes of the names region (event and type names). */
    public static final int NAMES_CAPACITY = 64 * 1024;

    private final Path dir;
    private final int ringSize;
    private final int slots;
    private final boolean preserve;
    private final long graceMillis;

    private EventsSettings(Path dir, int ringSize, int slots, boolean preserve, long graceMillis) {
        this.dir = dir;
        this.ringSize = ringSize;
        this.slots = slots;
        this.preserve = preserve;
        this.graceMillis = graceMillis;
    }

    /** @return settings from the environment variables listed in the class comment */
    public static EventsSettings fromEnvironment() {
        return fromMap(System.getenv());
    }

    static EventsSettings fromMap(Map<String, String> env) {
        String d = env.get("MEMSCOPE_EVENTS_DIR");
        Path dir = d == null || d.isEmpty() ? defaultDirectory() : Paths.get(d);
        int ring = (int) parse(env, "MEMSCOPE_EVENTS_RING_SIZE", DEFAULT_RING_SIZE);
        int slots = (int) parse(env, "MEMSCOPE_EVENTS_SLOTS", DEFAULT_SLOTS);
        long grace = parse(env, "MEMSCOPE_EVENTS_GRACE_MS", DEFAULT_GRACE_MILLIS);
        boolean preserve = "1".equals(env.get("MEMSCOPE_EVENTS_PRESERVE"))
                || "true".equalsIgnoreCase(env.get("MEMSCOPE_EVENTS_PRESERVE"));
        return new EventsSettings(dir, ring, slots, preserve, grace).validate();
    }

    private static long parse(Map<String, String> env, String key, long def) {
        String v = env.get(key);
        if (v == null || v.isEmpty()) {
            return def;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw MemscopeException.configuration(key + "=" + v + " is not a number");
        }
    }

    /** @return {@code <java.io.tmpdir>/memscope-<user.name>} */
    public static Path defaultDirectory() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Paths.get(System.getProperty("java.io.tmpdir"), "memscope-" + user);
    }

    public EventsSettings withDirectory(Path value) {
        return new EventsSettings(value, ringSize, slots, preserve, graceMillis).validate();
    }

    public EventsSettings withRingSize(int bytes) {
        return new EventsSettings(dir, bytes, slots, preserve, graceMillis).validate();
    }

    public EventsSettings withSlots(int count) {
        return new EventsSettings(dir, ringSize, count, preserve, graceMillis).validate();
    }

    public EventsSettings withPreserve(boolean value) {
        return new EventsSettings(dir, ringSize, slots, value, graceMillis).validate();
    }

    public EventsSettings withGraceMillis(long millis) {
        return new EventsSettings(dir, ringSize, slots, preserve, millis).validate();
    }

    private EventsSettings validate() {
        if (ringSize < RingLayout.MIN_RING_SIZE || ringSize > RingLayout.MAX_RING_SIZE
                || Integer.bitCount(ringSize) != 1) {
            throw MemscopeException.configuration("ring size " + ringSize
                    + " must be a power of two from 4096 to 2^30 bytes");
        }
        if (slots < 1 || slots > 4096) {
            throw MemscopeException.configuration("slot count " + slots + " must be 1..4096");
        }
        long total = RingLayout.HEADER_BYTES + NAMES_CAPACITY + RingLayout.slotsBytes(slots, ringSize);
        if (total > Integer.MAX_VALUE) {
            throw MemscopeException.configuration("ring file of " + total + " bytes (" + slots + " slots x "
                    + ringSize + " bytes) exceeds 2 GiB; lower MEMSCOPE_EVENTS_SLOTS or MEMSCOPE_EVENTS_RING_SIZE");
        }
        if (graceMillis < 0) {
            throw MemscopeException.configuration("grace period must be >= 0 ms");
        }
        return this;
    }

    /** @return the directory of the ring file */
    public Path directory() {
        return dir;
    }

    /** @return bytes per thread ring */
    public int ringSize() {
        return ringSize;
    }

    /** @return number of thread rings */
    public int slots() {
        return slots;
    }

    /** @return true if the file is kept at normal exit */
    public boolean preserve() {
        return preserve;
    }

    /** @return milliseconds a dead thread's ring stays untouched before reuse */
    public long graceMillis() {
        return graceMillis;
    }

    @Override
    public String toString() {
        return "EventsSettings[dir=" + dir + ", ringSize=" + ringSize + ", slots=" + slots + ", preserve="
                + preserve + ", graceMillis=" + graceMillis + "]";
    }
}
