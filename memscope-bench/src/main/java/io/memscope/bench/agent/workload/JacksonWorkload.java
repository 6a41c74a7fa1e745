package io.memscope.bench.agent.workload;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A realistic allocation-heavy measured program of {@code io.memscope.bench.agent.AgentOverhead} (compiled for Java 17,
 * like {@link AllocationWorkload}): Jackson databind serializing a list of {@value #ORDERS} order POJOs (each with
 * a nested customer and a list of lines) to JSON bytes and parsing them back into new POJOs, {@code cycles} times
 * per round. The allocations happen in this class (the POJOs, their lists) and in Jackson's classes (buffers,
 * parser and generator state, boxed values, Strings built by Jackson), which are application classes for every
 * agent; Strings and arrays allocated inside {@code java.*} methods called by Jackson are JDK-internal allocations
 * that bytecode instrumenters do not see (memscope exact, java-allocation-instrumenter) while JFR and
 * async-profiler do. A checksum over every parsed field and the JSON length is printed so the work cannot be
 * optimized away, and each round checks that the parsed list equals the original.
 *
 * <p>Prints the same fields as {@link AllocationWorkload}; {@code ALLOCATIONS} is -1 (not counted: most
 * allocations happen inside Jackson). Usage: {@code JacksonWorkload [warmupRounds] [measuredRounds] [cyclesPerRound]}.
 */
public final class JacksonWorkload {
    static final int ORDERS = 500;
    static long checksum;

    /** A customer: nested object of an order. */
    public static final class Customer {
        public long id;
        public String name;
        public String email;

        public Customer() {
        }

        Customer(long id, String name, String email) {
            this.id = id;
            this.name = name;
            this.email = email;
        }
    }

    /** An order line. */
    public static final class Line {
        public String sku;
        public int quantity;
        public double price;

        public Line() {
        }

        Line(String sku, int quantity, double price) {
            this.sku = sku;
            this.quantity = quantity;
            this.price = price;
        }
    }

    /** An order: scalars, a nested object, a list of objects and a list of strings. */
    public static final class Order {
        public long id;
        public String status;
        public Customer customer;
        public List<Line> lines;
        public List<String> tags;

        public Order() {
        }
    }

    private JacksonWorkload() {
    }

    static List<Order> orders() {
        return orders(ORDERS);
    }

    static List<Order> orders(int count) {
        List<Order> l = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Order o = new Order();
            o.id = 1_000_000L + i;
            o.status = (i % 3 == 0) ? "SHIPPED" : (i % 3 == 1) ? "PENDING" : "CANCELLED";
            o.customer = new Customer(i % 97, "customer-" + (i % 97), "c" + (i % 97) + "@example.com");
            o.lines = new ArrayList<>();
            for (int j = 0; j < 1 + i % 5; j++) {
                o.lines.add(new Line("SKU-" + (i * 7 + j), 1 + j, 9.99 + j * 0.5 + i % 13));
            }
            o.tags = List.of("t" + i % 11, "region-" + i % 4);
            l.add(o);
        }
        return l;
    }

    static long sum(List<Order> parsed) {
        long s = 0;
        for (Order o : parsed) {
            s = s * 31 + o.id + o.status.length() + o.customer.id + o.customer.name.hashCode()
                    + o.customer.email.length();
            for (Line line : o.lines) {
                s = s * 31 + line.sku.hashCode() + line.quantity + Double.hashCode(line.price);
            }
            for (String t : o.tags) {
                s = s * 31 + t.hashCode();
            }
        }
        return s;
    }

    static void round(ObjectMapper mapper, TypeReference<List<Order>> type, List<Order> orders, long expected,
            int cycles) throws Exception {
        for (int c = 0; c < cycles; c++) {
            byte[] json = mapper.writeValueAsBytes(orders);
            List<Order> parsed = mapper.readValue(json, type);
            long s = sum(parsed);
            if (s != expected || parsed.size() != orders.size()) {
                throw new IllegalStateException("parsed orders differ: checksum " + s + " != " + expected);
            }
            checksum += s + json.length;
        }
    }

    @SuppressWarnings("deprecation")
    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int cycles = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        if (Boolean.getBoolean("bench.countingSampler")) {
            CountingSampler.install();
        }
        ObjectMapper mapper = new ObjectMapper();
        TypeReference<List<Order>> type = new TypeReference<>() {
        };
        List<Order> orders = orders();
        long expected = sum(orders);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        long[] times = new long[measured];
        long[] cpu = new long[measured];
        for (int r = 0; r < warmup + measured; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            round(mapper, type, orders, expected, cycles);
            long t = System.nanoTime() - t0;
            long c = mx.getCurrentThreadCpuTime() - c0;
            if (r >= warmup) {
                times[r - warmup] = t;
                cpu[r - warmup] = c;
            }
        }
        Arrays.sort(cpu);
        System.out.println("MEDIAN_ROUND_CPU_MS " + cpu[measured / 2] / 1e6);
        System.out.println("MIN_ROUND_CPU_MS " + cpu[0] / 1e6);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        Arrays.sort(times);
        System.out.println("MEDIAN_ROUND_MS " + times[measured / 2] / 1e6);
        System.out.println("THREAD_ALLOCATED_BYTES " + allocated);
        AllThreadsAllocated.print();
        System.out.println("ALLOCATIONS -1");
        if (Boolean.getBoolean("bench.countingSampler")) {
            System.out.println("SAMPLER_COUNT " + CountingSampler.count());
        }
        System.out.println("CHECKSUM " + checksum);
    }
}
