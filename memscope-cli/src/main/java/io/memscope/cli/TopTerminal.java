package io.memscope.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jline.terminal.Attributes;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.Display;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.NonBlockingReader;

/**
 * The full-screen view of {@code memscope top} on a terminal, through JLine: the terminal's own capabilities
 * (terminfo) rather than hand-written escape codes, so it works in any terminal emulator, in tmux or screen, and over
 * ssh. Raw mode and the alternate screen while it runs, restored on every exit (q, Ctrl-C, the JVM ending, an
 * error); {@link Display} redraws only the lines that changed; a resize is picked up on the next redraw.
 */
final class TopTerminal {
    private static final int QUIT = 'q';
    private static final int CTRL_C = 3;

    private final TopSource source;
    private final String pid;
    private final long periodMillis;
    private final int iterations;
    private final int fixedRows;
    private TopSort sort;
    private boolean paused;
    private TopPaths paths = TopPaths.NONE;

    TopTerminal(TopSource source, String pid, long periodMillis, int iterations, TopSort sort, int fixedRows) {
        this.source = source;
        this.pid = pid;
        this.periodMillis = periodMillis;
        this.iterations = iterations;
        this.sort = sort;
        this.fixedRows = fixedRows;
    }

    /** @return the exit code: 0 after q, Ctrl-C, the iterations, or the JVM's end */
    int run() throws Exception {
        try (Terminal terminal = TerminalBuilder.builder().system(true).name("memscope top").build()) {
            AtomicBoolean interrupted = new AtomicBoolean();
            terminal.handle(Terminal.Signal.INT, s -> interrupted.set(true));
            Attributes saved = terminal.enterRawMode();
            terminal.puts(Capability.enter_ca_mode);
            terminal.puts(Capability.keypad_xmit);
            terminal.puts(Capability.cursor_invisible);
            terminal.flush();
            String ended = null;
            try {
                ended = loop(terminal, interrupted);
            } finally {
                terminal.puts(Capability.cursor_visible);
                terminal.puts(Capability.keypad_local);
                terminal.puts(Capability.exit_ca_mode);
                terminal.flush();
                terminal.setAttributes(saved);
            }
            if (ended != null) {
                terminal.writer().println(ended);
                terminal.flush();
            }
            return 0;
        }
    }

    /** @return a message to print after the screen was restored, or null */
    private String loop(Terminal terminal, AtomicBoolean interrupted) throws Exception {
        Display display = new Display(terminal, true);
        NonBlockingReader keys = terminal.reader();
        TopFrame frame = null;
        int refreshes = 0;
        long due = 0;
        Size shown = null;
        boolean now = true;
        while (!interrupted.get()) {
            Size size = terminal.getSize();
            int width = size.getColumns() > 0 ? size.getColumns() : 120;
            int height = size.getRows() > 0 ? size.getRows() : 40;
            if (now || !paused && System.currentTimeMillis() >= due) {
                now = false;
                if (iterations > 0 && refreshes == iterations) {
                    return null;
                }
                int rows = fixedRows > 0 ? fixedRows : Math.max(1, height - TopScreen.HEADER_LINES);
                try {
                    frame = source.next(sort, rows);
                } catch (TopSource.Ended e) {
                    return "memscope top: " + e.getMessage();
                }
                refreshes++;
                due = System.currentTimeMillis() + periodMillis;
            }
            if (!size.equals(shown)) {
                display.clear();
                display.resize(height, width);
                shown = size;
            }
            List<AttributedString> lines = TopScreen.render(frame, width, true, paused, paths);
            if (lines.size() > height) {
                lines = new ArrayList<>(lines.subList(0, height));
            }
            display.update(lines, -1);
            terminal.flush();
            long wait = paused ? 500 : Math.max(1, due - System.currentTimeMillis());
            int c = read(keys, wait);
            if (c == NonBlockingReader.EOF) {
                Thread.sleep(wait); // no more input (stdin closed): keep refreshing until the JVM ends
                continue;
            }
            if (c == QUIT || c == 'Q' || c == CTRL_C) {
                return null;
            }
            TopSort chosen = TopSort.ofKey(c);
            if (chosen != null && chosen != sort) {
                sort = chosen;
                now = true; // read the new order now, paused or not
            } else if (c == 'p' || c == 'P' || c == ' ') {
                paused = !paused;
                now = !paused;
            } else if (c == 'w' || c == 'W') {
                // why held: one walk of the heap (the JVM pauses, at most 2 s), its paths under the rows
                paths = new TopPaths("walking the heap...", Map.of());
                display.update(TopScreen.render(frame, width, true, paused, paths), -1);
                terminal.flush();
                try {
                    paths = source.paths();
                } catch (Exception e) {
                    paths = new TopPaths("no heap walk: " + e.getMessage(), Map.of());
                }
                now = true;
            }
        }
        return null;
    }

    private static int read(NonBlockingReader keys, long millis) throws IOException {
        int c = keys.read(millis);
        return c == NonBlockingReader.READ_EXPIRED ? -2 : c;
    }
}
