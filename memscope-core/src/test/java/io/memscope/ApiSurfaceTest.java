package io.memscope;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The size of memscope-core's public API (docs/api.md): the public types of the packages outside
 * {@code io.memscope.internal}, read from the compiled classes. A user should need a few types, as with
 * {@code jdk.jfr.consumer}; entry points for the JVM, contracts between memscope's own modules and printers belong in
 * {@code internal} or in the module that uses them. The limit counts top-level types; nested public types (a
 * listener of its owner, a record of its tracker) are listed and counted too, for the record.
 */
class ApiSurfaceTest {
    /** The most top-level public types core may export. */
    static final int MAX_TOP_LEVEL = 45;

    @Test
    void coreExportsAtMostFortyFiveTopLevelPublicTypes() throws Exception {
        Path classes = coreClasses();
        List<String> topLevel = new ArrayList<>();
        List<String> nested = new ArrayList<>();
        for (String name : classNames(classes)) {
            Class<?> c = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
            if (!Modifier.isPublic(c.getModifiers()) || c.isAnonymousClass() || c.isSynthetic()) {
                continue;
            }
            if (c.getEnclosingClass() == null) {
                topLevel.add(name);
            } else if (isReachable(c)) {
                nested.add(name);
            }
        }
        System.out.println("memscope-core's API: " + topLevel.size() + " top-level public types, " + nested.size()
                + " nested ones\n  " + String.join("\n  ", topLevel) + "\n  nested: " + String.join(", ", nested));
        assertThat(topLevel).as("the top-level public types found").contains("io.memscope.Memscope",
                "io.memscope.recording.RecordingReader");
        assertThat(topLevel).as("public types outside io.memscope.internal (at most " + MAX_TOP_LEVEL + ")")
                .hasSizeLessThanOrEqualTo(MAX_TOP_LEVEL);
    }

    @Test
    void everyPublicTypeOutsideInternalIsInAnExportedPackage() throws Exception {
        ModuleDescriptor d = ModuleFinder.of(coreClasses()).find("io.memscope.core").orElseThrow().descriptor();
        Set<String> exported = new TreeSet<>();
        d.exports().forEach(e -> exported.add(e.source()));
        for (String name : classNames(coreClasses())) {
            Class<?> c = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
            if (Modifier.isPublic(c.getModifiers()) && c.getEnclosingClass() == null) {
                assertThat(exported).as(name).contains(c.getPackageName());
            }
        }
    }

    /** A nested public type whose enclosing types are all public too (one a user can name). */
    private static boolean isReachable(Class<?> c) {
        for (Class<?> e = c.getEnclosingClass(); e != null; e = e.getEnclosingClass()) {
            if (!Modifier.isPublic(e.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    /** @return the binary names of the classes outside {@code io.memscope.internal}, sorted */
    private static List<String> classNames(Path classes) throws IOException {
        try (Stream<Path> files = Files.walk(classes.resolve("io/memscope"))) {
            return files.map(f -> classes.relativize(f).toString().replace('\\', '/'))
                    .filter(f -> f.endsWith(".class") && !f.startsWith("io/memscope/internal/"))
                    .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.'))
                    .sorted().toList();
        }
    }

    private static Path coreClasses() throws URISyntaxException {
        return Path.of(Memscope.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
