package io.memscope.analysis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A test-only decoder of gzipped pprof profiles, written from the protobuf wire format (varints, length-delimited
 * fields, packed repeated scalars) and the field numbers of profile.proto, independently of the generated code the
 * exporter uses: what go tool pprof would read.
 */
final class PprofWire {
    final List<String> strings = new ArrayList<>();
    final List<long[]> sampleTypes = new ArrayList<>();          // {type, unit}
    final List<long[]> sampleLocations = new ArrayList<>();
    final List<long[]> sampleValues = new ArrayList<>();
    final Map<Long, long[]> locationLine = new HashMap<>();       // id -> {functionId, line}
    final Map<Long, long[]> functions = new HashMap<>();          // id -> {name, systemName, filename}
    long period;
    long defaultSampleType;

    static PprofWire decode(InputStream gzipped) throws IOException {
        byte[] raw;
        try (GZIPInputStream in = new GZIPInputStream(gzipped)) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            raw = b.toByteArray();
        }
        PprofWire p = new PprofWire();
        Reader r = new Reader(raw, 0, raw.length);
        while (r.more()) {
            long key = r.varint();
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            switch (field) {
                case 1 -> p.sampleTypes.add(valueType(r.sub()));
                case 2 -> p.sample(r.sub());
                case 4 -> p.location(r.sub());
                case 5 -> p.function(r.sub());
                case 6 -> p.strings.add(r.string());
                case 12 -> p.period = r.varint();
                case 14 -> p.defaultSampleType = r.varint();
                default -> r.skip(wire);
            }
        }
        return p;
    }

    private static long[] valueType(Reader r) {
        long[] v = new long[2];
        while (r.more()) {
            long key = r.varint();
            int field = (int) (key >>> 3);
            if (field == 1 || field == 2) {
                v[field - 1] = r.varint();
            } else {
                r.skip((int) (key & 7));
            }
        }
        return v;
    }

    private void sample(Reader r) {
        List<Long> locs = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        while (r.more()) {
            long key = r.varint();
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            if ((field == 1 || field == 2) && wire == 2) {
                Reader packed = r.sub();
                while (packed.more()) {
                    (field == 1 ? locs : values).add(packed.varint());
                }
            } else if (field == 1 || field == 2) {
                (field == 1 ? locs : values).add(r.varint());
            } else {
                r.skip(wire);
            }
        }
        sampleLocations.add(locs.stream().mapToLong(Long::longValue).toArray());
        sampleValues.add(values.stream().mapToLong(Long::longValue).toArray());
    }

    private void location(Reader r) {
        long id = 0;
        long[] line = new long[2];
        while (r.more()) {
            long key = r.varint();
            int field = (int) (key >>> 3);
            if (field == 1) {
                id = r.varint();
            } else if (field == 4) {
                Reader l = r.sub();
                while (l.more()) {
                    long k = l.varint();
                    int f = (int) (k >>> 3);
                    if (f == 1 || f == 2) {
                        line[f - 1] = l.varint();
                    } else {
                        l.skip((int) (k & 7));
                    }
                }
            } else {
                r.skip((int) (key & 7));
            }
        }
        locationLine.put(id, line);
    }

    private void function(Reader r) {
        long id = 0;
        long[] f = new long[3];
        while (r.more()) {
            long key = r.varint();
            int field = (int) (key >>> 3);
            if (field == 1) {
                id = r.varint();
            } else if (field >= 2 && field <= 4) {
                f[field - 2] = r.varint();
            } else {
                r.skip((int) (key & 7));
            }
        }
        functions.put(id, f);
    }

    /** @return the index of the sample type named {@code name} */
    int typeIndex(String name) {
        for (int i = 0; i < sampleTypes.size(); i++) {
            if (strings.get((int) sampleTypes.get(i)[0]).equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no sample type " + name);
    }

    long sum(String type) {
        int i = typeIndex(type);
        return sampleValues.stream().mapToLong(v -> v[i]).sum();
    }

    /** @return the frames of sample {@code s}, leaf first, as {@code function(file:line)} */
    List<String> frames(int s) {
        List<String> l = new ArrayList<>();
        for (long loc : sampleLocations.get(s)) {
            long[] line = locationLine.get(loc);
            long[] fn = functions.get(line[0]);
            l.add(strings.get((int) fn[0]) + "(" + strings.get((int) fn[2]) + ":" + line[1] + ")");
        }
        return l;
    }

    private static final class Reader {
        final byte[] b;
        int pos;
        final int end;

        Reader(byte[] b, int pos, int end) {
            this.b = b;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte x = b[pos++];
                v |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return v;
                }
            }
            throw new IllegalStateException("varint too long");
        }

        Reader sub() {
            int len = (int) varint();
            Reader r = new Reader(b, pos, pos + len);
            pos += len;
            return r;
        }

        String string() {
            Reader r = sub();
            return new String(b, r.pos, r.end - r.pos, java.nio.charset.StandardCharsets.UTF_8);
        }

        void skip(int wire) {
            switch (wire) {
                case 0 -> varint();
                case 1 -> pos += 8;
                case 2 -> sub();
                case 5 -> pos += 4;
                default -> throw new IllegalStateException("wire type " + wire);
            }
        }
    }
}
