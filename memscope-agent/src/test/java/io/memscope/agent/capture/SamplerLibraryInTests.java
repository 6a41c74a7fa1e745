package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.agent.boot.BootHooks;
import java.util.Locale;

/** The sampler library loaded into the test's JVM, for tests that drive it directly. */
final class SamplerLibraryInTests {
    private SamplerLibraryInTests() {
    }

    /**
     * Loads the library, or skips the test where it is not built: Linux x86_64 only. java.lang is opened to the tests
     * by the surefire argLine (the boot hooks live there).
     */
    static void load() throws Exception {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        assumeTrue(os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                "the JVMTI sampler library is Linux x86_64 only");
        BootHooks.install(null);
        assertThat(SamplerLibrary.load()).isEmpty();
    }
}
