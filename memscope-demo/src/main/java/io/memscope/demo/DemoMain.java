package io.memscope.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the bundled demo workloads, one after the other. Each workload is a small class with one memory problem
 * (and, where there is one, its fix next to it), so that a report can be checked to name the right site.
 *
 * <p>Usage: {@code DemoMain [workload...]}; no argument runs them all.
 */
public final class DemoMain {

    /**
     * Every workload, in the order they run; add new ones here. The leak runs last, as a real leak grows until the
     * application ends: a heap site is judged a leak suspect only when it is seen growing between whole-heap
     * collections spread over its allocation window up to the end of the run, so a leak that stopped growing long
     * before the end is (rightly) not one.
     */
    static final List<Workload> WORKLOADS = List.of(
            new StringConcatWorkload(),
            new DirectBufferLeakWorkload(),
            new TenantCacheWorkload(),
            new ScopedRequestsWorkload(),
            new LeakyCacheWorkload());

    private DemoMain() {
    }

    public static void main(String[] args) throws Exception {
        List<Workload> selected = new ArrayList<>();
        for (Workload w : WORKLOADS) {
            if (args.length == 0 || List.of(args).contains(w.name())) {
                selected.add(w);
            }
        }
        if (selected.isEmpty()) {
            System.err.println("demo: no workload named " + List.of(args) + "; known: "
                    + WORKLOADS.stream().map(Workload::name).toList());
            System.exit(2);
        }
        for (Workload w : selected) {
            System.out.println("demo: running " + w.name() + " - " + w.description());
            long t0 = System.nanoTime();
            w.run();
            System.out.printf("demo: %s done in %d ms%n", w.name(), (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** One demo workload. */
    public interface Workload {
        /** Short name used on the command line, for example {@code leaky-cache}. */
        String name();

        /** One line saying what problem this workload shows. */
        String description();

        void run() throws Exception;
    }
}
