package io.memscope.internal.recording;

import java.nio.charset.StandardCharsets;

/**
 * A bounds-checked cursor over one block payload. Every read checks the remaining length first and throws
 * {@link Malformed} (with the position inside the payload) instead of reading past the end, so that a damaged
 * payload can never cause an {@code ArrayIndexOutOfBoundsException}, a huge allocation or a hang.
 */
public final class ByteSource {
    private final byte[] bytes;
    private final int limit;
    private int position;

    public ByteSource(byte[] bytes, int offset, int limit) {
        this.bytes = bytes;
        this.position = offset;
        this.limit = limit;
    }

    int position() {
        return position;
    }

    /** Moves back (or forward) to {@code position}, which must lie within the payload (a second pass). */
    void reset(int position) {
        if (position < 0 || position > limit) {
            throw new IllegalArgumentException("position " + position + " outside 0.." + limit);
        }
        this.position = position;
    }

    int remaining() {
        return limit - position;
    }

    boolean hasRemaining() {
        return position < limit;
    }

    int u8() {
        if (position >= limit) {
            throw new Malformed(position, "unexpected end of block payload");
        }
        return bytes[position++] & 0xFF;
    }

    public long uleb() {
        int p = position;
        if (p < limit) {
            byte b = bytes[p];
            if (b >= 0) { // one byte, the most common varint: read in line
                position = p + 1;
                return b;
            }
        }
        return ulebLong();
    }

    /** A varint of more than one byte, or one running past the end (the checks and their errors). */
    private long ulebLong() {
        int start = position;
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= limit) {
                throw new Malformed(start, "varint runs past the end of the block payload");
            }
            int b = bytes[position++] & 0xFF;
            if (shift == 63 && (b & 0xFE) != 0) {
                throw new Malformed(start, "varint does not fit in 64 bits");
            }
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new Malformed(start, "varint longer than 10 bytes");
    }

    long zigzag() {
        long v = uleb();
        return (v >>> 1) ^ -(v & 1);
    }

    /** An unsigned varint that must be at most {@code max}; {@code what} names the field in the error. */
    long ulebAtMost(long max, String what) {
        int start = position;
        long v = uleb();
        if (v < 0 || v > max) {
            throw new Malformed(start, what + " " + Long.toUnsignedString(v) + " exceeds the limit " + max);
        }
        return v;
    }

    int intAtMost(int max, String what) {
        return (int) ulebAtMost(max, what);
    }

    String utf8(int length) {
        if (length > remaining()) {
            throw new Malformed(position, "string of " + length + " bytes runs past the end of the block payload");
        }
        String s = new String(bytes, position, length, StandardCharsets.UTF_8);
        position += length;
        return s;
    }

    /** A decoding failure at a position inside the payload array; the reader turns it into a file offset. */
    static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int position;

        Malformed(int position, String what) {
            super(what, null, false, false);
            this.position = position;
        }
    }
}
