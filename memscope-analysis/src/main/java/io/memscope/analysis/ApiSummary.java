package io.memscope.analysis;

import static io.memscope.analysis.text.TerminalText.safe;

import java.util.Locale;
import java.util.Map;

/**
 * The terminal summary's sections about scopes, the function profile, named objects and pools ({@link ApiReport}):
 * tables, largest first, at most {@value #ROWS} rows each. Empty when the recording has none of them.
 */
final class ApiSummary {
    /** Rows per table. */
    static final int ROWS = 10;

    private ApiSummary() {
    }

    static void format(StringBuilder sb, ApiReport a) {
        if (!a.scopes().isEmpty()) {
            sb.append("  Scopes (time summed over threads; allocated: exact, this thread's own; held: sampled, at the "
                    + "end / at the peak):\n");
            sb.append(String.format(Locale.ROOT, "    %8s %10s %9s %10s %10s %10s %10s %10s  %s%n", "entries",
                    "total ms", "max ms", "self ms", "allocated", "self alloc", "held end", "held peak", "path"));
            int i = 0;
            for (ApiReport.ScopeRow s : a.scopes()) {
                if (i++ == ROWS) {
                    sb.append("    ... ").append(a.scopes().size() - ROWS).append(" more paths in report.json\n");
                    break;
                }
                sb.append(String.format(Locale.ROOT, "    %8d %10.1f %9.1f %10.1f %10s %10s %10s %10s  %s%s%n",
                        s.entries(), s.totalMs(), s.maxMs(), s.selfMs(), allocated(s), Summary.bytes(
                                s.selfAllocatedBytes()), Summary.bytes(s.heldAtEndBytes()),
                        Summary.bytes(s.heldAtPeakBytes()), safe(s.path()),
                        s.tasks() > 0 ? " (" + s.tasks() + " tasks)" : ""));
            }
            if (!a.scopeAnomalies().isEmpty()) {
                sb.append("    scope misuse, repaired or ignored:");
                for (Map.Entry<String, Long> e : a.scopeAnomalies().entrySet()) {
                    sb.append(' ').append(safe(e.getKey())).append('=').append(e.getValue());
                }
                sb.append('\n');
            }
        }
        if (!a.functions().isEmpty()) {
            sb.append("  Functions (calls and allocated: exact; live / peak: sampled objects allocated in the call "
                    + "still held at the end / at the peak):\n");
            sb.append(String.format(Locale.ROOT, "    %8s %10s %9s %10s %10s %10s  %s%n", "calls", "total ms",
                    "max ms", "allocated", "live", "peak", "function  <- call site"));
            int i = 0;
            for (ApiReport.FunctionRow f : a.functions()) {
                if (i++ == ROWS) {
                    sb.append("    ... ").append(a.functions().size() - ROWS).append(" more in report.json\n");
                    break;
                }
                sb.append(String.format(Locale.ROOT, "    %8d %10.1f %9.1f %10s %10s %10s  %s%s  <- %s%n",
                        f.calls(), f.totalMs(), f.maxMs(), Summary.bytes(f.allocatedBytes()),
                        Summary.bytes(f.heldAtEndBytes()), Summary.bytes(f.heldAtPeakBytes()), safe(f.function()),
                        f.recursiveCalls() > 0 ? " (+" + f.recursiveCalls() + " recursive)" : "",
                        f.callSite() == null ? "?" : safe(f.callSite())));
            }
        }
        if (!a.trackedObjects().isEmpty()) {
            sb.append("  Named objects (Memscope.track):\n");
            int i = 0;
            for (ApiReport.TrackedObjectRow o : a.trackedObjects()) {
                if (i++ == ROWS) {
                    sb.append("    ... ").append(a.trackedObjects().size() - ROWS).append(" more in report.json\n");
                    break;
                }
                sb.append(String.format(Locale.ROOT, "    %-20s %10s  %-8s after %.1f ms  [%s]%n", safe(o.name()),
                        Summary.bytes(o.bytes()), o.alive() ? "alive" : "collected", o.ageMs(), safe(o.type())));
            }
        }
        if (!a.pools().isEmpty()) {
            sb.append("  Pools:\n");
            for (ApiReport.PoolRow p : a.pools()) {
                sb.append(String.format(Locale.ROOT, "    %-20s %d borrowed, %d returned, %d not returned, %d lost "
                                + "while borrowed (leaks), %d returned twice, at most %d out at once%n", safe(p.pool()),
                        p.borrows(), p.returns(), p.notReturned(), p.leaks(), p.doubleReturns(),
                        p.peakOutstanding()));
            }
            int i = 0;
            for (ApiReport.PoolLeakRow l : a.poolLeaks()) {
                if (i++ == ROWS) {
                    break;
                }
                sb.append(String.format(Locale.ROOT, "    %s lease %d of %s (%s), borrowed at %.1f ms by %s%n",
                        l.kind().equals("unreachable") ? "LEAK:" : "not returned:", l.leaseId(), safe(l.pool()),
                        safe(l.resourceType()), l.borrowedAtMs(), safe(l.thread())));
                for (int f = 0; f < Math.min(3, l.stack().size()); f++) {
                    sb.append("        at ").append(safe(l.stack().get(f))).append('\n');
                }
            }
        }
    }

    private static String allocated(ApiReport.ScopeRow s) {
        String b = Summary.bytes(s.allocatedBytes());
        return s.entriesWithoutAllocation() > 0 && s.allocatedBytes() == 0 ? "n/a" : b;
    }
}
