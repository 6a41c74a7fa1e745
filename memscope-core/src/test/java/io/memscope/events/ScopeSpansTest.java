package io.memscope.events;

import io.memscope.scope.ScopeSnapshot;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.Memscope;
import io.memscope.scope.MemoryScope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Scopes appear as spans on their thread's track in the event rings (memscope trace) while the rings run. */
@Timeout(60)
class ScopeSpansTest {
    /** Names read from fields: a string literal's first use allocates its String (inside the scope). */
    static final String OUTER;
    static final String INNER;

    static {
        OUTER = "spans-outer";
        INNER = "inner";
    }

    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        RuntimeEvents.stop();
    }

    @Test
    void scopesAreSpansOfTheirPathWithoutChangingTheirAllocatedBytes() throws Exception {
        EventsSettings settings = EventsSettings.fromMap(java.util.Map.of()).withDirectory(tmp.resolve("ev"))
                .withRingSize(1 << 16).withSlots(4).withPreserve(true);
        assertThat(RuntimeEvents.start(settings)).isTrue();
        Thread t = new Thread(() -> {
            // a fresh thread: its first span claims a ring slot (memscope's own allocation, inside "spans-outer")
            for (int i = 0; i < 3; i++) {
                try (MemoryScope outer = Memscope.scope(OUTER)) {
                    try (MemoryScope inner = Memscope.scope(INNER)) {
                        inner.path();
                    }
                }
            }
        }, "scoped-thread");
        t.start();
        t.join();
        List<String> lines = new ArrayList<>();
        List<Long> threads = new ArrayList<>();
        try (EventCursor c = EventCursor.open(RuntimeEvents.file())) {
            c.poll(new EventCursor.Callbacks() {
                @Override
                public void spanBegin(long tid, long ts, String name) {
                    lines.add("begin " + name);
                    threads.add(tid);
                }

                @Override
                public void spanEnd(long tid, long ts, String name) {
                    lines.add("end " + name);
                    threads.add(tid);
                }
            });
        }
        List<String> once = List.of("begin scope/spans-outer", "begin scope/spans-outer/inner",
                "end scope/spans-outer/inner", "end scope/spans-outer");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            expected.addAll(once);
        }
        assertThat(lines).containsExactlyElementsOf(expected);
        assertThat(threads).containsOnly(t.getId());
        ScopeSnapshot.PathStats outer = Memscope.scopes().path("spans-outer");
        assertThat(outer.entries()).isEqualTo(3);
        assertThat(outer.allocatedBytes()).isZero();
    }
}
