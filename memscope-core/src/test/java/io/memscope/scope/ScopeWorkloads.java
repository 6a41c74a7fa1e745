package io.memscope.scope;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Workloads whose allocated bytes the tests know exactly. No string literal here (the names are in {@link Names}):
 * HotSpot turns a class's unused string literals into Strings on the thread that triggers a C2 compilation of one
 * of its methods, which inside a scope would be bytes the test did not plan (see {@link ScopeText}).
 */
final class ScopeWorkloads {
    /** Keeps allocations from being eliminated by escape analysis. */
    static volatile Object sink;

    private ScopeWorkloads() {
    }

    static void allocate(int arrays, int bytes) {
        for (int i = 0; i < arrays; i++) {
            sink = new byte[bytes];
        }
    }

    /** Three arrays of 1000 bytes in outer, two of 24 in outer/inner, nothing in the scopes named empty. */
    static void nested(ScopeTracker t, int rounds) {
        for (int round = 0; round < rounds; round++) {
            try (MemoryScope outer = t.enter(Names.OUTER)) {
                allocate(3, 1000);
                try (MemoryScope inner = t.enter(Names.INNER)) {
                    allocate(2, 24);
                    try (MemoryScope empty = t.enter(Names.EMPTY)) {
                        sink = null;
                    }
                }
                try (MemoryScope empty = t.enter(Names.EMPTY)) {
                    sink = null;
                }
            }
        }
    }

    /**
     * Per round: request on this thread (its submitting work in request/submit), 4 tasks on the pool in request, each
     * two arrays of {@code bytes}, and one more in request/parse.
     */
    static void request(ScopeTracker t, ExecutorService pool, int rounds, int bytes) throws Exception {
        for (int round = 0; round < rounds; round++) {
            try (MemoryScope request = t.enter(Names.REQUEST)) {
                try (MemoryScope submit = t.enter(Names.SUBMIT)) {
                    List<Future<?>> done = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        done.add(pool.submit(request.wrap(() -> {
                            allocate(2, bytes);
                            try (MemoryScope parse = t.enter(Names.PARSE)) {
                                allocate(1, bytes);
                            }
                        })));
                    }
                    for (Future<?> f : done) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                }
            }
        }
    }

    /** Nested scopes that allocate nothing, {@code loops} times. */
    static void empty(ScopeTracker t, int loops) {
        for (int j = 0; j < loops; j++) {
            try (MemoryScope a = t.enter(Names.A)) {
                try (MemoryScope b = t.enter((j & 1) == 0 ? Names.EVEN : Names.ODD)) {
                    sink = null;
                }
            }
        }
    }

    static final class Names {
        static final String OUTER;
        static final String INNER;
        static final String EMPTY;
        static final String REQUEST;
        static final String SUBMIT;
        static final String PARSE;
        static final String A;
        static final String EVEN;
        static final String ODD;

        static {
            OUTER = "outer";
            INNER = "inner";
            EMPTY = "empty";
            REQUEST = "request";
            SUBMIT = "submit";
            PARSE = "parse";
            A = "a";
            EVEN = "even";
            ODD = "odd";
        }

        private Names() {
        }
    }
}
