package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md is the map of the code: every top-level class, interface, record, enum and annotation type
 * under a module's {@code src/main/java} is named there at least once (as a whole word), so that a reader finds
 * each production class from the map. Modules are the ones pom.xml lists.
 */
class ArchitectureDocTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("..").normalize();

    /** A top-level declaration: unindented, modifiers, then the kind and the name. */
    private static final Pattern TOP_LEVEL = Pattern.compile(
            "^(?:(?:public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\\s+)*"
                    + "(?:class|interface|record|enum|@interface)\\s+([A-Za-z_$][A-Za-z0-9_$]*)",
            Pattern.MULTILINE);

    @Test
    void everyProductionClassIsNamedInTheArchitectureDoc() throws IOException {
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertThat(modules).as("the build's modules").contains("memscope-core", "memscope-agent", "memscope-cli");

        Set<String> declared = new TreeSet<>();
        for (String module : modules) {
            Path sources = ROOT.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(sources)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher d = TOP_LEVEL.matcher(Files.readString(file));
                    while (d.find()) {
                        declared.add(d.group(1));
                    }
                }
            }
        }
        assertThat(declared).as("top-level types found").contains("Agent", "ReportBuilder", "Main", "AgentOptions");

        String doc = Files.readString(ROOT.resolve("docs/architecture.md"));
        List<String> missing = new ArrayList<>();
        for (String name : declared) {
            if (!Pattern.compile("(?<![A-Za-z0-9_$])" + Pattern.quote(name) + "(?![A-Za-z0-9_$])").matcher(doc).find()) {
                missing.add(name);
            }
        }
        assertThat(missing).as("production classes docs/architecture.md does not name (%d of %d)",
                missing.size(), declared.size()).isEmpty();
    }
}
