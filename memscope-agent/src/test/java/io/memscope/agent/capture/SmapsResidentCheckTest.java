package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident check's reading of smaps (as Linux prints it for a JVM): the heap's mappings by the range
 * {@code GC.heap_info} prints, the code heaps' by {@code Compiler.codecache}'s bounds, thread stacks by their guard
 * (a Java thread's 16 KiB of HotSpot zones, a JVM thread's 4 KiB glibc page) right below a stack-sized rest; a guard
 * and mapping of another size (a malloc arena) and a file mapping are none of them.
 */
class SmapsResidentCheckTest {
    private static final String HEAP_INFO = " garbage-first heap   total 397312K, used 7962K [0x0000000687400000, "
            + "0x0000000800000000)\n  region size 4096K, 1 young (4096K), 0 survivors (0K)\n";
    private static final String CODE = "CodeHeap 'non-profiled nmethods': size=120036Kb used=148Kb\n"
            + " bounds [0x00007fe818ec7000, 0x00007fe819137000, 0x00007fe820400000]\n"
            + "CodeHeap 'non-nmethods': size=5692Kb used=1116Kb max_used=1130Kb free=4575Kb\n"
            + " bounds [0x00007fe818938000, 0x00007fe818ba8000, 0x00007fe818ec7000]\n";

    private static String mapping(long start, long end, String perms, String path, long rssKb) {
        return String.format("%x-%x %s 00000000 00:00 %s%s%nSize:            %8d kB%nKernelPageSize:        4 kB%n"
                + "Rss:             %8d kB%nPss:             %8d kB%nVmFlags: rd wr mr mw me ac sd%n", start, end,
                perms, path.isEmpty() ? "0" : "1234", path.isEmpty() ? "" : "                    " + path,
                (end - start) / 1024, rssKb, rssKb);
    }

    @Test
    void heapCodeAndStacksAreFoundByTheirRangesAndGuards(@TempDir Path dir) throws Exception {
        StringBuilder sb = new StringBuilder();
        sb.append(mapping(0x55d0_0000_0000L, 0x55d0_0000_1000L, "r-xp", "/usr/lib/jvm/bin/java", 4));
        sb.append(mapping(0x6874_0000_0L, 0x6a00_0000_0L, "rw-p", "", 3000)); // heap, committed part
        sb.append(mapping(0x6a00_0000_0L, 0x8000_0000_0L, "---p", "", 0)); // heap, reserved
        long t = 0x7fe8_0000_0000L;
        for (int i = 0; i < 3; i++) { // three Java threads: 16 KiB guard + 1008 KiB
            sb.append(mapping(t, t + 16 * 1024, "---p", "", 0));
            sb.append(mapping(t + 16 * 1024, t + 1024 * 1024, "rw-p", "", 100 + i));
            t += 1024 * 1024;
        }
        sb.append(mapping(t, t + 4096, "---p", "", 0)); // a GC thread: glibc's page + 1 MiB
        sb.append(mapping(t + 4096, t + 4096 + 1024 * 1024, "rw-p", "", 50));
        t += 4096 + 1024 * 1024;
        sb.append(mapping(t, t + 132 * 1024, "rw-p", "", 132)); // a malloc arena: not after a guard
        sb.append(mapping(t + 132 * 1024, t + 64 * 1024 * 1024, "---p", "", 0));
        sb.append(mapping(0x7fe8_18ec_7000L, 0x7fe8_1913_7000L, "rwxp", "", 700)); // code heaps
        sb.append(mapping(0x7fe8_1893_8000L, 0x7fe8_18ba_8000L, "rwxp", "", 300));
        sb.append(mapping(0x7fe9_2000_0000L, 0x7fe9_2010_0000L, "rw-p", "/tmp/mapped.bin", 1024)); // a mapped file
        Path smaps = dir.resolve("smaps");
        Files.writeString(smaps, sb.toString());
        SmapsResidentCheck check = new SmapsResidentCheck(HEAP_INFO, CODE, new long[] {1024 * 1024, 1024 * 1024,
            1024 * 1024}, smaps.toString());
        check.run();
        assertThat(check.knowsHeap()).isTrue();
        assertThat(check.heapResident).isEqualTo(3000L * 1024);
        assertThat(check.codeResident).isEqualTo(1000L * 1024);
        assertThat(check.stacksMatched).isEqualTo(4);
        assertThat(check.stacksResident).isEqualTo((100 + 101 + 102 + 50) * 1024L);
    }

