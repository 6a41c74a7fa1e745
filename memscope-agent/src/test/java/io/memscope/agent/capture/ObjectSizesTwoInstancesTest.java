package io.memscope.agent.capture;

import org.junit.jupiter.api.Test;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Array;
import java.lang.reflect.Proxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two captures' {@link ObjectSizes} in one JVM share nothing: each keeps the layout its own JVM reported, whatever
 * the other measured later (before, a second capture's measurement overwrote static tables the first still read).
 * The JVMs are stand-ins answering {@link Instrumentation#getObjectSize} for two real layouts: compressed oops and
 * 12-byte headers, and uncompressed oops with 16-byte headers.
 */
class ObjectSizesTwoInstancesTest {

    /** An Instrumentation that only sizes objects, as a JVM with this array header and reference size would. */
    private static Instrumentation layout(long arrayHeader, long referenceBytes, long stringBytes, long objectBytes) {
        return (Instrumentation) Proxy.newProxyInstance(ObjectSizesTwoInstancesTest.class.getClassLoader(),
                new Class<?>[] {Instrumentation.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getObjectSize")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Object o = args[0];
                    if (o instanceof String) {
                        return stringBytes;
                    }
                    Class<?> c = o.getClass().getComponentType();
                    if (c == null) {
                        return objectBytes;
                    }
                    long element = !c.isPrimitive() ? referenceBytes
                            : c == long.class || c == double.class ? 8
                            : c == int.class || c == float.class ? 4
                            : c == char.class || c == short.class ? 2 : 1;
                    return (arrayHeader + element * Array.getLength(o) + 7) & ~7L;
                });
    }

    @Test
    void twoMeasuredLayoutsStayApart() {
        ObjectSizes compressed = ObjectSizes.measure(layout(16, 4, 24, 16));
        ObjectSizes wide = ObjectSizes.measure(layout(24, 8, 32, 24));

        assertThat(compressed.array(ObjectSizes.REFERENCE, 10)).isEqualTo(56);   // 16 + 10 * 4, aligned
        assertThat(wide.array(ObjectSizes.REFERENCE, 10)).isEqualTo(104);        // 24 + 10 * 8
        assertThat(compressed.array(ObjectSizes.BYTE, 3)).isEqualTo(24);
        assertThat(wide.array(ObjectSizes.BYTE, 3)).isEqualTo(32);
        assertThat(compressed.string("abc")).isEqualTo(24 + 24);
        assertThat(wide.string("abc")).isEqualTo(32 + 32);
        assertThat(compressed.measured(new Object())).isEqualTo(16);
        assertThat(wide.measured(new Object())).isEqualTo(24);
        assertThat(compressed.deepArray(new int[2][3])).isEqualTo(24 + 2 * 32);
        assertThat(wide.deepArray(new int[2][3])).isEqualTo(40 + 2 * 40);

        // measuring a third layout changes neither
        ObjectSizes.measure(layout(12, 4, 16, 12));
        assertThat(compressed.array(ObjectSizes.REFERENCE, 10)).isEqualTo(56);
        assertThat(wide.array(ObjectSizes.REFERENCE, 10)).isEqualTo(104);
    }

    @Test
    void instancesOnlyMeasuresObjectsAndKeepsDefaultArrayLayouts() {
        ObjectSizes only = ObjectSizes.instancesOnly(layout(24, 8, 32, 40));
        assertThat(only.measured(new Object())).isEqualTo(40);
        assertThat(only.array(ObjectSizes.REFERENCE, 10)).isEqualTo(ObjectSizes.UNMEASURED.array(ObjectSizes.REFERENCE, 10));
        assertThat(ObjectSizes.UNMEASURED.measured(new Object())).isEqualTo(16);
    }
}
