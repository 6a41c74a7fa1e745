package io.memscope.events;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The payload type of a custom event: one of the built-ins ({@link #UNIT}, {@link #INT}, {@link #LONG},
 * {@link #SPAN}) or a type registered with a {@link Codec} to and from bytes. Custom type names are stored in the
 * ring file, so a reader in another process registers the same name (and codec) to decode the payload; a reader
 * without the codec still receives the raw bytes.
 *
 * <p>Payload encodings: unit 0 bytes; int 4 bytes little-endian; long 8 bytes little-endian; span 1 byte (0 begin,
 * 1 end); custom: what the codec writes, at most {@value RingLayout#MAX_PAYLOAD_BYTES} bytes.
 *
 * @param <T> the Java type of the payload
 */
public final class EventType<T> {
    /** Encodes values to bytes and back. Implementations must not allocate in {@link #encode} if the writer must not. */
    public interface Codec<T> {
        /**
         * Writes {@code value} into {@code buffer} (length {@value RingLayout#MAX_PAYLOAD_BYTES}).
         *
         * @return the number of bytes written
         */
        int encode(T value, byte[] buffer);

        /** @return the value encoded in {@code buffer[0, length)} */
        T decode(byte[] buffer, int length);
    }

    public static final EventType<Void> UNIT = new EventType<>(NameRegistry.TYPE_UNIT, "unit", null);
    public static final EventType<Integer> INT = new EventType<>(NameRegistry.TYPE_INT, "int", null);
    public static final EventType<Long> LONG = new EventType<>(NameRegistry.TYPE_LONG, "long", null);
    public static final EventType<Span.Edge> SPAN = new EventType<>(NameRegistry.TYPE_SPAN, "span", null);

    /**
     * Custom types by name, and the next custom type id: process-wide on purpose, since a type is a value (a name
     * and a codec) that the events of any {@link EventsProducer} may use; each producer writes the names of the
     * types its events use to its own file.
     */
    private static final Map<String, EventType<?>> BY_NAME = new ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_ID =
            new java.util.concurrent.atomic.AtomicInteger(NameRegistry.FIRST_CUSTOM_TYPE);

    private final int id;
    private final String name;
    private final Codec<T> codec;

    private EventType(int id, String name, Codec<T> codec) {
        this.id = id;
        this.name = name;
        this.codec = codec;
    }

    /**
     * Registers a custom payload type (or returns the one already registered under this name).
     *
     * @throws IllegalArgumentException if the name is a built-in one
     */
    @SuppressWarnings("unchecked")
    public static <T> EventType<T> register(String name, Codec<T> codec) {
        Objects.requireNonNull(codec, "codec");
        if (builtin(name) != null) {
            throw new IllegalArgumentException("'" + name + "' is a built-in type name");
        }
        return (EventType<T>) BY_NAME.computeIfAbsent(name,
                n -> {
                    NameRegistry.utf8(n); // a name the files can hold
                    return new EventType<>(nextId(), n, codec);
                });
    }

    private static int nextId() {
        int id = NEXT_ID.getAndIncrement();
        if (id > NameRegistry.MAX_ID) {
            throw new IllegalStateException("more than " + NameRegistry.MAX_ID + " custom types registered");
        }
        return id;
    }

    static EventType<?> builtin(String name) {
        switch (name) {
            case "unit": return UNIT;
            case "int": return INT;
            case "long": return LONG;
            case "span": return SPAN;
            default: return null;
        }
    }

    static EventType<?> builtin(int typeId) {
        switch (typeId) {
            case NameRegistry.TYPE_UNIT: return UNIT;
            case NameRegistry.TYPE_INT: return INT;
            case NameRegistry.TYPE_LONG: return LONG;
            case NameRegistry.TYPE_SPAN: return SPAN;
            default: return null;
        }
    }

    /** @return the type registered in this process under {@code name}, built-ins included; null if none */
    static EventType<?> byName(String name) {
        EventType<?> b = builtin(name);
        return b != null ? b : BY_NAME.get(name);
    }

    /** Decodes a payload of this type; built-ins decode themselves. */
    @SuppressWarnings("unchecked")
    T decode(byte[] payload, int length) {
        switch (id) {
            case NameRegistry.TYPE_UNIT:
                return null;
            case NameRegistry.TYPE_INT:
                return (T) Integer.valueOf(length < 4 ? 0 : (payload[0] & 0xFF) | (payload[1] & 0xFF) << 8
                        | (payload[2] & 0xFF) << 16 | payload[3] << 24);
            case NameRegistry.TYPE_LONG: {
                long v = 0;
                for (int i = Math.min(8, length) - 1; i >= 0; i--) {
                    v = (v << 8) | (payload[i] & 0xFF);
                }
                return (T) Long.valueOf(v);
            }
            case NameRegistry.TYPE_SPAN:
                return (T) (length > 0 && payload[0] == 1 ? Span.Edge.END : Span.Edge.BEGIN);
            default:
                return codec.decode(payload, length);
        }
    }

    Codec<T> codec() {
        return codec;
    }

    /** @return the type id stored in the file (0-3 built-in, 16 and up custom) */
    public int id() {
        return id;
    }

    /** @return the type name stored in the file */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "EventType[" + name + "]";
    }
}
