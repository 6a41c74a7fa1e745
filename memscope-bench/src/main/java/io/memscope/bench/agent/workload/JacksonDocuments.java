package io.memscope.bench.agent.workload;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Jackson databind writing and reading JSON documents of every size from a few hundred bytes to about 4 MB: order
 * lists of 1 to 20,000 orders ({@link JacksonWorkload#orders}), serialized with {@code writeValueAsBytes} and parsed
 * back. Most objects are small (Jackson's tokens, Strings, the orders), but much of the memory is in large arrays:
 * Jackson's output buffer segments (up to 128 KB) and each document's final {@code byte[]}, which
 * {@code ByteArrayBuilder.toByteArray} copies out at the document's full length. A real library's allocation mix
 * with a site whose exact bytes are known: every document's array is {@code 16 + length} bytes rounded up to 8 (the
 * JVM's array header and alignment with compressed class pointers, the default below 32 GiB of heap).
 *
 * <p>Prints {@code DOCUMENT_ARRAY_BYTES} (that site's exact bytes), {@code DOCUMENT_ARRAYS} (its objects),
 * {@code THREAD_ALLOCATED_BYTES} (this thread over the whole run, ThreadMXBean) and
 * {@code ALL_THREADS_ALLOCATED_BYTES}. Usage: {@code JacksonDocuments [rounds]}.
 */
public final class JacksonDocuments {
    /** Orders per document, cycled: documents of about 0.3 KB to 4 MB. */
    private static final int[] SIZES = {1, 4, 16, 64, 256, 1000, 4000, 20000};
    static long checksum;

    private JacksonDocuments() {
    }

    @SuppressWarnings("deprecation")
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        ObjectMapper mapper = new ObjectMapper();
        TypeReference<List<JacksonWorkload.Order>> type = new TypeReference<>() {
        };
        List<JacksonWorkload.Order> all = JacksonWorkload.orders(20000);
        long arrayBytes = 0;
        long arrays = 0;
        for (int r = 0; r < rounds; r++) {
            for (int n : SIZES) {
                // documents of n orders, about 8 MB of JSON per size and round
                int repeat = Math.max(1, 40000 / n);
                List<JacksonWorkload.Order> doc = all.subList(0, n);
                for (int k = 0; k < repeat; k++) {
                    byte[] json = mapper.writeValueAsBytes(doc);
                    arrayBytes += (16 + json.length + 7) & ~7L;
                    arrays++;
                    List<JacksonWorkload.Order> parsed = mapper.readValue(json, type);
                    checksum += parsed.size() + json.length + parsed.get(parsed.size() - 1).id;
                }
            }
        }
        System.out.println("DOCUMENT_ARRAY_BYTES " + arrayBytes);
        System.out.println("DOCUMENT_ARRAYS " + arrays);
        System.out.println("THREAD_ALLOCATED_BYTES " + (mx.getThreadAllocatedBytes(tid) - before));
        AllThreadsAllocated.print();
        System.out.println("CHECKSUM " + checksum);
    }
}
