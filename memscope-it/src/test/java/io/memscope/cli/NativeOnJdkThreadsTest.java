package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.HttpClientFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native memory that JDK code allocates on its own threads (the HttpClient's selector reading sockets through the
 * channels' temporary direct buffers): no application frame is on those stacks, and each block is still named after a
 * real frame with a line, not a placeholder.
 */
class NativeOnJdkThreadsTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void blocksAllocatedByJdkCodeAloneAreNamedAfterAFrameWithALine(@TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--gc-at-end"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(HttpClientFixture.class), HttpClientFixture.class.getName(), "20"));
        assertThat(code).isZero();
        Recording r = RecordingReader.read(Reports.recordingDirs(out).get(0).resolve("recording.msrec"));
        List<Site> nativeSites = r.sites().values().stream().filter(Site::isNative).toList();
        assertThat(nativeSites).as("the client's and the server's socket buffers").isNotEmpty();
        assertThat(nativeSites).allSatisfy(s -> {
            assertThat(s.frame()).as("named after a real frame").doesNotStartWith("jdk.internal(");
            assertThat(s.line()).as("%s has a line", s.frame()).isPositive();
        });
        assertThat(nativeSites).as("some of them allocated on the JDK's own threads, named after JDK code")
                .anySatisfy(s -> assertThat(s.className()).startsWith("jdk.internal.net.http."));
    }
}
