package io.memscope.accounting;

import io.memscope.internal.accounting.AccountingJmx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(30)
class AccountingJmxTest {
    @Test
    void everyTableReadsBackThroughThePlatformMBeanServer() throws Exception {
        MemoryAccounting acct = new MemoryAccounting();
        Instrument cache = acct.instrument("memory/jmx/cache");
        Instrument pool = acct.globalInstrument("memory/jmx/pool");
        try (OwnerScope s = acct.scope("alice", "h1")) {
            acct.alloc(cache, 123);
        }
        acct.alloc(pool, 77);
        acct.alloc(cache, 5); // a thread row (the scope's rows went to alice@h1 when it closed)
        String name = "io.memscope.test:type=Accounting,name=readBack";
        assertThat(AccountingJmx.register(acct, name)).isTrue();
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName on = new ObjectName(name);
        try {
            for (SummaryTable t : SummaryTable.values()) {
                String attribute = t.name().charAt(0) + t.name().substring(1).toLowerCase(java.util.Locale.ROOT) + "Table";
                CompositeData[] data = (CompositeData[]) server.getAttribute(on, attribute);
                assertThat(AccountingJmx.toRows(data)).as(attribute).isEqualTo(acct.summary(t)).isNotEmpty();
            }
            CompositeData[] global = (CompositeData[]) server.getAttribute(on, "GlobalTable");
            CompositeData row = global[0];
            assertThat(row.getCompositeType().getTypeName()).isEqualTo(AccountingJmx.ROW_TYPE);
            assertThat(row.get("EVENT_NAME")).isEqualTo("memory/jmx/cache");
            assertThat(row.get("CURRENT_NUMBER_OF_BYTES_USED")).isEqualTo(128L);
            assertThat((String[]) server.getAttribute(on, "InstrumentNames"))
                    .containsExactly("memory/jmx/cache", "memory/jmx/pool");
            server.invoke(on, "truncate", new Object[0], new String[0]);
            SummaryRow afterTruncate = AccountingJmx.toRows((CompositeData[]) server.getAttribute(on, "UserTable")).get(0);
            assertThat(afterTruncate.get(Column.COUNT_ALLOC)).isEqualTo(1);
            assertThat(afterTruncate.lowBytes()).isEqualTo(123);
            assertThat(afterTruncate.highBytes()).isEqualTo(123);
        } finally {
            server.unregisterMBean(on);
        }
    }

    @Test
    void theProcessRegistryRegistersItselfUnderTheWellKnownName() throws Exception {
        MemoryAccounting g = MemoryAccounting.global();
        assertThat(MemoryAccounting.global()).isSameAs(g);
        assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(new ObjectName(AccountingJmx.OBJECT_NAME))).isTrue();
    }
}
