package io.memscope.events;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two copies of memscope-core in one JVM, each in its own class loader (an application server's web application
 * and a shared folder), the second of another version: one producer of the events file, the other refuses with one
 * line on stderr and a counted failure, and takes over once the first stopped.
 */
class ProducerClaimTest {
    @TempDir
    Path tmp;

    private URLClassLoader first;
    private URLClassLoader second;

    @BeforeEach
    void twoCopies() throws IOException {
        RuntimeEvents.stop(); // this test's own copy (the test class path) must not hold the JVM's file
        URL classes = RuntimeEvents.class.getProtectionDomain().getCodeSource().getLocation();
        Path otherVersion = tmp.resolve("other-version");
        Files.createDirectories(otherVersion.resolve("io/memscope"));
        Files.writeString(otherVersion.resolve("io/memscope/version.properties"), "version=9.9.9-other\n");
        first = new URLClassLoader("first", new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        second = new URLClassLoader("second", new URL[] {otherVersion.toUri().toURL(), classes},
                ClassLoader.getPlatformClassLoader());
    }

    @AfterEach
    void close() throws Exception {
        call(first, "stop");
        call(second, "stop");
        first.close();
        second.close();
        assertThat(System.getProperty(ProducerClaim.PROPERTY)).as("released").isNull();
    }

    @Test
    void theSecondCopyRefusesWhileTheFirstProducesThenTakesOver() throws Exception {
        assertThat(copy(first, "io.memscope.Memscope").getMethod("version").invoke(null)).isNotEqualTo("9.9.9-other");
        assertThat(copy(second, "io.memscope.Memscope").getMethod("version").invoke(null)).isEqualTo("9.9.9-other");

        assertThat(start(first, tmp.resolve("a"))).isTrue();
        assertThat(System.getProperty(ProducerClaim.PROPERTY)).contains("class loader first");

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        boolean secondStarted;
        boolean secondAgain;
        try {
            secondStarted = start(second, tmp.resolve("b"));
            secondAgain = start(second, tmp.resolve("b"));
        } finally {
            System.setErr(saved);
        }
        assertThat(secondStarted).isFalse();
        assertThat(secondAgain).isFalse();
        assertThat(copy(second, "io.memscope.events.RuntimeEvents").getMethod("enabled").invoke(null))
                .isEqualTo(false);
        String line = err.toString(StandardCharsets.UTF_8);
        assertThat(line.lines()).as("one line, once").hasSize(1);
        assertThat(line).startsWith("memscope: runtime events stay off for memscope-core 9.9.9-other (")
                .contains("class loader second").contains("class loader first")
                .contains("already writes this JVM's events file");
        assertThat(copy(second, "io.memscope.internal.error.Failures").getMethod("total").invoke(null))
                .as("each refusal counted").isEqualTo(2L);
        assertThat(Files.list(tmp.resolve("a")).count()).isEqualTo(1);
        assertThat(Files.exists(tmp.resolve("b"))).as("the second copy created nothing").isFalse();

        // the test's own copy is a third one: refused too, and says so in its own failure count
        assertThat(RuntimeEvents.start(EventsSettings.fromEnvironment().withDirectory(tmp.resolve("c")))).isFalse();

        call(first, "stop");
        assertThat(start(second, tmp.resolve("b"))).as("the file is free again").isTrue();
        assertThat(System.getProperty(ProducerClaim.PROPERTY)).contains("9.9.9-other").contains("class loader second");
    }

    private static boolean start(ClassLoader l, Path dir) throws Exception {
        Class<?> settings = copy(l, "io.memscope.events.EventsSettings");
        Object s = settings.getMethod("fromEnvironment").invoke(null);
        s = settings.getMethod("withDirectory", Path.class).invoke(s, dir);
        s = settings.getMethod("withSlots", int.class).invoke(s, 4);
        s = settings.getMethod("withRingSize", int.class).invoke(s, 4096);
        return (Boolean) copy(l, "io.memscope.events.RuntimeEvents").getMethod("start", settings).invoke(null, s);
    }

    private static void call(ClassLoader l, String method) throws Exception {
        copy(l, "io.memscope.events.RuntimeEvents").getMethod(method).invoke(null);
    }

    private static Class<?> copy(ClassLoader l, String name) throws ClassNotFoundException {
        Class<?> c = Class.forName(name, true, l);
        assertThat(c.getClassLoader()).isSameAs(l);
        return c;
    }
}
