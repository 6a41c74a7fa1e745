package io.memscope.pool;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Two pool registries in one JVM share nothing: the same name gives each its own tracker, with its own leases,
 * counts and leaks, and neither registry lists the other's pools (nor the process-wide registry's).
 */
class PoolRegistryTwoInstancesTest {
    static volatile Object sink;

    @Test
    void twoRegistriesKeepTheirOwnPools() throws InterruptedException {
        PoolRegistry first = new PoolRegistry(false);
        PoolRegistry second = new PoolRegistry(false);
        PoolTracker a = first.of("db");
        PoolTracker b = second.of("db");

        assertThat(a).isNotSameAs(b);
        assertThat(first.of("db")).isSameAs(a);
        assertThat(second.of("db")).isSameAs(b);
        assertThat(PoolTracker.of("db")).isNotSameAs(a).isNotSameAs(b);

        Object connection = new Object();
        PoolTracker.Lease lease = a.borrow(connection, 100);
        assertThat(a.stats().outstanding()).isEqualTo(1);
        assertThat(b.stats().outstanding()).isZero();
        assertThat(b.release(connection)).as("the second registry's pool never lent it").isFalse();
        assertThat(b.stats().unknownReturns()).isEqualTo(1);
        assertThat(a.stats().unknownReturns()).isZero();
        lease.release();

        borrowAndDrop(b);
        PoolTrackerTest.awaitLeaks(b, 1);
        assertThat(a.stats().leaks()).isZero();

        second.of("cache");
        assertThat(first.all()).containsExactly(a);
        assertThat(second.all()).extracting(PoolTracker::name).containsExactly("cache", "db");
        assertThat(PoolTracker.all()).doesNotContain(a, b);
    }

    private static void borrowAndDrop(PoolTracker p) {
        p.borrow(new byte[64], 64);
    }
}
