package io.memscope.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {
    @Test
    void processMemoryIsEvery100MsByDefaultZeroIsOffAndBelow10IsRefused() {
        assertThat(AgentOptions.parse(null, Map.of()).processMemoryMillis()).isEqualTo(100);
        assertThat(AgentOptions.parse("processMemory=0", Map.of()).processMemoryMillis()).isZero();
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_PROCESS_MEMORY", "250")).processMemoryMillis())
                .isEqualTo(250);
        assertThat(AgentOptions.parse("processMemory=5", Map.of()).errors()).singleElement().asString()
                .contains("processMemory", "0 (off) or at least 10");
        assertThat(AgentOptions.parse("processMemory=fast", Map.of()).errors()).hasSize(1);
    }

    @Test
    void mallocIsOffByDefaultItsIntervalTakesSizesAndMustBePositive() {
        AgentOptions d = AgentOptions.parse(null, Map.of());
        assertThat(d.malloc()).isFalse();
        assertThat(d.mallocInterval()).isEqualTo(128 * 1024);
        AgentOptions o = AgentOptions.parse("malloc=true,mallocInterval=32k", Map.of());
        assertThat(o.errors()).isEmpty();
        assertThat(o.malloc()).isTrue();
        assertThat(o.mallocInterval()).isEqualTo(32 * 1024);
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_MALLOC", "true", "MEMSCOPE_MALLOC_INTERVAL", "1m"))
                .mallocInterval()).isEqualTo(1 << 20);
        assertThat(AgentOptions.parse("mallocInterval=0", Map.of()).errors()).singleElement().asString()
                .contains("mallocInterval");
        assertThat(AgentOptions.parse("malloc=maybe", Map.of()).errors()).hasSize(1);
        assertThat(String.join("\n", AgentOptions.HELP)).contains("malloc=", "mallocInterval=");
    }

    @Test
    void defaults() {
        AgentOptions o = AgentOptions.parse(null, Map.of());
        assertThat(o.errors()).isEmpty();
        assertThat(o.mode()).isEqualTo(AgentOptions.Mode.SAMPLE);
        assertThat(o.intervalBytes()).isEqualTo(512 * 1024);
        assertThat(o.nativeMemory()).isTrue();
        assertThat(o.includeJdk()).isFalse();
        assertThat(o.out()).isEqualTo(OutputFolders.defaultOutputBase());
        assertThat(o.out().getFileName()).isEqualTo(Path.of("memscope-out"));
    }

    @Test
    void argumentsOverrideEnvironment() {
        AgentOptions o = AgentOptions.parse("mode=exact,interval=1m,include=com.acme;org.x",
                Map.of("MEMSCOPE_MODE", "sample", "MEMSCOPE_INTERVAL", "4k", "MEMSCOPE_OUT", "/tmp/o",
                        "MEMSCOPE_INCLUDE_JDK", "true"));
        assertThat(o.errors()).isEmpty();
        assertThat(o.mode()).isEqualTo(AgentOptions.Mode.EXACT);
        assertThat(o.intervalBytes()).isEqualTo(1 << 20);
        assertThat(o.include()).isEqualTo(List.of("com/acme", "org/x"));
        assertThat(o.out()).isEqualTo(Path.of("/tmp/o"));
        assertThat(o.includeJdk()).isTrue();
    }

    @Test
    void pathsFromGcRootsAreOnByDefaultWithTheirBudgets() {
        AgentOptions d = AgentOptions.parse(null, Map.of());
        assertThat(d.paths()).isTrue();
        assertThat(d.pathsMillis()).isEqualTo(2000);
        assertThat(d.pathsMemory()).isEqualTo(256L << 20);
        AgentOptions o = AgentOptions.parse("paths=false,pathsTime=500,command=paths",
                Map.of("MEMSCOPE_PATHS_MEMORY", "64m"));
        assertThat(o.errors()).isEmpty();
        assertThat(o.paths()).isFalse();
        assertThat(o.pathsMillis()).isEqualTo(500);
        assertThat(o.pathsMemory()).isEqualTo(64L << 20);
        assertThat(o.command()).isEqualTo("paths");
        assertThat(AgentOptions.parse("pathsTime=0", Map.of()).errors()).singleElement().asString()
                .contains("pathsTime");
        assertThat(AgentOptions.parse("pathsMemory=512k", Map.of()).errors()).singleElement().asString()
                .contains("must be at least 1m");
    }

    @Test
    void sampler() {
        assertThat(AgentOptions.parse(null, Map.of()).sampler()).isEqualTo(AgentOptions.Sampler.AUTO);
        assertThat(AgentOptions.parse("sampler=JVMTI", Map.of()).sampler()).isEqualTo(AgentOptions.Sampler.JVMTI);
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_SAMPLER", "bytecode")).sampler())
                .isEqualTo(AgentOptions.Sampler.BYTECODE);
        assertThat(AgentOptions.parse("sampler=auto", Map.of("MEMSCOPE_SAMPLER", "bytecode")).sampler())
                .isEqualTo(AgentOptions.Sampler.AUTO);
        AgentOptions bad = AgentOptions.parse("sampler=fast", Map.of());
        assertThat(bad.errors()).hasSize(1);
        assertThat(bad.errors().get(0)).contains("sampler").contains("auto, jvmti or bytecode");
    }

    @Test
    void stackWalk() {
        assertThat(AgentOptions.parse(null, Map.of()).stackWalk()).isEqualTo(StackWalk.ON);
        assertThat(AgentOptions.parse("stackWalk=check", Map.of()).stackWalk())
                .isEqualTo(StackWalk.CHECK);
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_STACK_WALK", "OFF")).stackWalk())
                .isEqualTo(StackWalk.OFF);
        AgentOptions bad = AgentOptions.parse("stackWalk=fast", Map.of());
        assertThat(bad.errors()).hasSize(1);
        assertThat(bad.errors().get(0)).contains("stackWalk").contains("on, off or check");
        assertThat(String.join("\n", AgentOptions.HELP)).contains("stackWalk=");
    }

    @Test
    void oversampleAndDistances() {
        AgentOptions d = AgentOptions.parse(null, Map.of());
        assertThat(d.oversample()).as("auto").isZero();
        assertThat(d.ownDistances()).isTrue();
        assertThat(AgentOptions.parse("oversample=4,jvmDistances=jvm", Map.of()).oversample()).isEqualTo(4);
        assertThat(AgentOptions.parse("oversample=auto", Map.of()).oversample()).isZero();
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_JVM_DISTANCES", "JVM")).ownDistances()).isFalse();
        assertThat(AgentOptions.parse("oversample=0", Map.of()).errors()).hasSize(1);
        AgentOptions bad = AgentOptions.parse("jvmDistances=random", Map.of());
        assertThat(bad.errors().get(0)).contains("jvmDistances").contains("own or jvm");
    }

    @Test
    void errorsAreCollectedNotThrown() {
        AgentOptions o = AgentOptions.parse("interval=abc,mode=fast,bogus=1,native=maybe,include=1bad", Map.of());
        assertThat(o.errors()).hasSize(5);
        assertThat(String.join("\n", o.errors())).contains("interval").contains("mode").contains("bogus")
                .contains("native").contains("1bad");
    }

    @Test
    void everyOptionIsDocumentedInHelp() {
        String help = String.join("\n", AgentOptions.HELP);
        for (String k : List.of("mode=", "interval=", "include=", "exclude=", "includeJdk=", "native=", "gc=",
                "stackDepth=", "out=", "duration=", "summary=", "quiet=", "strict=", "events=", "sampler=")) {
            assertThat(help).contains(k);
        }
    }

    @Test
    void bytes() {
        assertThat(OptionValues.parseBytes("524288")).isEqualTo(524288);
        assertThat(OptionValues.parseBytes("512k")).isEqualTo(524288);
        assertThat(OptionValues.parseBytes("2MB")).isEqualTo(2 << 20);
        assertThat(OptionValues.parseBytes("1g")).isEqualTo(1L << 30);
        assertThat(OptionValues.parseBytes("1.5MiB")).isEqualTo(3 << 19);
        assertThat(OptionValues.parseBytes("2 TB")).isEqualTo(2L << 40);
        assertThat(AgentOptions.parse("interval=0.5KiB", Map.of()).intervalBytes()).isEqualTo(512);
        for (String bad : new String[] {"-1", "1e3", "12 apples", "1.2.3", "9999999999t"}) {
            assertThatThrownBy(() -> OptionValues.parseBytes(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("512k, 50MB or 1.5GiB");
        }
        assertThat(AgentOptions.parse("endCheckMaxHeap=-1", Map.of()).errors()).singleElement().asString()
                .contains("endCheckMaxHeap", "1.5GiB");
    }

    @Test
    void eventsFromTheArgumentOrTheOcamlStyleVariable() {
        assertThat(AgentOptions.parse(null, Map.of()).events()).isFalse();
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_EVENTS_START", "1")).events()).isTrue();
        assertThat(AgentOptions.parse("events=true", Map.of()).events()).isTrue();
        assertThat(AgentOptions.parse("events=false", Map.of("MEMSCOPE_EVENTS_START", "1")).events()).isFalse();
        assertThat(AgentOptions.parse(null, Map.of("MEMSCOPE_EVENTS_START", "maybe")).errors()).isNotEmpty();
    }

    @Test
    void boundsAndChunksOfTheRecording() {
        AgentOptions none = AgentOptions.parse(null, Map.of());
        assertThat(none.chunked()).isFalse();
        assertThat(none.maxSizeBytes()).isZero();
        AgentOptions o = AgentOptions.parse("maxSize=256m,maxAge=2h", Map.of());
        assertThat(o.errors()).isEmpty();
        assertThat(o.chunked()).isTrue();
        assertThat(o.maxSizeBytes()).isEqualTo(256L << 20);
        assertThat(o.maxAgeMillis()).isEqualTo(7_200_000L);
        AgentOptions c = AgentOptions.parse(null, Map.of("MEMSCOPE_CHUNK_SIZE", "256k", "MEMSCOPE_CHUNK_AGE", "30s"));
        assertThat(c.chunked()).isTrue();
        assertThat(c.chunkSizeBytes()).isEqualTo(256 * 1024);
        assertThat(c.chunkAgeMillis()).isEqualTo(30_000);
        assertThat(AgentOptions.parse("maxSize=100k,maxAge=10ms,chunkSize=1k", Map.of()).errors()).hasSize(3);
        assertThat(String.join("\n", AgentOptions.HELP)).contains("maxSize=").contains("maxAge=")
                .contains("chunkSize=").contains("chunkAge=");
    }
}
