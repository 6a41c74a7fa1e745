package io.memscope.analysis.export;

import io.memscope.analysis.Report;
import io.memscope.analysis.StackProfile;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * Folded stacks, the input of flamegraph.pl, speedscope and async-profiler's converters: one line per stack,
 * {@code root;...;leaf;type value}: frames root first separated by {@code ;}, the allocated type as the last frame,
 * a space and the metric's value. Stacks whose value is 0 are left out; the values add up to the report's total of
 * the metric ({@link ExportMetric}). A {@code ;} inside a frame would split it and becomes {@code :}.
 */
public final class CollapsedStacks {
    private CollapsedStacks() {
    }

    public static void write(Report r, ExportMetric metric, Writer out) throws IOException {
        StringBuilder line = new StringBuilder(256);
        for (StackProfile s : r.stacks()) {
            long v = metric.value(s);
            if (v <= 0) {
                continue;
            }
            line.setLength(0);
            List<String> frames = s.frames();
            for (int i = frames.size() - 1; i >= 0; i--) {
                line.append(clean(frames.get(i))).append(';');
            }
            line.append(clean(s.type())).append(' ').append(v).append('\n');
            out.write(line.toString());
        }
    }

    private static String clean(String frame) {
        return frame.replace(';', ':').replace('\n', ' ');
    }
}
