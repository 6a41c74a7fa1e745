package io.memscope.cli;

import io.memscope.analysis.AccountingJson;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.text.TerminalText;
import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.Damage;
import io.memscope.recording.FunctionStats;
import io.memscope.recording.GcRecord;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.EventView;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.ScopePath;
import io.memscope.recording.Site;
import io.memscope.recording.Totals;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code memscope dump FILE [--json]}: prints a recording as text or JSON lines, streaming (any file size).
 * Output formats are specified in {@code docs/formats/recording.md}, section "memscope dump".
 */
@Command(name = "dump",
        description = {"Print a recording's header, metadata, events, GC records and anomalies, then a summary.",
            "A damaged or unfinished file prints what could be read, then the damage on stderr (exit code 1)."})
final class DumpCommand implements Callable<Integer> {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Parameters(index = "0", paramLabel = "FILE", description = "the recording file, or a directory holding "
            + "recording.msrec")
    Path file;

    @Option(names = "--json", description = "one JSON object per line instead of text")
    boolean json;

    @Option(names = "--limit", paramLabel = "N", description = "stop after printing N events")
    Long limit;

    @Option(names = "--type", split = ",", paramLabel = "TYPE",
            description = "print only events of these types (${COMPLETION-CANDIDATES}); repeatable or comma-separated")
    List<MemoryEventType> types;