    @Test
    void aFileLongerThanTheBufferIsReadWhole(@TempDir Path dir) throws Exception {
        StringBuilder sb = new StringBuilder();
        long t = 0x7f00_0000_0000L;
        for (int i = 0; i < 2000; i++) { // ~ 400 KiB of text, six times the buffer
            sb.append(mapping(t, t + 16 * 1024, "---p", "", 0));
            sb.append(mapping(t + 16 * 1024, t + 1024 * 1024, "rw-p", "", 8));
            t += 1024 * 1024;
        }
        Path smaps = dir.resolve("smaps");
        Files.writeString(smaps, sb.toString());
        SmapsResidentCheck check = new SmapsResidentCheck(null, null, new long[] {1024 * 1024}, smaps.toString());
        check.run();
        assertThat(check.knowsHeap()).isFalse();
        assertThat(check.stacksMatched).isEqualTo(2000);
        assertThat(check.stacksResident).isEqualTo(2000 * 8 * 1024L);
    }

    @Test
    void theFileKeptOpenIsReadAfreshAtEachPassAndAPassAllocatesNothing(@TempDir Path dir) throws Exception {
        Path smaps = dir.resolve("smaps");
        long t = 0x7f00_0000_0000L;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 200; i++) { // about 40 KiB: five buffers
            sb.append(mapping(t, t + 16 * 1024, "---p", "", 0));
            sb.append(mapping(t + 16 * 1024, t + 1024 * 1024, "rw-p", "", 8));
            t += 1024 * 1024;
        }
        Files.writeString(smaps, sb.toString());
        SmapsResidentCheck check = new SmapsResidentCheck(null, null, new long[] {1024 * 1024}, smaps.toString());
        try {
            check.run();
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
                    java.lang.management.ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20; i++) {
                check.run();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(check.stacksMatched).isEqualTo(200);
            assertThat(allocated).as("bytes allocated by 20 passes").isLessThan(1024);
            // the same file, rewritten: the next pass reads what it holds now
            Files.writeString(smaps, sb.substring(0, sb.length() / 2));
            check.run();
            assertThat(check.stacksMatched).isEqualTo(100);
        } finally {
            check.close();
        }
    }

    @Test
    void aHeaderLongerThanTheBufferIsSkippedAndItsFieldsCountedNowhere(@TempDir Path dir) throws Exception {
        long t = 0x7f00_0000_0000L;
        String longPath = "/" + "abcdef0123456789".repeat(SmapsResidentCheck.BUFFER / 8); // hex digits: no header
        StringBuilder sb = new StringBuilder();
        sb.append(mapping(t, t + 16 * 1024, "---p", "", 0));
        sb.append(mapping(t + 16 * 1024, t + 1024 * 1024, "rw-p", "", 8)); // a stack
        sb.append(mapping(t + 1024 * 1024, t + 2048 * 1024, "rw-p", longPath, 500)); // a file: its Rss is no stack's
        sb.append(mapping(t + 2048 * 1024, t + 2064 * 1024, "---p", "", 0));
        sb.append(mapping(t + 2064 * 1024, t + 3072 * 1024, "rw-p", "", 16)); // a stack
        Path smaps = dir.resolve("smaps");
        Files.writeString(smaps, sb.toString());
        SmapsResidentCheck check = new SmapsResidentCheck(null, null, new long[] {1024 * 1024}, smaps.toString());
        check.run();
        check.close();
        assertThat(check.stacksMatched).isEqualTo(2);
        assertThat(check.stacksResident).isEqualTo((8 + 16) * 1024L);
    }
}
