package io.memscope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryEventTest {

    @Test
    void factoriesSetTypeAndPredicates() {
        long before = System.nanoTime();
        MemoryEvent a = MemoryEvent.allocate(0x1000, 1024, 7);
        assertThat(a.timestampNanos()).isGreaterThanOrEqualTo(before);
        assertThat(a.type()).isEqualTo(MemoryEventType.ALLOCATE);
        assertThat(a.isAllocation()).isTrue();
        assertThat(a.isDeallocation()).isFalse();
        assertThat(MemoryEvent.deallocate(0x1000, 1024, 7).isDeallocation()).isTrue();
        assertThat(MemoryEvent.move(1, 2, 3).isMove()).isTrue();
        assertThat(MemoryEvent.borrow(1, 2, 3).isBorrow()).isTrue();
        assertThat(MemoryEvent.returned(1, 2, 3).isReturn()).isTrue();
    }

    @Test
    void reallocateKeepsThePreviousSize() {
        MemoryEvent r = MemoryEvent.reallocate(0x2000, 64, 256, 1);
        assertThat(r.isAllocation()).isTrue();
        assertThat(r.isReallocation()).isTrue();
        assertThat(r.size()).isEqualTo(256);
        assertThat(r.previousSize()).isEqualTo(64);
    }

    @Test
    void withersReplaceOneFieldOnly() {
        MemoryEvent e = MemoryEvent.allocate(0x1000, 1024, 1)
                .withVariableName("buf").withTypeName("byte[]").withThreadName("main")
                .withCallStackHash(0x12345678L).withSiteId(42).withTimestamp(99);
        assertThat(e).isEqualTo(new MemoryEvent(99, MemoryEventType.ALLOCATE, 0x1000, 1024, 0, 1, "main", "buf",
                "byte[]", 0x12345678L, 42));
    }

    @Test
    void typeCodesAreStable() {
        for (MemoryEventType t : MemoryEventType.values()) {
            assertThat(MemoryEventType.ofCode(t.code())).isSameAs(t);
        }
        assertThat(MemoryEventType.REALLOCATE.code()).isEqualTo(2);
        assertThatThrownBy(() -> MemoryEventType.ofCode(6)).hasMessageContaining("6");
    }
}
