package io.memscope.bench.agent.workload;

import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * A malloc-heavy program for whole-process timing: compresses and decompresses many documents (JSON log lines of a
 * made-up web service, 2 to 30 KiB each, from a fixed seed), each through new streams, so that the codecs' native
 * state is malloc'd and freed per document:
 *
 * <ul>
 *   <li>{@code zlib}: a {@link DeflaterOutputStream} over a new {@link Deflater} (levels 1 to 9 in turn) and an
 *       {@link InflaterInputStream} over a new {@link Inflater}, both ended (zlib mallocs about 270 KiB in five blocks
 *       per deflater, 7 KiB per inflater, 32 KiB more for the window once it inflates);</li>
 *   <li>{@code zstd}: zstd-jni's {@link ZstdOutputStream} (levels 1 to 6 in turn) and {@link ZstdInputStream}, closed
 *       (libzstd mallocs its compression context, sized by level, and its decompression context per stream).</li>
 * </ul>
 *
 * Prints a checksum of the round trips so the work cannot be skipped, and fails if a round trip differs. Arguments:
 * the number of documents (default 20000; each codec compresses and decompresses each one), and the codecs
 * ({@code zlib,zstd}, the default, or either).
 */
public final class MallocWorkload {
    private static final String[] PATHS = {"/api/v2/orders", "/api/v2/orders/{id}", "/api/v2/customers/{id}/cart",
            "/api/v2/search", "/health", "/api/v2/payments", "/static/app.js", "/api/v2/inventory/{sku}"};
    private static final String[] AGENTS = {"Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15", "okhttp/4.12.0", "curl/8.5.0",
            "Apache-HttpClient/5.3 (Java/21.0.3)"};
    private static final String[] LEVELS = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};

    private MallocWorkload() {
    }

    public static void main(String[] args) throws Exception {
        int documents = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        String codecs = args.length > 1 ? args[1] : "zlib,zstd";
        boolean zlib = codecs.contains("zlib");
        boolean zstd = codecs.contains("zstd");
        Random random = new Random(42);
        byte[][] corpus = new byte[64][];
        for (int i = 0; i < corpus.length; i++) {
            corpus[i] = document(random, 2048 + random.nextInt(28 * 1024));
        }
        ByteArrayOutputStream packed = new ByteArrayOutputStream(64 * 1024);
        byte[] unpacked = new byte[64 * 1024];
        long checksum = 0;
        for (int i = 0; i < documents; i++) {
            byte[] text = corpus[i % corpus.length];
            text[i % text.length] = (byte) ('a' + i % 26);
            if (zlib) {
                packed.reset();
                Deflater d = new Deflater(1 + i % 9);
                try (OutputStream out = new DeflaterOutputStream(packed, d, 4096)) {
                    out.write(text);
                } finally {
                    d.end();
                }
                Inflater f = new Inflater();
                try (InputStream in = new InflaterInputStream(new ByteArrayInputStream(packed.toByteArray()), f,
                        4096)) {
                    checksum = checksum * 31 + packed.size() + readAll(in, unpacked, text);
                } finally {
                    f.end();
                }
            }
            if (zstd) {
                packed.reset();
                try (ZstdOutputStream out = new ZstdOutputStream(packed, 1 + i % 6)) {
                    out.write(text);
                }
                try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(packed.toByteArray()))) {
                    checksum = checksum * 31 + packed.size() + readAll(in, unpacked, text);
                }
            }
        }
        System.out.println("CHECKSUM " + checksum);
    }

    /** Reads the stream to its end into buffer; fails unless it is expected. @return its length */
    private static int readAll(InputStream in, byte[] buffer, byte[] expected) throws Exception {
        int n = 0;
        int r;
        while ((r = in.read(buffer, n, buffer.length - n)) > 0) {
            n += r;
        }
        if (n != expected.length || !java.util.Arrays.equals(buffer, 0, n, expected, 0, n)) {
            throw new IllegalStateException("round trip differs: " + n + " bytes, not " + expected.length);
        }
        return n;
    }

    /** JSON log lines of a web service, about length bytes. */
    private static byte[] document(Random r, int length) {
        StringBuilder b = new StringBuilder(length + 512);
        long time = 1_764_201_600_000L + r.nextInt(86_400_000);
        while (b.length() < length) {
            time += r.nextInt(50);
            String path = PATHS[r.nextInt(PATHS.length)].replace("{id}", Integer.toString(r.nextInt(100_000)))
                    .replace("{sku}", "SKU-" + Integer.toHexString(r.nextInt()));
            int status = r.nextInt(20) == 0 ? 500 : r.nextInt(10) == 0 ? 404 : 200;
            b.append("{\"ts\":").append(time).append(",\"level\":\"").append(LEVELS[r.nextInt(LEVELS.length)])
                    .append("\",\"method\":\"").append(r.nextInt(4) == 0 ? "POST" : "GET").append("\",\"path\":\"")
                    .append(path).append("\",\"status\":").append(status).append(",\"ms\":")
                    .append(r.nextInt(2000) / 10.0).append(",\"bytes\":").append(r.nextInt(90_000))
                    .append(",\"trace\":\"").append(Long.toHexString(r.nextLong())).append(Long.toHexString(
                            r.nextLong())).append("\",\"ua\":\"").append(AGENTS[r.nextInt(AGENTS.length)])
                    .append("\",\"user\":").append(r.nextInt(5000)).append("}\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
