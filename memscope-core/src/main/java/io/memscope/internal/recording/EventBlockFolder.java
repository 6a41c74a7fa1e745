package io.memscope.internal.recording;

import io.memscope.recording.RecordingReader.EventFold;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Folds the events of a recording's EVENTS blocks into an {@link EventFold} on several threads, for a
 * {@link RecordingParser} that reads the rest of the file in order on its own thread (the reading thread). Each
 * EVENTS block decodes on its own (its state starts afresh), so the reading thread hands each one, its CRC checked,
 * to a queue that worker threads take blocks from, each scanning them ({@link EventBlockScanner}) into a part of its
 * own; when the queue is full the reading thread scans the block itself, into its own part.
 *
 * <p><b>Damage as in order.</b> A malformed EVENTS block must end the read where it is, as in a read in file order:
 * nothing after it delivered, none of its events or later ones counted. The blocks handed out since the last
 * settlement form a segment; the parser {@link #settle settles} before it delivers anything from a block that is
 * not EVENTS, and before it ends. Settling waits until the workers are idle; if a block of the segment was malformed,
 * the first one in file order is the damage, the segment's parts are discarded and its blocks before the bad one are
 * read again from the file and scanned on the reading thread; otherwise the parts are merged into the fold. A
 * recording's tables come before its events, so a read settles a handful of times.
 *
 * <p>The fold's {@link EventFold#firstEvents} is called on the reading thread when it reaches the first events in
 * file order (a top-level EVENTS block or a carried one), before any part is made. The workers start then, and stop
 * at {@link #close}. One folder serves the chunks of a chunked recording one after the other.
 */
public final class EventBlockFolder<P extends EventFold.Part> implements AutoCloseable {
    /** Where the blocks of a segment are read again from, after a malformed one. */
    @FunctionalInterface
    interface PayloadReader {
        /** Reads {@code length} bytes at {@code offset} of the file into {@code dst}; @return the bytes read */
        int read(long offset, byte[] dst, int length) throws IOException;
    }

    /** A malformed EVENTS block: where it is, what is wrong ({@link ByteSource.Malformed#position} in its payload). */
    record Failure(long blockOffset, long payloadOffset, ByteSource.Malformed malformed) {
    }

    private record Job(long seq, byte[] bytes, int length, int stringCount, long blockOffset, long payloadOffset) {
    }

    private static final Job STOP = new Job(-1, null, 0, 0, 0, 0);

    private final EventFold<P> fold;
    private final int workerCount;
    private final BlockingQueue<Job> jobs;
    private final BlockingQueue<byte[]> spare;
    private Thread[] workers;
    /** Each worker's part: set by the reading thread while the workers are idle, handed over through the queue. */
    private final Object[] workerParts;
    private final EventBlockScanner scanner = new EventBlockScanner();
    private P readerPart;
    private boolean started;
    private long submitted;

    private final Object lock = new Object();
    /** Blocks scanned by the workers (guarded by lock). */
    private long finished;
    /** Blocks handed to the workers (guarded by lock). */
    private long queued;
    /** The malformed block of the segment first in file order (guarded by lock), null if none. */
    private Job failedJob;
    private ByteSource.Malformed failure;
    /** What a worker's part threw (guarded by lock), null if nothing. */
    private Throwable crash;

    /** The segment: the blocks handed out since the last settlement, in file order. */
    private long segmentFirstSeq;
    private long[] segmentOffsets = new long[256];
    private int[] segmentLengths = new int[256];
    private int[] segmentStrings = new int[256];
    private int segmentSize;

    /**
     * @param workers threads besides the reading thread (0: the reading thread scans every block itself)
     */
    public EventBlockFolder(EventFold<P> fold, int workers) {
        this.fold = fold;
        this.workerCount = workers;
        this.jobs = new ArrayBlockingQueue<>(2 * Math.max(1, workers) + 2);
        this.spare = new ArrayBlockingQueue<>(4 * Math.max(1, workers) + 8);
        this.workerParts = new Object[workers];
    }

    /** @return the worker threads for this machine: one fewer than its processors, at most 3 */
    public static int defaultWorkers() {
        return Math.max(0, Math.min(3, Runtime.getRuntime().availableProcessors() - 1));
    }

    /** Reading thread: the first events in file order are reached; starts the workers (once). */
    private void start() {
        if (started) {
            return;
        }
        started = true;
        fold.firstEvents();
        readerPart = fold.part();
        workers = new Thread[workerCount];
        for (int i = 0; i < workerCount; i++) {
            workerParts[i] = fold.part();
            int index = i;
            Thread t = new Thread(() -> work(index), "memscope-first-read-" + (i + 1));
            t.setDaemon(true);
            workers[i] = t;
            t.start();
        }
    }

    /**
     * Reading thread: the events count an EVENTS payload declares (its first varint), 0 when it cannot be read (the
     * block is malformed: its scan says where).
     */
    static long declaredCount(byte[] bytes, int length) {
        long result = 0;
        for (int i = 0, shift = 0; i < length && shift < 63; i++, shift += 7) {
            int b = bytes[i] & 0xFF;
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result < 1 || result > RecordingFormat.MAX_EVENTS_PER_BLOCK ? 0 : result;
            }
        }
        return 0;
    }

    /**
     * Reading thread: folds a top-level EVENTS block whose CRC matched, {@code bytes[0, length)}.
     *
     * @return the array the reading thread reads its next block into ({@code bytes} itself when it scanned it)
     */
    byte[] submit(byte[] bytes, int length, int stringCount, long blockOffset, long payloadOffset) {
        start();
        long seq = submitted++;
        if (segmentSize == segmentOffsets.length) {
            int n = segmentSize * 2;
            segmentOffsets = Arrays.copyOf(segmentOffsets, n);
            segmentLengths = Arrays.copyOf(segmentLengths, n);
            segmentStrings = Arrays.copyOf(segmentStrings, n);
        }
        if (segmentSize == 0) {
            segmentFirstSeq = seq;
        }
        segmentOffsets[segmentSize] = payloadOffset;
        segmentLengths[segmentSize] = length;
        segmentStrings[segmentSize] = stringCount;
        segmentSize++;
        Job job = new Job(seq, bytes, length, stringCount, blockOffset, payloadOffset);
        if (workerCount > 0) {
            synchronized (lock) {
                queued++;
            }
            if (jobs.offer(job)) {
                byte[] next = spare.poll();
                return next != null ? next : new byte[bytes.length];
            }
            synchronized (lock) {
                queued--;
            }
        }
        try {
            scanner.scanBlock(bytes, length, stringCount, readerPart);
        } catch (ByteSource.Malformed m) {
            failed(job, m);
        }
        return bytes;
    }

    /**
     * Reading thread: folds the events of a carried EVENTS block (a CARRY block's) at {@code bytes[from, limit)}.
     *
     * @return where its last event ends
     */
    int carried(byte[] bytes, int from, int limit, int stringCount) {
        start();
        P part = fold.part();
        int end = scanner.scan(bytes, from, limit, stringCount, part); // if malformed: nothing merged
        fold.merge(part);
        return end;
    }

    private void work(int index) {
        EventBlockScanner own = new EventBlockScanner();
        while (true) {
            Job job;
            try {
                job = jobs.take();
            } catch (InterruptedException e) {
                return;
            }
            if (job == STOP) {
                return;
            }
            @SuppressWarnings("unchecked")
            P part = (P) workerParts[index];
            ByteSource.Malformed bad = null;
            try {
                own.scanBlock(job.bytes, job.length, job.stringCount, part);
            } catch (ByteSource.Malformed m) {
                bad = m;
            } catch (RuntimeException | Error e) {
                synchronized (lock) {
                    crash = e; // a part that throws: thrown on the reading thread when it settles
                }
            }
            spare.offer(job.bytes);
            synchronized (lock) {
                if (bad != null) {
                    recordFailure(job, bad);
                }
                finished++;
                if (finished == queued) {
                    lock.notifyAll();
                }
            }
        }
    }

    private void failed(Job job, ByteSource.Malformed m) {
        synchronized (lock) {
            recordFailure(job, m);
        }
    }

    private void recordFailure(Job job, ByteSource.Malformed m) {
        if (failedJob == null || job.seq < failedJob.seq) {
            failedJob = job;
            failure = m;
        }
    }

    /**
     * Reading thread: waits until every block handed out is scanned, then settles the segment (see the class
     * comment).
     *
     * @param file where the segment's blocks are read again from after a malformed one
     * @return the malformed block first in file order, null if none
     * @throws IOException if the file cannot be read again
     */
    Failure settle(PayloadReader file) throws IOException {
        if (!started) {
            return null;
        }
        Job bad;
        ByteSource.Malformed why;
        synchronized (lock) {
            while (finished != queued) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while the events were folded", e);
                }
            }
            if (crash != null) {
                throw new IllegalStateException("folding the events failed on a worker: " + crash, crash);
            }
            bad = failedJob;
            why = failure;
            failedJob = null;
            failure = null;
        }
        if (bad == null) {
            fold.merge(readerPart);
            readerPart = fold.part();
            for (int i = 0; i < workerCount; i++) {
                @SuppressWarnings("unchecked")
                P part = (P) workerParts[i];
                fold.merge(part);
                workerParts[i] = fold.part();
            }
            segmentSize = 0;
            return null;
        }
        // the parts hold events of the bad block and maybe later ones: scan the good blocks before it again
        readerPart = fold.part();
        for (int i = 0; i < workerCount; i++) {
            workerParts[i] = fold.part();
        }
        P again = fold.part();
        byte[] buffer = new byte[64 * 1024];
        for (int i = 0; i < (int) (bad.seq - segmentFirstSeq); i++) {
            int length = segmentLengths[i];
            if (buffer.length < length) {
                buffer = new byte[length];
            }
            if (file.read(segmentOffsets[i], buffer, length) < length) {
                throw new IOException("the file shrank while being read");
            }
            scanner.scanBlock(buffer, length, segmentStrings[i], again);
        }
        fold.merge(again);
        segmentSize = 0;
        return new Failure(bad.blockOffset, bad.payloadOffset, why);
    }

    /** Stops the workers (each after the block it is scanning). */
    @Override
    public void close() {
        if (workers == null) {
            return;
        }
        jobs.clear(); // the read ended early (an exception): what is left is not needed
        for (int i = 0; i < workers.length; i++) {
            jobs.offer(STOP); // the queue holds more than there are workers
        }
        for (Thread t : workers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
