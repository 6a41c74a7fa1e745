package io.memscope.analysis.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.analysis.export.pprof.ProfileProto;
import io.memscope.launch.pprof.PprofWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * memscope-launch's hand-written pprof encoder, read back with protobuf-java's messages generated from
 * {@code profile.proto}: an independent decoder.
 */
class PprofWriterTest {
    private static String str(ProfileProto.Profile p, long i) {
        return p.getStringTable((int) i);
    }

    @Test
    void everyFieldReadsBackWithProtobufJava() throws Exception {
        PprofWriter w = new PprofWriter();
        w.sampleType("alloc_objects", "count");
        w.sampleType("alloc_space", "bytes");
        w.period("space", "bytes", 524_288);
        w.time(1_700_000_000_123_456_789L, 10_000_000_000L);
        w.defaultSampleType("alloc_space");
        w.comment("a comment with ünïcode");
        long leaf = w.frame("com.acme.Cache.put(Cache.java:42)");
        long caller = w.frame("com.acme.Main.main(Main.java:7)");
        long unknown = w.frame("com.acme.Gen.run(Unknown Source)");
        assertThat(w.frame("com.acme.Cache.put(Cache.java:42)")).as("deduplicated").isEqualTo(leaf);
        long other = w.location("com.acme.Cache.put", "Cache.java", 50); // same function, another line
        w.sample(new long[] {leaf, caller}, 2, new long[] {3, 300}, "thread", "main", "empty", "");
        w.sample(new long[] {unknown}, 1, new long[] {Long.MAX_VALUE, -5}, "thread", "worker-1");
        w.sample(new long[] {other, caller}, 2, new long[] {1L << 40, 0});
        assertThatThrownBy(() -> w.sample(new long[0], 0, new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        w.writeGzipped(gz);

        ProfileProto.Profile p = ProfileProto.Profile.parseFrom(new GZIPInputStream(
                new ByteArrayInputStream(gz.toByteArray())));
        assertThat(p.getStringTable(0)).isEmpty();
        assertThat(p.getSampleTypeList()).extracting(t -> str(p, t.getType()) + "/" + str(p, t.getUnit()))
                .containsExactly("alloc_objects/count", "alloc_space/bytes");
        assertThat(str(p, p.getPeriodType().getType())).isEqualTo("space");
        assertThat(str(p, p.getPeriodType().getUnit())).isEqualTo("bytes");
        assertThat(p.getPeriod()).isEqualTo(524_288);
        assertThat(p.getTimeNanos()).isEqualTo(1_700_000_000_123_456_789L);
        assertThat(p.getDurationNanos()).isEqualTo(10_000_000_000L);
        assertThat(str(p, p.getDefaultSampleType())).isEqualTo("alloc_space");
        assertThat(p.getCommentList()).extracting(c -> str(p, c)).containsExactly("a comment with ünïcode");

        assertThat(p.getFunctionCount()).as("Cache.put once for both lines").isEqualTo(3);
        assertThat(p.getLocationCount()).isEqualTo(4);
        List<String> rendered = new ArrayList<>();
        for (ProfileProto.Sample s : p.getSampleList()) {
            StringBuilder b = new StringBuilder();
            for (long id : s.getLocationIdList()) {
                ProfileProto.Location l = p.getLocation((int) id - 1);
                assertThat(l.getId()).isEqualTo(id);
                ProfileProto.Function f = p.getFunction((int) l.getLine(0).getFunctionId() - 1);
                assertThat(f.getSystemName()).isEqualTo(f.getName());
                b.append(str(p, f.getName())).append('(').append(str(p, f.getFilename())).append(':')
                        .append(l.getLine(0).getLine()).append(") ");
            }
            b.append(s.getValueList());
            for (ProfileProto.Label l : s.getLabelList()) {
                b.append(' ').append(str(p, l.getKey())).append('=').append(str(p, l.getStr()));
            }
            rendered.add(b.toString());
        }
        assertThat(rendered).containsExactly(
                "com.acme.Cache.put(Cache.java:42) com.acme.Main.main(Main.java:7) [3, 300] thread=main",
                "com.acme.Gen.run(:0) [" + Long.MAX_VALUE + ", -5] thread=worker-1",
                "com.acme.Cache.put(Cache.java:50) com.acme.Main.main(Main.java:7) [1099511627776, 0]");
    }

    @Test
    void framesParseAsTheReportWritesThem() {
        assertThat(PprofWriter.Frame.parse("a.B.c(B.java:12)")).isEqualTo(new PprofWriter.Frame("a.B.c", "B.java", 12));
        assertThat(PprofWriter.Frame.parse("a.B.c(B.java)")).isEqualTo(new PprofWriter.Frame("a.B.c", "B.java", 0));
        assertThat(PprofWriter.Frame.parse("a.B.c(Unknown Source)")).isEqualTo(new PprofWriter.Frame("a.B.c", "", 0));
        assertThat(PprofWriter.Frame.parse("(other stacks)")).isEqualTo(new PprofWriter.Frame("", "other stacks", 0));
        assertThat(PprofWriter.Frame.parse("native")).isEqualTo(new PprofWriter.Frame("native", "", 0));
    }

    @Test
    void anEmptyProfileIsValid() throws Exception {
        ProfileProto.Profile p = ProfileProto.Profile.parseFrom(new PprofWriter().toByteArray());
        assertThat(p.getStringTableList()).containsExactly("");
        assertThat(p.getSampleCount()).isZero();
    }
}
