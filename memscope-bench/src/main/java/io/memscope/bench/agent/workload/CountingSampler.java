package io.memscope.bench.agent.workload;

import com.google.monitoring.runtime.instrumentation.AllocationRecorder;
import com.google.monitoring.runtime.instrumentation.Sampler;
import java.util.concurrent.atomic.LongAdder;

/** The cheapest useful sampler for Google's java-allocation-instrumenter: counts allocations and bytes. */
final class CountingSampler implements Sampler {
    private static final LongAdder COUNT = new LongAdder();
    private static final LongAdder BYTES = new LongAdder();

    private CountingSampler() {
    }

    static Object install() {
        CountingSampler s = new CountingSampler();
        AllocationRecorder.addSampler(s);
        return s;
    }

    static long count() {
        return COUNT.sum();
    }

    @Override
    public void sampleAllocation(int count, String desc, Object newObj, long size) {
        COUNT.increment();
        BYTES.add(size);
    }
}
