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
    /** The application threads' OpenTelemetry spans (fed by the context storage's hook while this push runs). */
    private final OtelSpans spans;

    /** Makes the table and has the recording drain feed it from now on. */
    PushSource(CaptureSession session) {
        this.session = session;
        ApiCapture api = session.api;
        PushScopes scopes = api == null ? null : new PushScopes(api.paths());
        this.spans = new OtelSpans();
        this.table = new PushTable(session.settings.intervalBytes(), scopes, spans);
        Hooks.otelSpans = spans;
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
        spans.prune();
        return PushProfile.build(t, table.scopes(), session.liveSites,
                session.settings.nativeMemory() ? session.nativeTracker : null, session.mallocSampler,
                session.stacks, session.sink.store().strings(), session.settings.intervalBytes(), fromEpochMillis,
                untilEpochMillis);
    }

    @Override
    public void metadata(Map<String, String> into) {
        into.put("push.scopeUnknown", Long.toString(table.scopeUnknown()));
        table.spanMetadata(into);
        spans.metadata(into);
    }

    @Override
    public void stop() {
        spans.stop();
        if (Hooks.otelSpans == spans) {
            Hooks.otelSpans = null;
        }
    }
}
