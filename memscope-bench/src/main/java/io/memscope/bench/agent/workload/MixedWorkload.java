package io.memscope.bench.agent.workload;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.Multimap;
import com.google.common.collect.MultimapBuilder;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

/**
 * The whole-process agent benchmark's realistic program (memscope-bench/scripts/agent-whole-process.sh, workload
 * {@code mixed}; compiled for Java 17): each cycle does three libraries' ordinary work on the same data, so that
 * allocations come from many sites in application, library and JDK code and many classes are loaded at start.
 * <ul>
 *   <li>Jackson databind: {@link JacksonWorkload}'s {@value JacksonWorkload#ORDERS} orders written to JSON bytes and
 *       parsed back, checked field by field;</li>
 *   <li>Guava: the parsed orders indexed in an immutable map and a list multimap by status, customers counted through
 *       a {@link LoadingCache} (bounded, so it evicts), and the JSON hashed with murmur3;</li>
 *   <li>H2 (in memory): the orders' lines inserted in a batch into a table and summed per order by a grouped query,
 *       then deleted.</li>
 * </ul>
 * A checksum over all three is printed so the work cannot be optimized away; the JVM's wall time is what the driver
 * measures, from outside. Usage: {@code MixedWorkload [cycles]} (default 60: about 2 s of wall and 4 s of CPU on a
 * quiet 2-core machine with JDK 17 and no agent, about 5 s under load). Prints {@code CHECKSUM} and, last, {@code MAIN_END_EPOCH_MICROS}: when main's work ended.
 */
public final class MixedWorkload {
    private MixedWorkload() {
    }

    public static void main(String[] args) throws Exception {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        ObjectMapper mapper = new ObjectMapper();
        TypeReference<List<JacksonWorkload.Order>> type = new TypeReference<>() {
        };
        List<JacksonWorkload.Order> orders = JacksonWorkload.orders();
        long expected = JacksonWorkload.sum(orders);
        long checksum = 0;
        LoadingCache<Long, String> customers = CacheBuilder.newBuilder().maximumSize(64)
                .build(new CacheLoader<Long, String>() {
                    @Override
                    public String load(Long id) {
                        return "customer-" + id;
                    }
                });
        try (Connection db = DriverManager.getConnection("jdbc:h2:mem:mixed;DB_CLOSE_DELAY=-1")) {
            try (Statement s = db.createStatement()) {
                s.execute("CREATE TABLE line(order_id BIGINT, sku VARCHAR(32), quantity INT, price DOUBLE)");
            }
            for (int c = 0; c < cycles; c++) {
                // Jackson
                byte[] json = mapper.writeValueAsBytes(orders);
                List<JacksonWorkload.Order> parsed = mapper.readValue(json, type);
                if (JacksonWorkload.sum(parsed) != expected) {
                    throw new IllegalStateException("parsed orders differ");
                }
                // Guava
                ImmutableMap.Builder<Long, JacksonWorkload.Order> byId = ImmutableMap.builder();
                Multimap<String, Long> byStatus = MultimapBuilder.hashKeys().arrayListValues().build();
                for (JacksonWorkload.Order o : parsed) {
                    byId.put(o.id, o);
                    byStatus.put(o.status, o.id);
                    checksum += customers.getUnchecked(o.customer.id).length();
                }
                ImmutableMap<Long, JacksonWorkload.Order> index = byId.build();
                ImmutableList<Long> shipped = ImmutableList.copyOf(byStatus.get("SHIPPED"));
                checksum += index.size() + shipped.size()
                        + Hashing.murmur3_128().hashBytes(json).asLong()
                        + Hashing.murmur3_32_fixed().hashString(parsed.get(c % parsed.size()).customer.email,
                                StandardCharsets.UTF_8).asInt();
                // H2
                try (PreparedStatement insert = db.prepareStatement("INSERT INTO line VALUES (?, ?, ?, ?)")) {
                    for (JacksonWorkload.Order o : parsed) {
                        for (JacksonWorkload.Line l : o.lines) {
                            insert.setLong(1, o.id);
                            insert.setString(2, l.sku);
                            insert.setInt(3, l.quantity);
                            insert.setDouble(4, l.price);
                            insert.addBatch();
                        }
                    }
                    insert.executeBatch();
                }
                try (Statement s = db.createStatement();
                     ResultSet rs = s.executeQuery("SELECT order_id, SUM(quantity * price), COUNT(*) FROM line "
                             + "GROUP BY order_id ORDER BY order_id")) {
                    int rows = 0;
                    while (rs.next()) {
                        checksum += rs.getLong(1) + (long) rs.getDouble(2) + rs.getInt(3);
                        rows++;
                    }
                    if (rows != orders.size()) {
                        throw new IllegalStateException("grouped " + rows + " orders, expected " + orders.size());
                    }
                }
                try (Statement s = db.createStatement()) {
                    s.execute("DELETE FROM line");
                }
            }
        }
        System.out.println("CHECKSUM " + checksum);
        java.time.Instant end = java.time.Instant.now();
        System.out.println("MAIN_END_EPOCH_MICROS " + (end.getEpochSecond() * 1_000_000L + end.getNano() / 1000));
    }
}
