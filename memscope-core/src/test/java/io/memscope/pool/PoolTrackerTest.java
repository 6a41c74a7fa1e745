package io.memscope.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.error.MemscopeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

class PoolTrackerTest {
    static volatile Object sink;

    static void awaitLeaks(PoolTracker p, long n) throws InterruptedException {
        await(n + " leaks found by the pool tracker").atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
                    System.gc();
                    assertThat(p.stats().leaks()).as("leaks").isGreaterThanOrEqualTo(n);
                });
    }

    @Test
    void borrowsAndReturnsAreCounted() {
        PoolTracker p = PoolTracker.create("buffers");
        Object r1 = new Object();
        Object r2 = new Object();
        PoolTracker.Lease a = p.borrow(r1, 100);
        PoolTracker.Lease b = p.borrow(r2, 50);
        assertThat(p.stats().outstanding()).isEqualTo(2);
        assertThat(p.stats().outstandingBytes()).isEqualTo(150);
        a.release();
        assertThat(a.released()).isTrue();
        assertThat(p.release(r2)).isTrue(); // by resource
        assertThat(b.released()).isTrue();
        PoolTracker.Lease c = p.borrow(r1, 10);
        c.release();
        PoolTracker.Stats s = p.stats();
        assertThat(s.borrows()).isEqualTo(3);
        assertThat(s.returns()).isEqualTo(3);
        assertThat(s.outstanding()).isZero();
        assertThat(s.outstandingBytes()).isZero();
        assertThat(s.peakOutstanding()).isEqualTo(2);
        assertThat(s.peakOutstandingBytes()).isEqualTo(150);
        assertThat(s.maxLeaseNanos()).isBetween(0L, s.totalLeaseNanos());
        assertThat(s.doubleReturns() + s.unknownReturns() + s.leaks()).isZero();
    }

    @Test
    void returningTwiceIsADoubleReturnAndAStrangerAnUnknownOne() {
        PoolTracker p = PoolTracker.create("db");
        Object conn = new Object();
        PoolTracker.Lease l = p.borrow(conn, 0);
        l.release();
        l.release();                      // the lease twice
        assertThat(p.release(conn)).isFalse(); // its resource after it came back
        assertThat(p.release(new Object())).isFalse(); // never lent
        PoolTracker.Stats s = p.stats();
        assertThat(s.returns()).isEqualTo(1);
        assertThat(s.doubleReturns()).isEqualTo(2);
        assertThat(s.unknownReturns()).isEqualTo(1);
    }

    @Test
    void aLeaseLostWhileBorrowedIsALeakWithItsBorrowingStack() throws Exception {
        PoolTracker p = PoolTracker.create("connections");
        Object pooled = new Object(); // the pool keeps its resource: only the lease can be lost
        borrowAndForget(p, pooled);
        PoolTracker.Lease kept = p.borrow(new Object(), 8);
        awaitLeaks(p, 1);
        List<PoolTracker.Leak> leaks = p.leaks();
        assertThat(leaks).hasSize(1);
        PoolTracker.Leak leak = leaks.get(0);
        assertThat(leak.kind()).isEqualTo(PoolTracker.Leak.Kind.UNREACHABLE);
        assertThat(leak.pool()).isEqualTo("connections");
        assertThat(leak.size()).isEqualTo(64);
        assertThat(leak.resourceType()).isEqualTo("java.lang.Object");
        assertThat(leak.stack().get(0)).startsWith(PoolTrackerTest.class.getName() + ".borrowAndForget(PoolTrackerTest.java:");
        assertThat(leak.threadName()).isEqualTo(Thread.currentThread().getName());
        PoolTracker.Stats s = p.stats();
        assertThat(s.leaks()).isEqualTo(1);
        assertThat(s.leakedBytes()).isEqualTo(64);
        assertThat(s.outstanding()).isEqualTo(1);
        assertThat(p.outstanding()).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo(PoolTracker.Leak.Kind.NOT_RETURNED);
            assertThat(o.leaseId()).isEqualTo(kept.id());
        });
        kept.release();
        sink = pooled;
    }

    static void borrowAndForget(PoolTracker p, Object resource) {
        p.borrow(resource, 64);
    }

    /** A resource that holds its own lease (a connection proxy) must not keep the lease reachable from the tracker. */
    @Test
    void aResourceHoldingItsLeaseIsStillFoundWhenBothAreLost() throws Exception {
        PoolTracker p = PoolTracker.create("proxies");
        for (int i = 0; i < 3; i++) {
            Proxy proxy = new Proxy();
            proxy.lease = p.borrow(proxy, 1);
        }
        awaitLeaks(p, 3);
        assertThat(p.leaks()).hasSize(3);
    }

    static final class Proxy {
        PoolTracker.Lease lease;
    }

    @Test
    void aResourceKeptAliveByItsHolderIsNotALeak() throws Exception {
        PoolTracker p = PoolTracker.create("held");
        List<PoolTracker.Lease> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            held.add(p.borrow(new byte[16], 16));
        }
        for (int i = 0; i < 5; i++) {
            System.gc();
        }
        assertThat(p.stats().leaks()).isZero();
        assertThat(p.outstanding()).hasSize(10);
        held.forEach(PoolTracker.Lease::release);
        assertThat(p.outstanding()).isEmpty();
    }

    @Test
    void stacksCanBeTurnedOff() {
        PoolTracker p = PoolTracker.create("nostacks").stackDepth(0);
        PoolTracker.Lease l = p.borrow("r", 1);
        assertThat(p.outstanding().get(0).stack()).isEmpty();
        l.release();
    }

    @Test
    void poolsAreRegisteredByNameAndBadNamesAreConfigurationErrors() {
        assertThat(PoolTracker.of("registered-pool")).isSameAs(PoolTracker.of("registered-pool"));
        assertThat(PoolTracker.all()).contains(PoolTracker.of("registered-pool"));
        assertThatThrownBy(() -> PoolTracker.of("")).isInstanceOf(MemscopeException.class);
        assertThatThrownBy(() -> PoolTracker.of(null)).isInstanceOf(MemscopeException.class);
        assertThatThrownBy(() -> PoolTracker.of("x".repeat(201))).isInstanceOf(MemscopeException.class)
                .hasMessageContaining("1 to 200 characters");
    }
}
