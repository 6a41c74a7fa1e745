package io.memscope.cli;

import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.Retention;
import io.memscope.analysis.SiteProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * {@code memscope top}'s answer to "why is it held" (key {@code w}): the agent walks the heap now (its MXBean's
 * {@code walkHeap}), writes the paths into its recording, and the recording is read back here; each site's main path
 * from a GC root, keyed by site and type, for the rows of the view.
 *
 * @param walk  the agent's one-line account of the walk (what it reached, its pause)
 * @param paths the main path of each site it reached, as one line ({@code root -> step -> ...}), by
 *              {@link Retention#key}
 */
record TopPaths(String walk, Map<String, String> paths) {
    static final TopPaths NONE = new TopPaths(null, Map.of());

    /** Walks the heap of the JVM behind {@code agent} and reads back the paths. */
    static TopPaths walk(MBeanServerConnection server, ObjectName agent) throws Exception {
        String walk = (String) server.invoke(agent, "walkHeap", new Object[] {2000L, 256L << 20},
                new String[] {long.class.getName(), long.class.getName()});
        String file = (String) server.getAttribute(agent, "RecordingFile");
        Map<String, String> paths = new HashMap<>();
        if (file != null && !file.isEmpty() && Files.isRegularFile(Path.of(file))) {
            Report r = ReportBuilder.build(Path.of(file));
            for (SiteProfile s : r.sites()) {
                var shapes = r.retention().of(s);
                if (!shapes.isEmpty()) {
                    Retention.RetainedBy main = shapes.get(0);
                    StringBuilder b = new StringBuilder(main.root());
                    for (String step : main.path()) {
                        b.append(" -> ").append(step);
                    }
                    paths.put(Retention.key(s.site(), s.type()), b.toString());
                }
            }
        }
        return new TopPaths(walk, paths);
    }

    /** @return the main path of a row's site, or null */
    String of(TopFrame.Row row) {
        return paths.get(Retention.key(row.site(), row.type()));
    }
}
