package io.memscope.launch.pprof;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * Writes one pprof profile ({@code perftools.profiles.Profile} of Google's {@code profile.proto}): a hand-written
 * encoder of the few messages a heap profile needs, with no dependency, so that the agent (which loads no
 * third-party library into the application) and the analysis share one writer.
 *
 * <pre>
 *   Profile          field  what this writer puts there
 *     sample_type      1    ValueType{type=1, unit=2} per {@link #sampleType}, in call order
 *     sample           2    Sample{location_id=1 (packed, leaf first), value=2 (packed), label=3 Label{key=1, str=2}}
 *     location         4    Location{id=1, line=4 Line{function_id=1, line=2}}
 *     function         5    Function{id=1, name=2, system_name=3, filename=4}
 *     string_table     6    every string once; entry 0 is ""
 *     time_nanos       9    {@link #time}
 *     duration_nanos  10
 *     period_type     11    ValueType, {@link #period}
 *     period          12
 *     comment         13    string indexes (packed)
 *     default_sample_type 14
 * </pre>
 *
 * Strings, functions and locations are deduplicated; samples are encoded as they are added (the writer keeps their
 * bytes, not objects). Ids start at 1 (0 means "none" in pprof). Not thread-safe: one writer per profile.
 */
public final class PprofWriter {
    private final List<String> strings = new ArrayList<>();
    private final Map<String, Long> stringIds = new HashMap<>();
    private final Map<String, Long> functionIds = new HashMap<>();
    private final Map<String, Long> locationIds = new HashMap<>();
    private final ProtoOutput sampleTypes = new ProtoOutput(64);
    private final ProtoOutput samples = new ProtoOutput(4096);
    private final ProtoOutput locations = new ProtoOutput(1024);
    private final ProtoOutput functions = new ProtoOutput(1024);
    private final ProtoOutput scratch = new ProtoOutput(256);
    private final ProtoOutput line = new ProtoOutput(32);
    private final List<Long> comments = new ArrayList<>();
    private int types;
    private int sampleCount;
    private long timeNanos;
    private long durationNanos;
    private long periodType = -1;
    private long periodUnit;
    private long period;
    private long defaultSampleType;

    public PprofWriter() {
        strings.add("");
        stringIds.put("", 0L);
    }

    /** @return the string's index in the string table (added the first time) */
    public long string(String s) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        Long id = stringIds.get(s);
        if (id == null) {
            id = (long) strings.size();
            strings.add(s);
            stringIds.put(s, id);
        }
        return id;
    }

    /** Adds a sample type (the values of every sample come in this order). @return its index */
    public int sampleType(String type, String unit) {
        scratch.reset();
        scratch.varint(1, string(type));
        scratch.varint(2, string(unit));
        sampleTypes.message(1, scratch);
        return types++;
    }

    /** The sampling period: e.g. {@code space}/{@code bytes}, the mean sampling interval. */
    public void period(String type, String unit, long value) {
        periodType = string(type);
        periodUnit = string(unit);
        period = value;
    }

    /** When the profile starts (nanoseconds since the epoch) and how long it covers. */
    public void time(long startEpochNanos, long duration) {
        timeNanos = startEpochNanos;
        durationNanos = duration;
    }

    /** The sample type tools show first. */
    public void defaultSampleType(String type) {
        defaultSampleType = string(type);
    }

    public void comment(String text) {
        comments.add(string(text));
    }

    /** @return the number of sample types added */
    public int sampleTypes() {
        return types;
    }

    /** @return the samples added so far */
    public int samples() {
        return sampleCount;
    }

    /** @return the locations made so far */
    public int locations() {
        return locationIds.size();
    }

    /** @return the location id of a frame {@code pkg.Class.method(File.java:LINE)} (see {@link Frame#parse}) */
    public long frame(String frame) {
        Long loc = locationIds.get(frame);
        if (loc != null) {
            return loc;
        }
        Frame f = Frame.parse(frame);
        long id = newLocation(f.function(), f.file(), f.line());
        locationIds.put(frame, id);
        return id;
    }

    /** @return the location id of one line of a function (made the first time) */
    public long location(String function, String file, long lineNumber) {
        String key = function + "\u0000" + file + "\u0000" + lineNumber;
        Long loc = locationIds.get(key);
        if (loc != null) {
            return loc;
        }
        long id = newLocation(function, file, lineNumber);
        locationIds.put(key, id);
        return id;
    }

    private long newLocation(String function, String file, long lineNumber) {
        String fnKey = function + "\u0000" + (file == null ? "" : file);
        Long fn = functionIds.get(fnKey);
        if (fn == null) {
            fn = (long) functionIds.size() + 1;
            functionIds.put(fnKey, fn);
            long name = string(function);
            scratch.reset();
            scratch.varint(1, fn);
            scratch.varint(2, name);
            scratch.varint(3, name);
            scratch.varint(4, string(file));
            functions.message(5, scratch);
        }
        long id = locationIds.size() + 1L;
        line.reset();
        line.varint(1, fn);
        line.varint(2, lineNumber);
        scratch.reset();
        scratch.varint(1, id);
        scratch.message(4, line);
        locations.message(4, scratch);
        return id;
    }

    /**
     * Adds a sample.
     *
     * @param locations location ids, leaf (the allocating frame) first; the first {@code n} are used
     * @param values    one value per sample type, in {@link #sampleType} order
     * @param labels    string labels as key, value pairs (a null or empty value is left out)
     */
    public void sample(long[] locations, int n, long[] values, String... labels) {
        if (values.length != types) {
            throw new IllegalArgumentException(values.length + " values for " + types + " sample types");
        }
        scratch.reset();
        scratch.packed(1, locations, n);
        scratch.packed(2, values, values.length);
        for (int i = 0; i + 1 < labels.length; i += 2) {
            if (labels[i + 1] == null || labels[i + 1].isEmpty()) {
                continue;
            }
            line.reset();
            line.varint(1, string(labels[i]));
            line.varint(2, string(labels[i + 1]));
            scratch.message(3, line);
        }
        samples.message(2, scratch);
        sampleCount++;
    }

    /** @return the encoded profile (not compressed) */
    public byte[] toByteArray() {
        ProtoOutput out = new ProtoOutput(sampleTypes.size() + samples.size() + locations.size() + functions.size()
                + strings.size() * 16 + 64);
        appendRaw(out, sampleTypes);
        appendRaw(out, samples);
        appendRaw(out, locations);
        appendRaw(out, functions);
        for (String s : strings) {
            out.string(6, s); // every entry, the empty first one included
        }
        out.varint(9, timeNanos);
        out.varint(10, durationNanos);
        if (periodType >= 0) {
            scratch.reset();
            scratch.varint(1, periodType);
            scratch.varint(2, periodUnit);
            out.message(11, scratch);
            out.varint(12, period);
        }
        long[] c = new long[comments.size()];
        for (int i = 0; i < c.length; i++) {
            c[i] = comments.get(i);
        }
        out.packed(13, c, c.length);
        out.varint(14, defaultSampleType);
        return out.toByteArray();
    }

    private static void appendRaw(ProtoOutput out, ProtoOutput fields) {
        out.raw(fields);
    }

    /** Writes the profile gzipped (what pprof tools and Pyroscope expect); does not close {@code out}. */
    public void writeGzipped(OutputStream out) throws IOException {
        GZIPOutputStream gz = new GZIPOutputStream(out, 8192);
        gz.write(toByteArray());
        gz.finish();
    }

    /**
     * A frame {@code pkg.Class.method(File.java:LINE)} split into function, file and line; {@code Unknown Source}
     * and a frame without parentheses give an empty file and line 0.
     */
    public record Frame(String function, String file, long line) {
        public static Frame parse(String frame) {
            int open = frame.lastIndexOf('(');
            if (open < 0 || !frame.endsWith(")")) {
                return new Frame(frame, "", 0);
            }
            String function = frame.substring(0, open);
            String inside = frame.substring(open + 1, frame.length() - 1);
            int colon = inside.lastIndexOf(':');
            long line = 0;
            String file = inside;
            if (colon > 0) {
                try {
                    line = Long.parseLong(inside.substring(colon + 1));
                    file = inside.substring(0, colon);
                } catch (NumberFormatException e) {
                    line = 0;
                }
            }
            if (file.equals("Unknown Source")) {
                file = "";
            }
            return new Frame(function, file, line);
        }
    }
}
