package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.Recording.ProcessMemorySamples;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The process memory sampler's parsers: {@code /proc/self/status} lines into bytes and a thread count, NMT's summary
 * (as JDK 17 and JDK 25 print it) into committed bytes per category and the threads' stacks; text that is not NMT's is
 * no sample.
 */
class ProcessMemorySamplerTest {
    private static final String STATUS = "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t 9876 kB\n"
            + "VmRSS:\t  123456 kB\nRssAnon:\t  100000 kB\nRssFile:\t   23000 kB\nRssShmem:\t     456 kB\n"
            + "VmSwap:\t       0 kB\nThreads:\t19\nSigQ:\t0/95488\n";

    @Test
    void statusLinesAreBytesAndTheThreadCountIsACount() {
        byte[] b = STATUS.getBytes(StandardCharsets.US_ASCII);
        long[] out = new long[6];
        Arrays.fill(out, -1);
        ProcessMemorySampler.parseStatus(b, b.length, out);
        assertThat(out).containsExactly(123456L * 1024, 100000L * 1024, 23000L * 1024, 456L * 1024, 0, 19);
    }

    @Test
    void missingKeysStayUnknown() {
        byte[] b = "Name:\tjava\nVmRSS:\t  10 kB\n".getBytes(StandardCharsets.US_ASCII);
        long[] out = new long[6];
        Arrays.fill(out, -1);
        ProcessMemorySampler.parseStatus(b, b.length, out);
        assertThat(out).containsExactly(10240, -1, -1, -1, -1, -1);
    }

    private static final String NMT_17 = "\nNative Memory Tracking:\n\n(Omitting categories weighting less than 1KB)\n\n"
            + "Total: reserved=7862206KB, committed=507230KB\n       malloc: 29814KB #73544\n\n"
            + "-                 Java Heap (reserved=6172672KB, committed=397312KB)\n"
            + "                            (mmap: reserved=6172672KB, committed=397312KB) \n \n"
            + "-                     Class (reserved=1048855KB, committed=1815KB)\n"
            + "                            (classes #3208)\n \n"
            + "-                    Thread (reserved=19506KB, committed=818KB)\n"
            + "                            (thread #19)\n"
            + "                            (stack: reserved=19456KB, committed=768KB)\n"
            + "                            (malloc=29KB #118) (peak=35KB #111) \n \n"
            + "-                      Code (reserved=247936KB, committed=7860KB)\n"
            + "-        Shared class space (reserved=16384KB, committed=12060KB)\n";

    private static final String NMT_25_THREAD = "-                 Java Heap (reserved=6172672KB, committed=393216KB)\n"
            + "                            (mmap: reserved=6172672KB, committed=393216KB, at peak)\n\n"
            + "-                    Thread (reserved=18490KB, committed=786KB)\n"
            + "                            (threads #18)\n"
            + "                            (stack: reserved=18432KB, committed=728KB, peak=728KB)\n"
            + "                            (malloc=39KB tag=Thread #109) (peak=46KB #107)\n";

    @Test
    void nmtSummaryOfJdk17() {
        ProcessMemorySamples s = NmtSummary.parseNmt(NMT_17, 42);
        assertThat(s.parts()).containsExactly("nmt.Java Heap.committed", "nmt.Class.committed",
                "nmt.Thread.committed", "nmt.Thread.stack.committed", "nmt.Code.committed",
                "nmt.Shared class space.committed");
        assertThat(s.timestamps()).containsExactly(42);
        assertThat(s.value(0, s.part("nmt.Java Heap.committed"))).isEqualTo(397312L * 1024);
        assertThat(s.value(0, s.part("nmt.Thread.stack.committed"))).isEqualTo(768L * 1024);
    }

    @Test
    void nmtSummaryOfJdk25() {
        ProcessMemorySamples s = NmtSummary.parseNmt(NMT_25_THREAD, 7);
        assertThat(s.value(0, s.part("nmt.Thread.stack.committed"))).isEqualTo(728L * 1024);
        assertThat(s.value(0, s.part("nmt.Java Heap.committed"))).isEqualTo(393216L * 1024);
    }

    @Test
    void textThatIsNotNmtIsNoSample() {
        assertThat(NmtSummary.parseNmt("Native memory tracking is not enabled\n", 1)).isNull();
        assertThat(NmtSummary.parseNmt(null, 1)).isNull();
    }
}
