package io.memscope.internal.recording;

import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The CRC-32C (Castagnoli) of the recording's header and blocks, as {@link CRC32C} computes it: with a table of its
 * own for the first {@value #TABLE_BYTES} bytes a writer checks, then with {@link CRC32C} (an intrinsic, many
 * times faster).
 *
 * <p>Why not {@link CRC32C} from the first byte: its class initializer builds eight lookup tables in the
 * interpreter, each step re-resolving a static field of the class being initialized, about 2 ms of CPU. The agent
 * opens a recording in every JVM it starts in, where a short program writes a few kilobytes in all; this table is
 * built from local variables in a few microseconds.
 *
 * <p>One checksum at a time, from {@link #reset()} to {@link #getValue()}, uses one of the two; the switch happens at
 * a reset. Not thread-safe (the writer's lock).
 */
final class Crc32c implements Checksum {
    /** Bytes checked with the table before the writer moves to {@link CRC32C}. */
    static final long TABLE_BYTES = 64 * 1024;

    /** Reflected polynomial of CRC-32C. */
    private static final int POLYNOMIAL = 0x82F63B78;
    private static final int[] TABLE = table();

    private final long tableBytes;
    private long checkedByTable;
    private CRC32C jdk;
    private boolean useJdk;
    private int crc = 0xFFFFFFFF;

    Crc32c() {
        this(TABLE_BYTES);
    }

    /** @param tableBytes bytes to check with the table before moving to {@link CRC32C} (tests) */
    Crc32c(long tableBytes) {
        this.tableBytes = tableBytes;
        useJdk = tableBytes <= 0;
        if (useJdk) {
            jdk = new CRC32C();
        }
    }

    private static int[] table() {
        int[] t = new int[256];
        for (int i = 0; i < 256; i++) {
            int r = i;
            for (int k = 0; k < 8; k++) {
                r = (r & 1) != 0 ? (r >>> 1) ^ POLYNOMIAL : r >>> 1;
            }
            t[i] = r;
        }
        return t;
    }

    @Override
    public void update(int b) {
        if (useJdk) {
            jdk.update(b);
        } else {
            crc = TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
            checkedByTable++;
        }
    }

    @Override
    public void update(byte[] b, int off, int len) {
        if (useJdk) {
            jdk.update(b, off, len);
            return;
        }
        int[] t = TABLE;
        int c = crc;
        for (int i = off, end = off + len; i < end; i++) {
            c = t[(c ^ b[i]) & 0xff] ^ (c >>> 8);
        }
        crc = c;
        checkedByTable += len;
    }

    @Override
    public long getValue() {
        return useJdk ? jdk.getValue() : ~crc & 0xFFFFFFFFL;
    }

    @Override
    public void reset() {
        if (!useJdk && checkedByTable >= tableBytes) {
            useJdk = true;
            jdk = new CRC32C();
        }
        if (useJdk) {
            jdk.reset();
        } else {
            crc = 0xFFFFFFFF;
        }
    }

    /** @return whether checksums are now computed by {@link CRC32C} */
    boolean usesJdk() {
        return useJdk;
    }
}
