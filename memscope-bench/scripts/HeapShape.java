import java.util.concurrent.ThreadLocalRandom;

/**
 * A heap of a given size and object count for the paths-from-GC-roots benchmark (paths-vs-jfr.sh): 4096 linked lists
 * under one static array, each node holding a payload; one payload in 64 is a byte[] (the "leak" most samples hit),
 * the rest are small byte[]s sized so that the heap reaches its target. Run with the single-file source launcher:
 * {@code java -Xmx6g HeapShape.java 1g 24000000}, or compiled. Prints what it built, keeps allocating a little for a few seconds
 * (so that samplers see old objects), then exits.
 */
public final class HeapShape {
    static final class Node {
        Node next;
        Object payload;
    }

    static final Node[] HEADS = new Node[4096];
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long bytes = parse(args[0]);
        long objects = Long.parseLong(args[1]);
        long nodes = objects / 2; // each node and its payload
        // 24 bytes a node (compressed oops); payloads take the rest of the target
        long perPayload = Math.max(16, (bytes - nodes * 24) / nodes);
        int smallLength = (int) Math.max(0, perPayload - 16);
        int bigLength = smallLength * 8 + 1024;
        long t0 = System.nanoTime();
        for (long i = 0; i < nodes; i++) {
            int h = (int) (i & (HEADS.length - 1));
            Node n = new Node();
            n.payload = i % 64 == 0 ? new byte[bigLength] : new byte[smallLength];
            n.next = HEADS[h];
            HEADS[h] = n;
        }
        System.gc();
        Runtime r = Runtime.getRuntime();
        System.out.printf("built %d nodes (%d objects) in %.1f s, heap used %d MiB%n", nodes, 2 * nodes,
                (System.nanoTime() - t0) / 1e9, (r.totalMemory() - r.freeMemory()) >> 20);
        long end = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < end) {
            sink = new byte[ThreadLocalRandom.current().nextInt(64, 4096)];
        }
        System.out.println("exiting at " + (System.currentTimeMillis() * 1_000_000L));
        System.out.flush();
        System.exit(0);
    }

    private static long parse(String s) {
        char u = Character.toLowerCase(s.charAt(s.length() - 1));
        long m = u == 'g' ? 1L << 30 : u == 'm' ? 1L << 20 : 1;
        return Long.parseLong(Character.isDigit(u) ? s : s.substring(0, s.length() - 1)) * m;
    }
}
