package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A child JVM that writes a recording and is killed mid-way, for the killed-writer tests. */
final class KilledChild {
    private KilledChild() {
    }

    /**
     * Starts {@code main} in a child JVM with this test's class path and {@code file} as its argument, reads its
     * stdout line by line until {@code enough} returns true (or the child ends), then kills it with
     * {@code destroyForcibly} and waits for it to be gone.
     */
    static void runUntilKilled(String maxHeap, Class<?> main, Path file, Predicate<String> enough) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx" + maxHeap, "-cp", System.getProperty("java.class.path"),
                main.getName(), file.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !enough.test(line)) {
                // keep reading progress lines
            }
            p.destroyForcibly();        // mid-way: the child is still writing
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
    }
}
