package io.memscope.agent.capture;

import io.memscope.recording.Recording.ProcessMemorySamples;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NMT's committed bytes per category for the process sampler ({@link ProcessMemorySampler}), when the JVM runs with
 * {@code -XX:NativeMemoryTracking=summary|detail}: at most once a second ({@value #NMT_INTERVAL_NANOS} ns: the JVM
 * builds the whole report as text) the {@code vmNativeMemory} diagnostic command's {@code summary scale=KB}, parsed
 * into one sample of its own ({@code nmt.<category>.committed}), kept for the next flush; its thread stack figure
 * ({@link #stackBytes}) goes into each fast sample. A report that cannot be read or parsed is counted, never thrown.
 *
 * <p>Not thread-safe: the sampling thread runs it.
 */
final class NmtSummary {
    /** NMT's report is asked for at most this often. */
    static final long NMT_INTERVAL_NANOS = 1_000_000_000L;
    private static final Pattern NMT_CATEGORY = Pattern.compile(
            "^-\\s+(.+?) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)", Pattern.MULTILINE);
    private static final Pattern NMT_STACK = Pattern.compile("\\(stack: reserved=(\\d+)KB, committed=(\\d+)KB");

    private final Consumer<Throwable> failed;
    /** NMT's mode ({@code off}, {@code summary}, {@code detail}). */
    private String mode = "off";
    /** Its latest thread stack figure, -1 none. */
    private long stackBytes = ProcessMemorySamples.UNKNOWN;
    private long next;
    private final List<ProcessMemorySamples> pending = new ArrayList<>();
    private long samples;
    private long failures;

    /** @param failed counts a failure */
    NmtSummary(Consumer<Throwable> failed) {
        this.failed = failed;
    }

    /** @param mode the JVM's {@code NativeMemoryTracking} ({@code off}: never asked) */
    void mode(String mode, long nowNanos) {
        this.mode = mode;
        next = nowNanos;
    }

    /** Reads NMT's summary when one is due. */
    void tick(long nowNanos) {
        if (!"off".equals(mode) && nowNanos >= next) {
            next = nowNanos + NMT_INTERVAL_NANOS;
            sample(nowNanos);
        }
    }

    /** @return NMT's latest committed stack bytes, -1 none */
    long stackBytes() {
        return stackBytes;
    }

    /** @return whether NMT's summary was read at least once */
    boolean sampled() {
        return samples > 0;
    }

    /** Writes the summaries read since the last call, each as a PROCESS_MEMORY block of one sample. */
    void writeTo(CaptureRecording recording) {
        try {
            for (ProcessMemorySamples s : pending) {
                recording.processMemory(s);
            }
        } finally {
            pending.clear();
        }
    }

    /** Its figures for the recording's metadata at the end. */
    void metadata(Map<String, String> into) {
        into.put("processMemory.nmt", mode);
        if (!"off".equals(mode)) {
            into.put("processMemory.nmtSamples", Long.toString(samples));
            into.put("processMemory.nmtFailures", Long.toString(failures));
        }
    }

    /** NMT's summary through the DiagnosticCommand MBean, parsed into one sample of its own. */
    private void sample(long nowNanos) {
        String text;
        try {
            text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary", "scale=KB"}}, new String[] {String[].class.getName()});
        } catch (Throwable t) {
            failures++;
            failed.accept(t);
            return;
        }
        ProcessMemorySamples s = parseNmt(text, nowNanos);
        if (s == null) {
            failures++;
            return;
        }
        int stack = s.part("nmt.Thread.stack.committed");
        stackBytes = stack < 0 ? ProcessMemorySamples.UNKNOWN : s.value(0, stack);
        if (pending.size() < 64) {
            pending.add(s);
        }
        samples++;
    }

    /**
     * @return NMT's committed bytes per category ({@code nmt.<category>.committed}) and the threads' stacks
     *         ({@code nmt.Thread.stack.committed}) as one sample, or null when the text has no category
     */
    static ProcessMemorySamples parseNmt(String text, long nowNanos) {
        if (text == null) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        Matcher m = NMT_CATEGORY.matcher(text);
        while (m.find() && parts.size() < 250) {
            String name = "nmt." + m.group(1).trim() + ".committed";
            if (parts.contains(name)) {
                continue;
            }
            try {
                values.add(Long.parseLong(m.group(3)) * 1024);
            } catch (NumberFormatException e) {
                return null;
            }
            parts.add(name);
            if (m.group(1).trim().equals("Thread")) {
                int end = text.indexOf("\n-", m.end());
                Matcher s = NMT_STACK.matcher(text.substring(m.end(), end < 0 ? text.length() : end));
                if (s.find()) {
                    parts.add("nmt.Thread.stack.committed");
                    values.add(Long.parseLong(s.group(2)) * 1024);
                }
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        long[] v = new long[values.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = values.get(i);
        }
        return new ProcessMemorySamples(parts, new long[] {nowNanos}, v);
    }
}
