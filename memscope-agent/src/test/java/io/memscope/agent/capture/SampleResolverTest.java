package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.internal.store.StringTable;
import org.junit.jupiter.api.Test;

class SampleResolverTest {
    @Test
    void typeNamesFromJvmSignaturesAsClassGetTypeNameWritesThem() {
        assertThat(SampleResolver.typeNameOf("Ljava/lang/String;")).isEqualTo(String.class.getTypeName());
        assertThat(SampleResolver.typeNameOf("[I")).isEqualTo(int[].class.getTypeName());
        assertThat(SampleResolver.typeNameOf("[[J")).isEqualTo(long[][].class.getTypeName());
        assertThat(SampleResolver.typeNameOf("[Ljava/lang/Object;")).isEqualTo(Object[].class.getTypeName());
        assertThat(SampleResolver.typeNameOf("Ljava/util/HashMap$Node;"))
                .isEqualTo("java.util.HashMap$Node");
        for (String p : new String[] {"Z", "B", "C", "S", "F", "D"}) {
            assertThat(SampleResolver.typeNameOf("[" + p)).endsWith("[]").doesNotContain("[" + p);
        }
    }

    @Test
    void eachClassAndThreadIsResolvedOnce() {
        StringTable strings = new StringTable();
        SampleResolver r = new SampleResolver(new StackTable(), 64, false, strings);
        assertThat(r.knows(7)).isFalse();
        assertThat(r.typeName(7, "[B")).isEqualTo("byte[]");
        assertThat(r.knows(7)).isTrue();
        assertThat(r.typeName(7, null)).isEqualTo("byte[]");
        assertThat(strings.get(r.typeNameId(7))).isEqualTo("byte[]");
        assertThat(r.typeName(0, null)).isEqualTo("unknown");
        assertThat(r.typeName(5000, "Ljava/lang/Integer;")).as("ids beyond the first table").isEqualTo(
                "java.lang.Integer");

        assertThat(r.thread(42)).isNull();
        Thread t = new Thread("worker-42");
        SampleResolver.ThreadInfo info = r.announce(42, t);
        assertThat(strings.get(info.nameId)).isEqualTo("worker-42");
        assertThat(r.thread(42)).isSameAs(info);
        assertThat(r.announce(42, null)).as("announced again (another carrier)").isSameAs(info);
        assertThat(r.announce(43, null)).as("its Thread already gone").isNull();
    }

    @Test
    void aRecordWithoutFramesNeverSeenBeforeCannotBeResolved() {
        SampleResolver r = new SampleResolver(new StackTable(), 64, false, new StringTable());
        assertThat(r.stack(0, new long[0], 0, 0).siteClass).as("no Java frames").isEqualTo("unknown");
        assertThat(r.stack(1234, new long[0], 0, 0)).isNull();
    }
}
