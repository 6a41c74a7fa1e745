package io.memscope.internal.error;

import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;
import com.acme.lib.StrictSwitch;

import java.net.URL;
import java.net.URLClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @BeforeEach
    @AfterEach
    void clean() {
        Failures.setStrict(false);
        Failures.reset();
    }

    @Test
    void countsByCategoryAndKeepsMessagesWithoutThrowing() {
        Failures.report("agent.sampler", MemscopeException.memory("double free of 0x10"));
        Failures.report("agent.sampler", new IllegalStateException("bug"));
        Failures.report("rings", MemscopeException.system("mmap failed", null));

        assertThat(Failures.count(MemscopeException.Category.MEMORY)).isEqualTo(1);
        assertThat(Failures.count(MemscopeException.Category.INTERNAL)).isEqualTo(1);
        assertThat(Failures.count(MemscopeException.Category.SYSTEM)).isEqualTo(1);
        assertThat(Failures.total()).isEqualTo(3);
        assertThat(Failures.messages()).hasSize(3).first().asString().contains("agent.sampler").contains("double free");
    }

    @Test
    void keepsOnlyTheFirstMessagesButCountsAll() {
        for (int i = 0; i < Failures.KEPT + 10; i++) {
            Failures.report("x", MemscopeException.memory("n" + i));
        }
        assertThat(Failures.count(MemscopeException.Category.MEMORY)).isEqualTo(Failures.KEPT + 10);
        assertThat(Failures.messages()).hasSize(Failures.KEPT);
    }

    @Test
    void strictModeThrowsTheFailure() {
        Failures.setStrict(true);
        MemscopeException e = MemscopeException.configuration("bad option 'intervall'");
        assertThatThrownBy(() -> Failures.report("agent.options", e)).isSameAs(e);
        assertThatThrownBy(() -> Failures.report("x", new Exception("checked")))
                .isInstanceOf(MemscopeException.class)
                .hasMessageContaining("checked")
                .satisfies(t -> assertThat(((MemscopeException) t).category()).isEqualTo(MemscopeException.Category.INTERNAL));
    }

    @Test
    void aLibraryCannotSwitchStrictModeOn() {
        assertThatThrownBy(StrictSwitch::turnOn).isInstanceOf(IllegalCallerException.class)
                .hasMessageContaining("com.acme.lib.StrictSwitch").hasMessageContaining("-Dmemscope.strict=true");
        assertThat(Failures.isStrict()).isFalse();
        Failures.report("x", new IllegalStateException("still counted, not thrown"));
        assertThat(Failures.total()).isEqualTo(1);
    }

    @Test
    void strictModeFromTheSystemPropertyReadOnceAtStart() throws Exception {
        String before = System.getProperty("memscope.strict");
        System.setProperty("memscope.strict", "true");
        try (URLClassLoader fresh = new URLClassLoader(
                new URL[] {Failures.class.getProtectionDomain().getCodeSource().getLocation()},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> copy = fresh.loadClass(Failures.class.getName());
            assertThat(copy).isNotSameAs(Failures.class);
            assertThat(copy.getMethod("isStrict").invoke(null)).isEqualTo(true);
            System.setProperty("memscope.strict", "false");
            assertThat(copy.getMethod("isStrict").invoke(null)).as("read once").isEqualTo(true);
        } finally {
            if (before == null) {
                System.clearProperty("memscope.strict");
            } else {
                System.setProperty("memscope.strict", before);
            }
        }
    }

    @Test
    void exceptionsCarryCategorySeverityAndRecoverability() {
        assertThat(MemscopeException.memory("m").recoverable()).isTrue();
        assertThat(MemscopeException.configuration("c").severity()).isEqualTo(MemscopeException.Severity.HIGH);
        assertThat(MemscopeException.internal("i", null).severity()).isEqualTo(MemscopeException.Severity.CRITICAL);
        CorruptFileException c = new CorruptFileException("a.msrec", 1234, "bad CRC");
        assertThat(c.offset()).isEqualTo(1234);
        assertThat(c.getMessage()).isEqualTo("a.msrec: at offset 1234: bad CRC");
        assertThat(c.category()).isEqualTo(MemscopeException.Category.EXPORT);
    }
}