    @Option(names = "--thread", paramLabel = "ID", description = "print only events of this thread id")
    Long thread;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (limit != null && limit < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must not be negative: " + limit);
        }
        file = RunFolder.recording(file, null, null, "dump"); // a JVM's folder, as report takes it
        if (startsWithJfrMagic(file)) {
            throw io.memscope.error.MemscopeException.configuration(file + " is a JFR recording: memscope dump prints "
                    + "memscope recordings only. Read it with memscope report or memscope export, or print its events "
                    + "with the JDK's tool: jfr print " + file);
        }
        PrintWriter out = spec.commandLine().getOut();
        Printer printer = new Printer(out);
        Optional<Damage> damage;
        try {
            damage = RecordingReader.stream(file, printer);
        } finally {
            out.flush();
        }
        printer.summary(damage.orElse(null));
        out.flush();
        if (damage.isPresent()) {
            spec.commandLine().getErr().println("memscope dump: damaged recording: " + damage.get().message());
            spec.commandLine().getErr().flush();
            return CliErrors.EXIT_FAILURE;
        }
        return 0;
    }

    /** @return whether the file starts with JFR's magic {@code FLR\0} (unreadable: false, the reader says why) */
    static boolean startsWithJfrMagic(Path file) {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            return java.util.Arrays.equals(in.readNBytes(4), new byte[] {'F', 'L', 'R', 0});
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    /** Prints each part of the recording as it is read. */
    private final class Printer implements RecordingVisitor {
        private final PrintWriter out;
        private final StringBuilder line = new StringBuilder(256);
        private final Set<MemoryEventType> wanted = types == null || types.isEmpty()
                ? EnumSet.allOf(MemoryEventType.class) : EnumSet.copyOf(types);
        private final List<String> strings = new ArrayList<>();
        private final Map<Integer, String> sites = new HashMap<>();
        private RecordingHeader header;
        private long events;
        private long shown;
        private long gcs;
        private long anomalies;
        private long stacks;
        private long apiEvents;
        private long scopeEdges;
        private long functions;
        private final Map<Integer, ScopePath> scopePaths = new HashMap<>();
        private Totals totals;
        private boolean stopped;

        Printer(PrintWriter out) {
            this.out = out;
            strings.add(null);
        }

        /**
         * Prints the line built. A text line is one line whatever the recording holds: every control character in it
         * (the application's names, strings read from the file) is escaped ({@link TerminalText}).
         */
        private void emit() {
            out.append(json ? line : TerminalText.safe(line.toString())).append('\n');
            line.setLength(0);
        }

        private String time(long nanoTime) {
            return header.toInstant(nanoTime).toString();
        }

        @Override
        public void header(RecordingHeader h) {
            header = h;
            String start = h.processStartEpochMillis() == 0 ? null
                    : Instant.ofEpochMilli(h.processStartEpochMillis()).toString();
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "header").field("file", file.toString())
                        .field("version", h.majorVersion() + "." + h.minorVersion()).field("flags", h.flags())
                        .field("pid", h.pid()).field("processStart", start)
                        .field("clockEpochNanos", h.epochNanos()).field("clockNanoTime", h.nanoTime())
                        .field("clockTime", time(h.nanoTime())).endObject();
            } else {
                line.append("# memscope recording ").append(file).append(" (format ").append(h.majorVersion())
                        .append('.').append(h.minorVersion()).append(")");
                emit();
                line.append("# pid ").append(h.pid()).append(", process started ").append(start == null ? "?" : start)
                        .append(", recording started ").append(time(h.nanoTime())).append(" (nanoTime ")
                        .append(h.nanoTime()).append(')');
            }
            emit();
        }

        @Override
        public void string(int id, String value) {
            strings.add(value);
        }

        private String str(int id) {
            return strings.get(id);
        }

        @Override
        public void site(Site site) {
            sites.put(site.id(), site.frame());
        }

        @Override
        public void stack(long stackId, List<String> frames) {
            stacks++;
        }

        @Override
        public void metadata(String key, String value) {
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "metadata").field("key", key).field("value", value)
                        .endObject();
            } else {
                line.append("# ").append(key).append(" = ").append(value == null ? "" : value);
            }
            emit();
        }

        @Override
        public void accept(EventView e) {
            event(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                    e.threadNameId(), e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
        }

        private void event(long ts, MemoryEventType type, long address, long size, long previousSize, long threadId,
                           int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId) {
            events++;
            if (stopped || !wanted.contains(type) || (thread != null && thread != threadId)) {
                return;
            }
            if (limit != null && shown >= limit) {
                stopped = true;
                return;
            }
            shown++;
            String site = siteId == 0 ? null : sites.getOrDefault(siteId, "site#" + Integer.toUnsignedString(siteId));
            String stack = stackId == 0 ? null : "0x" + Long.toHexString(stackId);
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "event").field("time", time(ts)).field("timestampNanos", ts)
                        .field("type", type.name()).field("address", "0x" + Long.toHexString(address))
                        .unsignedField("size", size).unsignedField("previousSize", previousSize).field("threadId", threadId)
                        .field("threadName", str(threadNameId)).field("typeName", str(typeNameId))
                        .field("variable", str(variableNameId)).field("site", site)
                        .unsignedField("siteId", Integer.toUnsignedLong(siteId)).field("stackId", stack).endObject();
            } else {
                line.append(time(ts)).append(' ').append(type.name()).append(" 0x").append(Long.toHexString(address))
                        .append(" size=").append(Long.toUnsignedString(size))
                        .append(" prev=").append(Long.toUnsignedString(previousSize))
                        .append(" thread=").append(threadId);
                if (threadNameId != 0) {
                    line.append('/').append(str(threadNameId));
                }
                line.append(" type=").append(orDash(str(typeNameId)))
                        .append(" var=").append(orDash(str(variableNameId)))
                        .append(" site=").append(orDash(site))
                        .append(" stack=").append(orDash(stack));
            }
            emit();
        }

        /** A scope path's full name as known so far ({@code scope#N} for an undefined id). */
        private String path(int id) {
            ScopePath p = scopePaths.get(id);
            if (p == null) {
                return "scope#" + Integer.toUnsignedString(id);
            }
            return p.parentId() == 0 || p.parentId() == id ? p.name() : path(p.parentId()) + "/" + p.name();
        }

        @Override
        public void functionStats(FunctionStats f) {
            functions++;
            if (stopped || types != null && !types.isEmpty()) {
                return;
            }
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "function").field("function", f.function())
                        .field("descriptor", f.descriptor()).field("callSite", f.callSite())
                        .unsignedField("calls", f.calls()).unsignedField("recursiveCalls", f.recursiveCalls())
                        .unsignedField("totalNanos", f.totalNanos()).unsignedField("maxNanos", f.maxNanos())
                        .unsignedField("allocatedBytes", f.allocatedBytes())
                        .unsignedField("callsWithoutAllocation", f.callsWithoutAllocation()).endObject();
            } else {
                line.append("# function ").append(f.function()).append(orDash(f.descriptor()))
                        .append(" from ").append(orDash(f.callSite()))
                        .append(": calls=").append(Long.toUnsignedString(f.calls()))
                        .append(" recursive=").append(Long.toUnsignedString(f.recursiveCalls()))
                        .append(" total=").append(Long.toUnsignedString(f.totalNanos())).append("ns")
                        .append(" max=").append(Long.toUnsignedString(f.maxNanos())).append("ns")
                        .append(" allocated=").append(Long.toUnsignedString(f.allocatedBytes()))
                        .append(" withoutAllocation=").append(Long.toUnsignedString(f.callsWithoutAllocation()));
            }
            emit();
        }

        /** One line per row of the snapshot: the application's accounting summary tables (format 1.3). */
        @Override
        public void accounting(io.memscope.recording.AccountingSnapshot snapshot) {
            if (stopped || types != null && !types.isEmpty()) {
                return;
            }
            long ts = snapshot.timestampNanos();
            if (snapshot.rows().isEmpty()) {
                if (json) {
                    JsonWriter.compact(line).beginObject().field("kind", "accounting").field("time", time(ts)).field("timestampNanos", ts)
                            .field("rows", 0).endObject();
                } else {
                    line.append(time(ts)).append(" ACCOUNTING no rows");
                }
                emit();
            }
            for (io.memscope.accounting.SummaryRow r : snapshot.rows()) {
                if (json) {
                    JsonWriter j = JsonWriter.compact(line).beginObject().field("kind", "accounting")
                            .field("time", time(ts)).field("timestampNanos", ts).field("table", r.table().name())
                            .field("name", r.table().tableName());
                    AccountingJson.row(j, r.table(), r);
                    j.endObject();
                } else {
                    line.append(time(ts)).append(" ACCOUNTING ").append(r.table().name());
                    if (r.table() == io.memscope.accounting.SummaryTable.THREAD) {
                        line.append(" thread=").append(r.threadId()).append('/').append(orDash(r.threadName()));
                    }
                    line.append(" user=").append(orDash(r.user())).append(" host=").append(orDash(r.host()))
                            .append(' ').append(r.eventName());
                    for (io.memscope.accounting.Column c : io.memscope.accounting.Column.values()) {
                        line.append(' ').append(c.name()).append('=').append(r.get(c));
                    }
                }
                emit();
            }
        }

        @Override
        public void scopePath(ScopePath p) {
            scopePaths.put(p.id(), p);
            if (stopped) {
                return;
            }
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "scopePath").unsignedField("id", Integer.toUnsignedLong(p.id()))
                        .unsignedField("parentId", Integer.toUnsignedLong(p.parentId())).field("name", p.name())
                        .field("path", path(p.id())).endObject();
            } else {
                line.append("# scope path ").append(Integer.toUnsignedString(p.id())).append(" = ")
                        .append(path(p.id()));
            }
            emit();
        }

        @Override
        public void scopeEdge(long ts, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                              long allocatedBytes) {
            scopeEdges++;
            if (stopped || types != null && !types.isEmpty() || (thread != null && thread != threadId)) {
                return;
            }
            if (json) {
                JsonWriter j = JsonWriter.compact(line).beginObject().field("kind", "scope").field("time", time(ts)).field("timestampNanos", ts)
                        .field("edge", exit ? "exit" : "enter").field("path", path(pathId))
                        .unsignedField("pathId", Integer.toUnsignedLong(pathId)).field("threadId", threadId)
                        .field("threadName", str(threadNameId));
                if (taskId != 0) {
                    j.unsignedField("taskId", taskId);
                } else {
                    j.rawField("taskId", "null");
                }
                if (allocatedBytes >= 0) {
                    j.unsignedField("allocatedBytes", allocatedBytes);
                } else {
                    j.rawField("allocatedBytes", "null");
                }
                j.endObject();
            } else {
                line.append(time(ts)).append(exit ? " SCOPE_EXIT " : " SCOPE_ENTER ").append(path(pathId))
                        .append(" thread=").append(threadId);
                if (threadNameId != 0) {
                    line.append('/').append(str(threadNameId));
                }
                if (taskId != 0) {
                    line.append(" task=").append(Long.toUnsignedString(taskId));
                }
                if (exit) {
                    line.append(" allocated=").append(allocatedBytes >= 0 ? Long.toString(allocatedBytes) : "-");
                }
            }
            emit();
        }

        @Override
        public void apiEvent(EventView e) {
            apiEvent(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                    e.threadNameId(), e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
        }

        private void apiEvent(long ts, MemoryEventType type, long address, long size, long previousSize,
                              long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId,
                              int siteId) {
            apiEvents++;
            if (stopped || !wanted.contains(type) || (thread != null && thread != threadId)) {
                return;
            }
            if (limit != null && shown >= limit) {
                stopped = true;
                return;
            }
            shown++;
            String stack = stackId == 0 ? null : "0x" + Long.toHexString(stackId);
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "apiEvent").field("time", time(ts)).field("timestampNanos", ts)
                        .field("type", type.name()).field("address", "0x" + Long.toHexString(address))
                        .unsignedField("size", size).unsignedField("previousSize", previousSize).field("threadId", threadId)
                        .field("threadName", str(threadNameId)).field("typeName", str(typeNameId))
                        .field("variable", str(variableNameId)).field("stackId", stack).endObject();
            } else {
                line.append(time(ts)).append(" API ").append(type.name()).append(" 0x")
                        .append(Long.toHexString(address))
                        .append(" size=").append(Long.toUnsignedString(size))
                        .append(" prev=").append(Long.toUnsignedString(previousSize))
                        .append(" thread=").append(threadId);
                if (threadNameId != 0) {
                    line.append('/').append(str(threadNameId));
                }
                line.append(" type=").append(orDash(str(typeNameId)))
                        .append(" var=").append(orDash(str(variableNameId)))
                        .append(" stack=").append(orDash(stack));
            }
            emit();
        }

        @Override
        public void gc(GcRecord g) {
            gcs++;
            if (stopped) {
                return;
            }
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "gc").field("time", time(g.startNanos()))
                        .field("timestampNanos", g.startNanos()).unsignedField("durationNanos", g.durationNanos())
                        .field("name", g.name()).field("cause", g.cause())
                        .unsignedField("heapUsedBefore", g.heapUsedBefore()).unsignedField("heapUsedAfter", g.heapUsedAfter())
                        .unsignedField("heapCommitted", g.heapCommitted()).field("action", g.action())
                        .field("examined", io.memscope.analysis.ReportJson.examined(g.examined()))
                        .field("snapshotNanos", g.snapshotNanos()).field("verdictNanos", g.verdictNanos())
                        .endObject();
            } else {
                line.append(time(g.startNanos())).append(" GC ").append(orDash(g.name()))
                        .append(" cause=").append(orDash(g.cause()))
                        .append(" duration=").append(Long.toUnsignedString(g.durationNanos())).append("ns")
                        .append(" used=").append(Long.toUnsignedString(g.heapUsedBefore())).append("->")
                        .append(Long.toUnsignedString(g.heapUsedAfter()))
                        .append(" committed=").append(Long.toUnsignedString(g.heapCommitted()))
                        .append(" action=").append(orDash(g.action()))
                        .append(" examined=").append(io.memscope.analysis.ReportJson.examined(g.examined()));
                if (g.snapshotNanos() != g.startNanos()) {
                    line.append(" snapshot=-").append(g.startNanos() - g.snapshotNanos()).append("ns");
                }
                if (g.verdictNanos() != g.startNanos()) {
                    line.append(" verdict=+").append(g.verdictNanos() - g.startNanos()).append("ns");
                }
            }
            emit();
        }

        @Override
        public void anomaly(Anomaly a) {
            anomalies++;
            if (stopped) {
                return;
            }
            String stack = a.stackId() == 0 ? null : "0x" + Long.toHexString(a.stackId());
            if (json) {
                JsonWriter.compact(line).beginObject().field("kind", "anomaly").field("time", time(a.timestampNanos()))
                        .field("timestampNanos", a.timestampNanos()).field("anomaly", a.kind())
                        .field("address", "0x" + Long.toHexString(a.address())).unsignedField("size", a.size())
                        .field("threadId", a.threadId()).field("stackId", stack).field("detail", a.detail())
                        .endObject();
            } else {
                line.append(time(a.timestampNanos())).append(" ANOMALY ").append(a.kind())
                        .append(" 0x").append(Long.toHexString(a.address()))
                        .append(" size=").append(Long.toUnsignedString(a.size()))
                        .append(" thread=").append(a.threadId())
                        .append(" stack=").append(orDash(stack))
                        .append(" detail=").append(orDash(a.detail()));
            }
            emit();
        }

        @Override
        public void end(Totals t) {
            totals = t;
        }

        @Override
        public boolean done() {
            return stopped;
        }

        void summary(Damage damage) {
            if (json) {
                JsonWriter j = JsonWriter.compact(line).beginObject().field("kind", "summary").field("events", events).field("shown", shown)
                        .field("gcs", gcs).field("anomalies", anomalies).field("sites", sites.size())
                        .field("stacks", stacks).field("apiEvents", apiEvents).field("scopeEdges", scopeEdges)
                        .field("scopePaths", scopePaths.size()).field("functions", functions)
                        .field("stoppedAtLimit", stopped);
                if (totals != null) {
                    j.unsignedField("eventsWritten", totals.eventsWritten()).unsignedField("eventsDropped", totals.eventsDropped())
                            .field("clean", totals.clean());
                } else {
                    j.rawField("eventsWritten", "null").rawField("eventsDropped", "null").rawField("clean", "null");
                }
                if (damage != null) {
                    StringBuilder d = new StringBuilder();
                    JsonWriter.compact(d).beginObject().field("offset", damage.offset()).field("what", damage.what())
                            .endObject();
                    j.rawField("damage", d.toString());
                } else {
                    j.rawField("damage", "null");
                }
                j.endObject();
            } else {
                line.append("# ");
                if (stopped) {
                    line.append("stopped after ").append(shown).append(" events (--limit); ");
                } else {
                    line.append(events).append(" events, ").append(shown).append(" shown, ");
                }
                line.append(gcs).append(" GCs, ").append(anomalies).append(" anomalies, ").append(sites.size())
                        .append(" sites, ").append(stacks).append(" stacks");
                if (apiEvents + scopeEdges + scopePaths.size() + functions > 0) {
                    line.append(", ").append(apiEvents).append(" API events, ").append(scopeEdges)
                            .append(" scope edges, ").append(scopePaths.size()).append(" scope paths, ")
                            .append(functions).append(" function entries");
                }
                if (totals != null) {
                    line.append("; END: ").append(Long.toUnsignedString(totals.eventsWritten())).append(" written, ")
                            .append(Long.toUnsignedString(totals.eventsDropped())).append(" dropped, ")
                            .append(totals.clean() ? "closed cleanly" : "closed after a failure or by an emergency hook");
                } else if (!stopped) {
                    line.append("; no END block");
                }
                if (damage != null) {
                    line.append("; DAMAGED at offset ").append(damage.offset());
                }
            }
            emit();
        }
    }

    private static String orDash(String s) {
        return s == null ? "-" : s;
    }
}
