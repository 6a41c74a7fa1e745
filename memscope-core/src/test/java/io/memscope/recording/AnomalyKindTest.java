package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AnomalyKindTest {
    @Test
    void everyKindHasOneRecordedNameAndUnknownNamesAreKeptAsOther() {
        Set<String> names = new HashSet<>();
        for (Anomaly.Kind k : Anomaly.Kind.values()) {
            if (k != Anomaly.Kind.OTHER) {
                assertThat(names.add(k.wireName())).as(k.name()).isTrue();
                assertThat(Anomaly.Kind.of(k.wireName())).isEqualTo(k);
            }
        }
        assertThat(names).contains("double-free", "unknown-free", "scope-out-of-order", "scope-stale-close",
                "scope-foreign-close", "pool-leak", "pool-double-return", "pool-unknown-return");
        Anomaly future = new Anomaly("arena-overflow", 1, 0, 0, 0, 0, null);
        assertThat(future.type()).isEqualTo(Anomaly.Kind.OTHER);
        assertThat(future.kind()).as("the raw name stays").isEqualTo("arena-overflow");
        assertThat(Anomaly.Kind.of(null)).isEqualTo(Anomaly.Kind.OTHER);
    }

    @Test
    void theApiKindsAreScopesAndPools() {
        assertThat(new Anomaly("pool-leak", 1, 0, 0, 0, 0, "db").type().api()).isTrue();
        assertThat(Anomaly.Kind.SCOPE_FOREIGN_CLOSE.api()).isTrue();
        assertThat(Anomaly.Kind.DOUBLE_FREE.api()).isFalse();
        assertThat(Anomaly.Kind.OTHER.api()).isFalse();
        assertThat(Anomaly.Kind.of("pool-something-new").api()).as("not matched by prefix").isFalse();
    }
}
