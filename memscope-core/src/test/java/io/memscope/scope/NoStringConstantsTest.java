package io.memscope.scope;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The classes that run while an application's scope is open hold no string literal: HotSpot turns the unused string
 * literals of a class into {@code String}s, on the application's thread, when C2 compiles one of its methods, and
 * those bytes would count as the scope's (see {@link ScopeText}).
 */
class NoStringConstantsTest {

    @ParameterizedTest
    @ValueSource(strings = {"io.memscope.scope.ScopeTracker", "io.memscope.scope.MemoryScope",
        "io.memscope.scope.PathNode", "io.memscope.scope.StatsShard", "io.memscope.scope.ThreadScopes",
        "io.memscope.scope.ThreadAllocation", "io.memscope.scope.ScopedTask", "io.memscope.scope.PathTable",
        "io.memscope.scope.ScopeThreads",
        "io.memscope.scope.ScopedTask$OfRunnable", "io.memscope.scope.ScopedTask$OfCallable",
        "io.memscope.internal.scope.OwnAllocations", "io.memscope.pool.PoolTracker", "io.memscope.pool.PoolTracker$Lease",
        "io.memscope.pool.LeaseRecord", "io.memscope.track.ObjectTracker"})
    void holdsNoStringLiteral(String className) throws IOException {
        assertThat(stringConstants(className)).as(className).isEmpty();
    }

    /** @return the indexes of the CONSTANT_String entries of a class file's constant pool */
    static List<Integer> stringConstants(String className) throws IOException {
        String resource = "/" + className.replace('.', '/') + ".class";
        List<Integer> strings = new ArrayList<>();
        try (InputStream raw = NoStringConstantsTest.class.getResourceAsStream(resource);
             DataInputStream in = new DataInputStream(raw)) {
            in.readInt(); // magic
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> in.skipBytes(in.readUnsignedShort()); // Utf8
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                    case 5, 6 -> {
                        in.skipBytes(8); // Long, Double take two slots
                        i++;
                    }
                    case 7, 16, 19, 20 -> in.skipBytes(2);
                    case 8 -> {
                        strings.add(i);
                        in.skipBytes(2);
                    }
                    case 15 -> in.skipBytes(3);
                    default -> throw new IOException("constant pool tag " + tag + " at entry " + i);
                }
            }
        }
        return strings;
    }
}
