package io.memscope.junit.agent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Line numbers of marked lines in the fixtures' sources (so that tests name sites without hard-coded lines). */
final class FixtureSource {
    private FixtureSource() {
    }

    static int lineOf(String fixture, String marker) throws Exception {
        List<String> lines = Files.readAllLines(Path.of("src/test/java/memscope/fixtures/" + fixture + ".java"));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i + 1;
            }
        }
        throw new IllegalStateException(marker + " not found in " + fixture);
    }
}
