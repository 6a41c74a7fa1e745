package io.memscope.demo;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct (off-heap) buffers that are never released: one per request, kept in a list for the whole run, so neither
 * an explicit release nor their Cleaner ever frees the native memory, and the outstanding memory grows request
 * after request. memscope must report it as a native leak (outstanding and growing) with {@link #run()}'s
 * {@code allocateDirect} as the site. A second buffer, dropped at once, is freed by its Cleaner and must not be
 * reported.
 */
public final class DirectBufferLeakWorkload implements DemoMain.Workload {
    static final List<ByteBuffer> KEPT = new ArrayList<>();

    @Override
    public String name() {
        return "direct-buffer-leak";
    }

    @Override
    public String description() {
        return "direct ByteBuffers that are never released (a native memory leak)";
    }

    @Override
    public void run() throws InterruptedException {
        for (int i = 0; i < 32; i++) {
            Thread.sleep(25); // a request every 25 ms
            ByteBuffer leaked = ByteBuffer.allocateDirect(256 * 1024); // the native leak
            leaked.putInt(0, i);
            KEPT.add(leaked);
            ByteBuffer scratch = ByteBuffer.allocateDirect(64 * 1024); // dropped: freed by its Cleaner
            scratch.putInt(0, i);
        }
        System.out.println("demo: direct-buffer-leak keeps " + KEPT.size() + " direct buffers");
    }
}
