package io.memscope.launch.pprof;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The protobuf wire format, as much of it as pprof needs: varints, and length-delimited fields (strings, packed
 * repeated integers, embedded messages) written into a growable byte array. No reflection, no generated code, no
 * dependency: the agent carries it.
 *
 * <pre>
 *   field key   = varint( field_number &lt;&lt; 3 | wire_type )   wire_type 0: varint, 2: length-delimited
 *   varint      = 7 bits a byte, least significant group first, high bit set on every byte but the last
 *   int64 &lt; 0   = ten bytes (two's complement, as protobuf's int64)
 *   length-delim= varint(length) bytes
 * </pre>
 *
 * A default value (0, an empty string) is not written, as protobuf's encoders do for proto3 scalars.
 */
final class ProtoOutput {
    private byte[] buf;
    private int size;

    ProtoOutput(int initial) {
        buf = new byte[Math.max(16, initial)];
    }

    int size() {
        return size;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    void reset() {
        size = 0;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    void rawVarint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            n++;
            v >>>= 7;
        }
        return n;
    }

    private void key(int field, int wireType) {
        rawVarint(((long) field << 3) | wireType);
    }

    /** A varint field (int64, uint64, bool as 0/1); nothing when {@code v} is 0. */
    void varint(int field, long v) {
        if (v != 0) {
            key(field, 0);
            rawVarint(v);
        }
    }

    /** A string field, written even when empty (the string table's first entry is the empty string). */
    void string(int field, String s) {
        bytes(field, s.getBytes(StandardCharsets.UTF_8), true);
    }

    /** A length-delimited field of raw bytes, written even when empty when {@code always}. */
    void bytes(int field, byte[] b, boolean always) {
        if (b.length == 0 && !always) {
            return;
        }
        key(field, 2);
        rawVarint(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, size, b.length);
        size += b.length;
    }

    /** A packed repeated varint field; nothing when {@code n} is 0. */
    void packed(int field, long[] values, int n) {
        if (n == 0) {
            return;
        }
        int len = 0;
        for (int i = 0; i < n; i++) {
            len += varintSize(values[i]);
        }
        key(field, 2);
        rawVarint(len);
        for (int i = 0; i < n; i++) {
            rawVarint(values[i]);
        }
    }

    /** Appends {@code fields}, already encoded, as they are (fields of the message being written). */
    void raw(ProtoOutput fields) {
        ensure(fields.size);
        System.arraycopy(fields.buf, 0, buf, size, fields.size);
        size += fields.size;
    }

    /** An embedded message: {@code message} holds its encoded fields. */
    void message(int field, ProtoOutput message) {
        key(field, 2);
        rawVarint(message.size);
        ensure(message.size);
        System.arraycopy(message.buf, 0, buf, size, message.size);
        size += message.size;
    }
}
