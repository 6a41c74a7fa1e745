package io.memscope.agent.jmx;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanOperationInfo;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;
import javax.management.openmbean.ArrayType;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import org.junit.jupiter.api.Test;

/**
 * The rows {@link AgentMXBean} returns are a contract: {@code memscope live}/{@code top}, memscope-junit,
 * memscope-micrometer and JMX tools read their {@code CompositeData} items by name. Item names and open types are
 * pinned here as the JVM's MXBean mapping derives them from the interface (the composite type's own name may change).
 */
class AgentRowsTest {
    private static final Map<String, OpenType<?>> SITE = items(
            "site", SimpleType.STRING, "type", SimpleType.STRING,
            "liveBytes", SimpleType.LONG, "liveObjects", SimpleType.LONG, "liveSamples", SimpleType.LONG,
            "allocatedBytes", SimpleType.LONG, "allocatedObjects", SimpleType.LONG, "samples", SimpleType.LONG,
            "heldBytes", SimpleType.LONG, "heldObjects", SimpleType.LONG, "unconfirmedBytes", SimpleType.LONG,
            "allocationRate", SimpleType.LONG);

    private static final Map<String, OpenType<?>> HELD = items(
            "site", SimpleType.STRING, "type", SimpleType.STRING, "bytes", SimpleType.LONG,
            "objects", SimpleType.LONG, "samples", SimpleType.LONG, "unconfirmedBytes", SimpleType.LONG,
            "unconfirmedSamples", SimpleType.LONG, "stack", stringArray());

    private static final Map<String, OpenType<?>> GC = items(
            "name", SimpleType.STRING, "action", SimpleType.STRING, "cause", SimpleType.STRING,
            "startMillis", SimpleType.LONG, "durationMillis", SimpleType.LONG, "pause", SimpleType.BOOLEAN,
            "heapUsedBeforeBytes", SimpleType.LONG, "heapUsedAfterBytes", SimpleType.LONG,
            "examined", SimpleType.STRING);

    @Test
    void gcRowsKeepTheirItemNamesAndTypes() throws Exception {
        assertThat(rowItems("gcSince")).isEqualTo(GC);
    }

    @Test
    void siteRowsKeepTheirItemNamesAndTypes() throws Exception {
        for (String op : new String[] {"topSitesByLiveBytes", "topSitesByAllocatedBytes", "topSitesByHeldBytes",
                "topSitesByAllocationRate"}) {
            assertThat(rowItems(op)).as(op).isEqualTo(SITE);
        }
    }

    @Test
    void heldRowsKeepTheirItemNamesAndTypes() throws Exception {
        for (String op : new String[] {"heldSince", "nativeOutstandingSince"}) {
            assertThat(rowItems(op)).as(op).isEqualTo(HELD);
        }
    }

    /** @return item name to open type of the rows operation {@code op} returns (an array of composites) */
    private static Map<String, OpenType<?>> rowItems(String op) throws NotCompliantMBeanException {
        AgentMXBean nothing = (AgentMXBean) Proxy.newProxyInstance(AgentMXBean.class.getClassLoader(),
                new Class<?>[] {AgentMXBean.class}, (p, m, a) -> null);
        StandardMBean bean = new StandardMBean(nothing, AgentMXBean.class, true);
        for (MBeanOperationInfo info : bean.getMBeanInfo().getOperations()) {
            if (info.getName().equals(op)) {
                OpenType<?> returned = (OpenType<?>) info.getDescriptor().getFieldValue("openType");
                assertThat(returned).isInstanceOf(ArrayType.class);
                CompositeType row = (CompositeType) ((ArrayType<?>) returned).getElementOpenType();
                Map<String, OpenType<?>> out = new TreeMap<>();
                for (String item : row.keySet()) {
                    out.put(item, row.getType(item));
                }
                return out;
            }
        }
        throw new AssertionError("no operation " + op);
    }

    private static Map<String, OpenType<?>> items(Object... nameThenType) {
        Map<String, OpenType<?>> out = new TreeMap<>();
        for (int i = 0; i < nameThenType.length; i += 2) {
            out.put((String) nameThenType[i], (OpenType<?>) nameThenType[i + 1]);
        }
        return out;
    }

    private static ArrayType<String[]> stringArray() {
        try {
            return ArrayType.getArrayType(SimpleType.STRING);
        } catch (javax.management.openmbean.OpenDataException e) {
            throw new AssertionError(e);
        }
    }
}
