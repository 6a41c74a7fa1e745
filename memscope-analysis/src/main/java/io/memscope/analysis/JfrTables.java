package io.memscope.analysis;

import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.Anomaly;
import io.memscope.recording.Damage;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RetentionWalk;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import io.memscope.recording.Totals;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A JFR recording's tables ({@link JfrSource#tables}): what JFR records of them; the rest of what a memscope
 * recording holds is empty (no string table, site counts, anomalies, totals, damage, accounting, scope paths or
 * function statistics).
 */
record JfrTables(RecordingHeader header, Map<String, String> metadata, Map<Integer, Site> sites,
                 Map<Long, List<String>> stacks, List<GcRecord> gcRecords, List<RetentionWalk> retentionWalks,
                 List<Recording.ProcessMemorySamples> processMemory) implements RecordedRun.Tables {
    @Override
    public int stringCount() {
        return 1;
    }

    @Override
    public String string(int id) {
        return null;
    }

    @Override
    public Map<Integer, SiteCount> siteCounts() {
        return Map.of();
    }

    @Override
    public List<Anomaly> anomalies() {
        return List.of();
    }

    @Override
    public Optional<Totals> totals() {
        return Optional.empty();
    }

    @Override
    public Optional<Damage> damage() {
        return Optional.empty();
    }

    @Override
    public int skippedBlocks() {
        return 0;
    }

    @Override
    public AccountingSnapshot accounting() {
        return null;
    }

    @Override
    public boolean hasScopePaths() {
        return false;
    }

    @Override
    public boolean hasFunctionStats() {
        return false;
    }
}
