package io.memscope.agent.capture;

import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What of the heap, the code cache and the threads' stacks is resident: one pass over {@code /proc/self/smaps} adding
 * up the {@code Rss:} of the mappings in each. The JVM's own figures for these are committed bytes (the heap's
 * committed regions, the code heaps' committed part, threads times the stack size), which count pages never touched;
 * this pass replaces them with what the kernel says is in memory.
 *
 * <p>How each is found:
 * <ul>
 * <li>heap: the mappings inside the heap's reserved range, which the JVM prints in {@code GC.heap_info}
 * ({@code [0x0000000687400000, 0x0000000800000000)}), asked once;</li>
 * <li>code cache: the mappings inside the code heaps' {@code bounds [low, high, high_boundary]} from
 * {@code Compiler.codecache}, asked once;</li>
 * <li>thread stacks: an anonymous {@code rw-p} mapping right above an anonymous {@code ---p} guard of at most 64 KiB
 * (HotSpot's yellow/red/reserved zones for a Java thread, glibc's guard page for the JVM's own threads), the two
 * adding up to one of the configured stack sizes ({@code ThreadStackSize}, {@code CompilerThreadStackSize},
 * {@code VMThreadStackSize}) or that plus one page. The number of stacks matched is kept, to be compared with the
 * thread count: a stack whose mapping merged with a neighbour's is not recognised (undercounted, never
 * misattributed).</li>
 * </ul>
 *
 * <p>A pass allocates nothing: the file is opened at the first pass and kept open (a seek to 0 makes the kernel write
 * it afresh), read through one 8 KiB buffer (a read that size goes through the JDK's stack buffer, no malloc) and
 * parsed as bytes (no string per line; a line longer than the buffer, a path that long, is skipped). Its cost is the
 * kernel's walk of every mapping's page tables, which grows with the resident set: measured in docs/benchmarks.md.
 * Not thread-safe: one thread runs it ({@link ResidentCheckThread}).
 */
final class SmapsResidentCheck {
    private static final Pattern HEAP_RANGE = Pattern.compile("\\[0x([0-9a-f]+), 0x([0-9a-f]+)");
    private static final Pattern CODE_BOUNDS = Pattern.compile("bounds \\[0x([0-9a-f]+), 0x[0-9a-f]+, 0x([0-9a-f]+)\\]");
    private static final long MAX_GUARD = 64 * 1024;
    private static final long PAGE = 4096;

    private final long heapLow;
    private final long heapHigh;
    private final long[] codeRanges;
    private final long[] stackSizes;
    private final String path;
    /** At most the JDK's stack buffer for reads (8 KiB): a longer read mallocs a buffer of its length each time. */
    static final int BUFFER = 8 * 1024;
    private final byte[] buf = new byte[BUFFER];
    private RandomAccessFile file;

    /** Results of the latest {@link #run()}: bytes resident, and the stacks recognised. */
    long heapResident;
    long codeResident;
    long stacksResident;
    long stacksMatched;

    /**
     * @param heapInfo   the text of {@code GC.heap_info} (its first {@code [0x.., 0x..)} is the heap's reserved range),
     *                   or null when unknown
     * @param codeCache  the text of {@code Compiler.codecache}, or null
     * @param stackSizes the configured stack sizes in bytes (0 entries ignored)
     * @param path       the smaps file ({@code /proc/self/smaps})
     */
    SmapsResidentCheck(String heapInfo, String codeCache, long[] stackSizes, String path) {
        long lo = -1, hi = -1;
        if (heapInfo != null) {
            Matcher m = HEAP_RANGE.matcher(heapInfo);
            if (m.find()) {
                lo = Long.parseUnsignedLong(m.group(1), 16);
                hi = Long.parseUnsignedLong(m.group(2), 16);
            }
        }
        heapLow = lo;
        heapHigh = hi;
        List<Long> code = new ArrayList<>();
        if (codeCache != null) {
            Matcher m = CODE_BOUNDS.matcher(codeCache);
            while (m.find()) {
                code.add(Long.parseUnsignedLong(m.group(1), 16));
                code.add(Long.parseUnsignedLong(m.group(2), 16));
            }
        }
        codeRanges = code.stream().mapToLong(Long::longValue).toArray();
        this.stackSizes = stackSizes.clone();
        this.path = path;
    }

    /** @return whether the heap's range is known (else {@link #heapResident} means nothing) */
    boolean knowsHeap() {
        return heapLow >= 0 && heapHigh > heapLow;
    }

    /** @return whether the code heaps' ranges are known */
    boolean knowsCode() {
        return codeRanges.length > 0;
    }

    /**
     * One pass over the smaps file; the results are in the fields.
     *
     * @throws java.io.IOException when the file cannot be read (the fields keep the previous pass's figures)
     */
    void run() throws java.io.IOException {
        heap = 0;
        code = 0;
        stacks = 0;
        matched = 0;
        have = false;
        RandomAccessFile f = file;
        if (f == null) {
            f = new RandomAccessFile(path, "r");
            file = f;
        } else {
            f.seek(0);
        }
        int n = 0;
        boolean eof = false;
        boolean skipping = false; // in a line longer than the buffer, until its end
        while (true) {
            if (!eof) {
                int r = f.read(buf, n, buf.length - n);
                if (r < 0) {
                    eof = true;
                } else {
                    n += r;
                }
            }
            int line = 0;
            while (true) {
                int nl = indexOf(buf, line, n, (byte) '\n');
                if (nl < 0) {
                    if (eof && line < n) {
                        nl = n; // a last line without a newline
                    } else {
                        break;
                    }
                }
                if (skipping) {
                    skipping = false; // the end of the long line
                } else {
                    line(line, nl);
                }
                line = nl + 1;
            }
            if (eof) {
                break;
            }
            if (line == 0 && n == buf.length) {
                // a line longer than the buffer (a header with a path that long): skipped to its end, and the fields
                // after it are not its mapping's (they are counted nowhere)
                n = 0;
                skipping = true;
                have = false;
            } else if (line > 0) {
                System.arraycopy(buf, line, buf, 0, n - line);
                n -= line;
            }
        }
        heapResident = heap;
        codeResident = code;
        stacksResident = stacks;
        stacksMatched = matched;
    }

    /** Closes the file (the next {@link #run()} opens it again). */
    void close() {
        RandomAccessFile f = file;
        file = null;
        if (f != null) {
            try {
                f.close();
            } catch (java.io.IOException ignored) {
                // a read-only file: nothing was lost
            }
        }
    }

    // the pass's state: its sums, the current mapping and whether the one before it was an anonymous guard
    private long heap, code, stacks, matched;
    private long start, end, prevStart, prevEnd;
    private boolean anon, rw, none, have, prevAnonGuard;

    /** One line of smaps, {@code buf[from, to)}: a mapping's header or one of its fields. */
    private void line(int from, int to) {
        if (from >= to) {
            return;
        }
        if (isHex(buf[from])) { // a header: start-end perms offset dev inode [path]; fields start upper case
            prevStart = start;
            prevEnd = end;
            prevAnonGuard = have && anon && none;
            int p = from;
            long s = 0;
            while (p < to && buf[p] != '-') {
                s = (s << 4) | hex(buf[p++]);
            }
            p++;
            long e = 0;
            while (p < to && buf[p] != ' ') {
                e = (e << 4) | hex(buf[p++]);
            }
            p++;
            if (p + 4 > to) {
                have = false;
                return;
            }
            rw = buf[p] == 'r' && buf[p + 1] == 'w' && buf[p + 3] == 'p';
            none = buf[p] == '-' && buf[p + 1] == '-' && buf[p + 2] == '-';
            p += 4;
            for (int field = 0; field < 4; field++) { // the spaces before offset, dev, inode, path
                while (p < to && buf[p] == ' ') {
                    p++;
                }
                if (field < 3) {
                    while (p < to && buf[p] != ' ') {
                        p++;
                    }
                }
            }
            anon = p >= to || buf[p] != '/'; // no path, or [heap], [stack], [anon:...]
            start = s;
            end = e;
            have = true;
        } else if (have && startsWith(buf, from, to, RSS)) {
            long bytes = number(buf, from + RSS.length, to) * 1024;
            if (knowsHeap() && start >= heapLow && end <= heapHigh) {
                heap += bytes;
            } else if (inCode(start, end)) {
                code += bytes;
            } else if (anon && rw && prevAnonGuard && prevEnd == start && isStack(prevEnd - prevStart, end - start)) {
                stacks += bytes;
                matched++;
            }
        }
    }

    private boolean inCode(long start, long end) {
        for (int i = 0; i < codeRanges.length; i += 2) {
            if (start >= codeRanges[i] && end <= codeRanges[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private boolean isStack(long guard, long stack) {
        if (guard > MAX_GUARD) {
            return false;
        }
        long total = guard + stack;
        for (long s : stackSizes) {
            if (s > 0 && (total == s || total == s + PAGE)) {
                return true;
            }
        }
        return false;
    }

    private static final byte[] RSS = "Rss:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static boolean isHex(byte b) {
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
    }

    private static long hex(byte b) {
        return b <= '9' ? b - '0' : b - 'a' + 10;
    }

    private static int indexOf(byte[] b, int from, int to, byte v) {
        for (int i = from; i < to; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWith(byte[] b, int at, int to, byte[] key) {
        if (at + key.length > to) {
            return false;
        }
        for (int i = 0; i < key.length; i++) {
            if (b[at + i] != key[i]) {
                return false;
            }
        }
        return true;
    }

    private static long number(byte[] b, int from, int to) {
        int p = from;
        while (p < to && (b[p] == ' ' || b[p] == '\t')) {
            p++;
        }
        long v = 0;
        while (p < to && b[p] >= '0' && b[p] <= '9') {
            v = v * 10 + (b[p++] - '0');
        }
        return v;
    }
}
