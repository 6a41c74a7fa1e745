package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The malloc hooks' stack ids as the drain thread keeps them: an id defined once stands for its stack and site from
 * then on; memscope's own and undefined ids are neither recorded nor confused; ids outside 1..capacity are ignored;
 * the outstanding estimate per id adds up per (stack, site), two ids of the same stack together.
 */
class MallocStackIdsTest {
    @Test
    void anIdDefinedOnceStandsForItsStackAndSite() {
        MallocStackIds ids = new MallocStackIds();
        assertThat(ids.recorded(7)).as("not defined yet").isFalse();
        ids.define(7, 0x1234L, 42);
        ids.defineOwn(9);
        assertThat(ids.recorded(7)).isTrue();
        assertThat(ids.stack(7)).isEqualTo(0x1234L);
        assertThat(ids.site(7)).isEqualTo(42);
        assertThat(ids.recorded(9)).isFalse();
        assertThat(ids.own(9)).isTrue();
        assertThat(ids.own(7)).isFalse();
        ids.define(7, 0x1234L, 42); // the same stack sent whole again: still one id
        assertThat(ids.defined()).isEqualTo(2);
        ids.define(0, 1, 1);
        ids.define(MallocStackIds.CAPACITY + 1, 1, 1);
        assertThat(ids.recorded(0)).isFalse();
        assertThat(ids.recorded(MallocStackIds.CAPACITY + 1)).isFalse();
        assertThat(ids.defined()).isEqualTo(2);
        ids.define(MallocStackIds.CAPACITY, 5, 6);
        assertThat(ids.recorded(MallocStackIds.CAPACITY)).as("the last id").isTrue();
    }

    @Test
    void outstandingBytesAddUpPerStackAndSite() {
        MallocStackIds ids = new MallocStackIds();
        ids.define(1, 0xAAL, 3);
        ids.define(2, 0xAAL, 3); // the same stack under a second id (its first slot was emptied by a dropped record)
        ids.define(3, 0xBBL, 4);
        ids.outstanding(1, 1000);
        ids.outstanding(2, 500);
        ids.outstanding(3, 700);
        ids.outstanding(3, -700); // all freed: not in the copy
        Map<Long, long[]> into = new LinkedHashMap<>();
        ids.outstandingInto(into, (stack, site) -> stack);
        assertThat(into).containsOnlyKeys(0xAAL);
        assertThat(into.get(0xAAL)).containsExactly(1500, 3, 0xAAL);
    }
}
