package io.memscope.recording;

import io.memscope.internal.recording.ByteSink;
import io.memscope.internal.recording.ByteSource;
import io.memscope.internal.recording.RecordingFormat;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/** Builds and inspects raw recording bytes for corruption tests, independently of the writer. */
final class TestFiles {
    private TestFiles() {
    }

    static byte[] header(int major, int minor, int flags) {
        ByteBuffer b = ByteBuffer.allocate(RecordingFormat.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.put(RecordingFormat.MAGIC).putShort((short) major).putShort((short) minor).putInt(flags);
        b.putLong(1_000_000_000_000L).putLong(77).putLong(1).putLong(2);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, RecordingFormat.HEADER_BYTES - 4);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    static byte[] block(int type, int flags, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(12 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) type).put((byte) flags).putShort((short) 0).putInt(payload.length).putInt(0).put(payload);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 8);
        crc.update(payload);
        b.putInt(8, (int) crc.getValue());
        return b.array();
    }

    static byte[] uleb(long... values) {
        ByteSink s = new ByteSink(16);
        for (long v : values) {
            s.uleb(v);
        }
        return java.util.Arrays.copyOf(s.array(), s.length());
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** A block found by walking a well-formed file: start offset, end offset, type, events (EVENTS only). */
    record BlockInfo(int start, int end, int type, int events) {
    }

    static List<BlockInfo> blocks(byte[] file) {
        List<BlockInfo> list = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int off = RecordingFormat.HEADER_BYTES;
        while (off + 12 <= file.length) {
            int type = file[off] & 0xFF;
            int len = b.getInt(off + 4);
            int end = off + 12 + len;
            int events = 0;
            if (type == 4) {
                events = (int) new ByteSource(file, off + 12, end).uleb();
            }
            list.add(new BlockInfo(off, end, type, events));
            off = end;
        }
        return list;
    }

    /** Recomputes every block CRC (and the header CRC), so that a mutation reaches the payload decoders. */
    static void fixCrcs(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        if (file.length >= RecordingFormat.HEADER_BYTES) {
            crc.update(file, 0, RecordingFormat.HEADER_BYTES - 4);
            b.putInt(RecordingFormat.HEADER_BYTES - 4, (int) crc.getValue());
        }
        long off = RecordingFormat.HEADER_BYTES;
        while (off + 12 <= file.length) {
            long len = b.getInt((int) off + 4) & 0xFFFF_FFFFL;
            if (off + 12 + len > file.length) {
                return;
            }
            crc.reset();
            crc.update(file, (int) off, 8);
            crc.update(file, (int) off + 12, (int) len);
            b.putInt((int) off + 8, (int) crc.getValue());
            off += 12 + len;
        }
    }
}
