package io.memscope.bench.agent.workload;

/**
 * The smallest program of the whole-process agent benchmark (memscope-bench/scripts/agent-whole-process.sh, workload
 * {@code start}; compiled for Java 17): main prints one line, holding the wall-clock time (microseconds since the
 * epoch) at which main's work ends, so that the driver can tell start-up (process start to that line) from exit
 * (that line to the process's end) from outside the JVM.
 */
public final class HelloMain {
    private HelloMain() {
    }

    public static void main(String[] args) {
        java.time.Instant now = java.time.Instant.now();
        long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
        System.out.println("MAIN_END_EPOCH_MICROS " + micros);
    }
}
