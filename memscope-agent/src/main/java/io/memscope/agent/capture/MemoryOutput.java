package io.memscope.agent.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A recording held in memory while its file cannot be opened: bytes in chunks of 64 KiB, at most {@code limit}. A
 * write that does not fit is refused whole (nothing of it is kept) with an {@code IOException}: the recording writer
 * then stops and counts what it drops, and what is held stays a recording whose every block is whole.
 */
final class MemoryOutput extends OutputStream {
    private static final int CHUNK = 64 * 1024;
    private final long limit;
    private final List<byte[]> chunks = new ArrayList<>();
    private long size;
    private boolean full;

    MemoryOutput(long limit) {
        this.limit = limit;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        if (size + len > limit) {
            full = true;
            throw new IOException("the memory limit of " + limit + " bytes for a recording held in memory is reached");
        }
        while (len > 0) {
            int at = (int) (size % CHUNK);
            if (at == 0 && chunks.size() * (long) CHUNK == size) {
                chunks.add(new byte[CHUNK]);
            }
            int n = Math.min(len, CHUNK - at);
            System.arraycopy(b, off, chunks.get((int) (size / CHUNK)), at, n);
            size += n;
            off += n;
            len -= n;
        }
    }

    /** Copies the first {@code length} bytes to {@code out}. */
    synchronized void writeTo(OutputStream out, long length) throws IOException {
        long left = Math.min(length, size);
        for (int i = 0; left > 0; i++) {
            int n = (int) Math.min(CHUNK, left);
            out.write(chunks.get(i), 0, n);
            left -= n;
        }
    }

    synchronized long size() {
        return size;
    }

    long limit() {
        return limit;
    }

    /** @return whether a write was refused for want of room */
    synchronized boolean full() {
        return full;
    }

    @Override
    public void close() {
        // the bytes stay until they are copied
    }
}
