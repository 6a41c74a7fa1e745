package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** README.md says what the build has: its modules table names each module of the build once, in one table. */
class ReadmeTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("..").normalize();

    @Test
    void theModulesTableListsEveryModuleOnceInOneTable() throws Exception {
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertThat(modules).contains("memscope-core", "memscope-cli");

        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("\n## Modules\n");
        assertThat(start).isPositive();
        int end = readme.indexOf("\n## ", start + 1);
        String section = readme.substring(start, end < 0 ? readme.length() : end);
        List<String> lines = section.lines().toList();
        int first = -1;
        int last = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("|")) {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        List<String> listed = new ArrayList<>();
        for (int i = first; i <= last; i++) {
            String row = lines.get(i);
            assertThat(row).as("one table: no blank or other line between its rows").startsWith("|");
            Matcher name = Pattern.compile("^\\| `(memscope-[a-z]+)` \\|").matcher(row);
            if (name.find()) {
                listed.add(name.group(1));
            }
        }
        assertThat(listed).as("modules in README.md's table").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(modules);
    }
}
