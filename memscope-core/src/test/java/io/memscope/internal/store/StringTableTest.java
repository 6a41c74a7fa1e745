package io.memscope.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class StringTableTest {

    @Test
    void internsToDenseIdsWithZeroForNull() {
        StringTable t = new StringTable();
        assertThat(t.intern(null)).isZero();
        assertThat(t.get(0)).isNull();
        int a = t.intern("main");
        int b = t.intern("byte[]");
        assertThat(a).isEqualTo(1);
        assertThat(b).isEqualTo(2);
        assertThat(t.intern(new String("main"))).isEqualTo(a);
        assertThat(t.get(b)).isEqualTo("byte[]");
        assertThat(t.size()).isEqualTo(3);
        assertThatThrownBy(() -> t.get(3)).hasMessageContaining("unknown string id 3");
    }

    @Test
    @Timeout(30)
    void concurrentInterningGivesOneIdPerString() throws Exception {
        StringTable t = new StringTable();
        int threads = 4;
        int strings = 20_000;
        ConcurrentHashMap<String, Integer> seen = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int k = 0; k < threads; k++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < strings; i++) {
                        String s = "s" + i;
                        int id = t.intern(s);
                        Integer prev = seen.putIfAbsent(s, id);
                        if (prev != null && prev != id) {
                            throw new AssertionError(s + " got " + id + " and " + prev);
                        }
                        if (!s.equals(t.get(id))) {
                            throw new AssertionError("get(" + id + ") != " + s);
                        }
                    }
                } catch (Throwable e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            ts.add(th);
            th.start();
        }
        start.countDown();
        for (Thread th : ts) {
            th.join();
        }
        assertThat(errors).isEmpty();
        assertThat(t.size()).isEqualTo(strings + 1);
    }

    @Test
    void namesBeyondTheLimitGetOnePlaceholderAndAreCountedWhileTheRecordingsOwnStringsNeverAre() {
        StringTable t = new StringTable();
        t.limit(4); // ids 0..3
        int a = t.internName("thread-a");
        int b = t.internName("thread-b");
        int c = t.internName("thread-c");
        assertThat(new int[] {a, b, c}).containsExactly(1, 2, 3);
        int d = t.internName("thread-d");
        int e = t.internName("thread-e");
        assertThat(d).isEqualTo(e).isEqualTo(4);
        assertThat(t.get(d)).isEqualTo(StringTable.BEYOND_BOUND);
        assertThat(t.refused()).isEqualTo(2);
        assertThat(t.internName("thread-b")).as("names held keep their id").isEqualTo(b);
        int key = t.intern("bounds.stringsRefused");
        assertThat(t.get(key)).as("never refused").isEqualTo("bounds.stringsRefused");
        assertThat(t.refused()).isEqualTo(2);
        assertThat(t.internName(null)).isZero();
    }
}
