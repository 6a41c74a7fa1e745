package io.memscope.agent.capture;

import java.io.IOException;
import java.util.Map;

/**
 * What a running capture gives {@link ProfilePusher}: the allocations of each interval, from a {@link PushTable}
 * fed by the recording drain, and what is held and native at its end, from the capture's {@link LiveSites} and
 * {@link NativeTracker}. Runs on the push thread.
 */
final class PushSource implements ProfilePusher.Source {
    private final CaptureSession session;
    private final PushTable table;

    /** Makes the table and has the recording drain feed it from now on. */
    PushSource(CaptureSession session) {
        this.session = session;
        ApiCapture api = session.api;
        PushScopes scopes = api == null ? null : new PushScopes(api.paths());
        this.table = new PushTable(session.settings.intervalBytes(), scopes);
        if (api != null) {
            api.push(table);
        }
        session.recording.push(table);
    }

    @Override
    public byte[] profile(long fromEpochMillis, long untilEpochMillis) throws IOException {
        if (!session.running) {
            return null;
        }
        PushTable.Taken t = table.take();
        return PushProfile.build(t, table.scopes(), session.liveSites,
                session.settings.nativeMemory() ? session.nativeTracker : null, session.mallocSampler,
                session.stacks, session.sink.store().strings(), session.settings.intervalBytes(), fromEpochMillis,
                untilEpochMillis);
    }

    @Override
    public void metadata(Map<String, String> into) {
        into.put("push.scopeUnknown", Long.toString(table.scopeUnknown()));
    }
}
