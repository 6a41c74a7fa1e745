package io.memscope.internal.recording;

import java.util.Arrays;

/**
 * A growable byte array that a block payload is encoded into: little-endian fixed-width integers, unsigned
 * LEB128 varints and zig-zag varints (see {@link RecordingFormat}). Reused from block to block with
 * {@link #reset()}, so that steady-state encoding does not allocate. Not thread-safe.
 */
public final class ByteSink {
    private byte[] bytes;
    private int length;

    public ByteSink(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    void reset() {
        length = 0;
    }

    public int length() {
        return length;
    }

    public byte[] array() {
        return bytes;
    }

    /** The most bytes one varint takes (a 64-bit value, 7 bits a byte). */
    static final int MAX_VARINT_BYTES = 10;

    /**
     * Makes room for {@code more} bytes: every write below, and an encoder before the {@code ...Reserved} writes
     * that follow, so that one that writes many varints per entry checks the capacity once (less code for the JIT
     * to compile at every write, too).
     */
    void reserve(int more) {
        int needed = length + more;
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(needed, bytes.length * 2));
        }
    }

    void u8(int value) {
        reserve(1);
        bytes[length++] = (byte) value;
    }

    void u16(int value) {
        reserve(2);
        bytes[length++] = (byte) value;
        bytes[length++] = (byte) (value >>> 8);
    }

    void u32(long value) {
        reserve(4);
        for (int i = 0; i < 4; i++) {
            bytes[length++] = (byte) (value >>> (8 * i));
        }
    }

    void i64(long value) {
        reserve(8);
        for (int i = 0; i < 8; i++) {
            bytes[length++] = (byte) (value >>> (8 * i));
        }
    }

    /** Unsigned LEB128: 7 bits per byte, least significant group first, high bit set on all but the last byte. */
    public void uleb(long value) {
        reserve(MAX_VARINT_BYTES);
        ulebReserved(value);
    }

    /** {@link #uleb} into room made by {@link #reserve} ({@link #MAX_VARINT_BYTES} for this write). */
    void ulebReserved(long value) {
        byte[] b = bytes;
        int i = length;
        while ((value & ~0x7FL) != 0) {
            b[i++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        b[i++] = (byte) value;
        length = i;
    }

    /** {@link #zigzag} into room made by {@link #reserve}. */
    void zigzagReserved(long value) {
        ulebReserved((value << 1) ^ (value >> 63));
    }

    /** Zig-zag then unsigned LEB128: 0, -1, 1, -2, 2 ... become 0, 1, 2, 3, 4 ... */
    void zigzag(long value) {
        uleb((value << 1) ^ (value >> 63));
    }

    void bytes(byte[] src, int offset, int count) {
        reserve(count);
        System.arraycopy(src, offset, bytes, length, count);
        length += count;
    }

    /** Overwrites 4 bytes at {@code position} with a little-endian u32 (for length/CRC fields filled in last). */
    void putU32At(int position, long value) {
        for (int i = 0; i < 4; i++) {
            bytes[position + i] = (byte) (value >>> (8 * i));
        }
    }
}
