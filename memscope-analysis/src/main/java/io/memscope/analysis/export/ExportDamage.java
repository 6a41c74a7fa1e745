package io.memscope.analysis.export;

import io.memscope.analysis.Report;

/**
 * What an export says about a recording it could not read whole (damaged, or not closed): the same words as the
 * report's, for stderr and, where the format has room, for the output itself (a pprof comment, a Chrome trace's
 * process label). Collapsed stacks have no room for it: stderr only.
 */
public final class ExportDamage {
    private ExportDamage() {
    }

    /** @return one line naming the damage and what the export covers, or null for a sound, closed recording */
    public static String note(Report r) {
        Report.Source s = r.recording();
        if (s.damage() == null) {
            return null;
        }
        if (!s.closed()) {
            return "memscope: the recording was not closed (the JVM was killed, crashed or is still running): this "
                    + "profile covers what it recorded up to its last complete block";
        }
        return "memscope: the recording is damaged at offset " + s.damageOffset() + " (" + s.damage() + "): this "
                + "profile covers what comes before";
    }
}
