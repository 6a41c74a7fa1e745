package io.memscope.bench.agent.workload;

import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * A malloc-heavy program for whole-process timing: compresses and decompresses many small documents, each with a new
 * {@link Deflater} and {@link Inflater} (zlib mallocs its state, window, hash chains and pending buffer per stream:
 * about 270 KiB in five blocks for a deflater, 7 KiB for an inflater, freed by {@code end()}). Prints a checksum so
 * the work cannot be skipped. Argument: the number of documents (default 20000).
 */
public final class MallocWorkload {
    private MallocWorkload() {
    }

    public static void main(String[] args) throws Exception {
        int documents = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        byte[] text = ("A malloc-heavy workload: every document gets its own deflater and inflater, so zlib allocates "
                + "and frees its buffers each time. ").repeat(40).getBytes();
        byte[] packed = new byte[text.length + 1024];
        byte[] unpacked = new byte[text.length];
        long checksum = 0;
        for (int i = 0; i < documents; i++) {
            text[i % text.length] = (byte) i;
            Deflater d = new Deflater(1 + i % 9);
            d.setInput(text);
            d.finish();
            int n = d.deflate(packed);
            d.end();
            Inflater f = new Inflater();
            f.setInput(packed, 0, n);
            int m = f.inflate(unpacked);
            f.end();
            checksum = checksum * 31 + n + m + unpacked[i % m];
        }
        System.out.println("CHECKSUM " + checksum);
    }
}
