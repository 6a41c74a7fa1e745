package io.memscope.events;

import io.memscope.error.MemscopeException;
import io.memscope.internal.files.PrivateFiles;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Set;

import static io.memscope.events.RingLayout.*;

/**
 * The producer side of one ring file: creates and maps {@code <dir>/<pid>.events}, writes the header (the
 * {@code ready} word last), appends names, and hands out thread slots. See {@link RingLayout} for the bytes.
 */
final class EventsFile {
    final Path path;
    final MappedByteBuffer buf;
    final int slotCount;
    final int ringSize;
    final long startEpochNanos;
    final long startMonoNanos;
    final EventsSettings settings;
    private final Set<Long> writtenEntries = new HashSet<>();
    private int namesUsed;

    private EventsFile(Path path, MappedByteBuffer buf, EventsSettings settings, long epoch, long mono) {
        this.path = path;
        this.buf = buf;
        this.settings = settings;
        this.slotCount = settings.slots();
        this.ringSize = settings.ringSize();
        this.startEpochNanos = epoch;
        this.startMonoNanos = mono;
    }

    static EventsFile create(EventsSettings s, long pid, java.util.List<NameRegistry.Entry> names) {
        Path dir = s.directory();
        Path file = dir.resolve(pid + ".events");
        try {
            createPrivateDirectory(dir);
            Files.deleteIfExists(file); // a stale file of an earlier process with the same pid
            long size = HEADER_BYTES + (long) EventsSettings.NAMES_CAPACITY + slotsBytes(s.slots(), s.ringSize());
            MappedByteBuffer buf;
            try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE), privateFile(file))) {
                buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, size); // grows the file (sparse, zero-filled)
            }
            if (posix(file)) {
                Files.setPosixFilePermissions(file, PrivateFiles.FILE_MODE); // 0600 whatever the umask
            }
            buf.order(ByteOrder.LITTLE_ENDIAN);
            long mono = System.nanoTime();
            java.time.Instant now = java.time.Instant.now();
            long epoch = now.getEpochSecond() * 1_000_000_000L + now.getNano();
            EventsFile f = new EventsFile(file, buf, s, epoch, mono);
            buf.putLong(H_MAGIC, MAGIC);
            buf.putInt(H_VERSION, VERSION);
            buf.putInt(H_HEADER_SIZE, HEADER_BYTES);
            buf.putLong(H_PID, pid);
            buf.putLong(H_START_EPOCH, epoch);
            buf.putLong(H_START_MONO, mono);
            buf.putInt(H_SLOT_COUNT, s.slots());
            buf.putInt(H_RING_SIZE, s.ringSize());
            buf.putInt(H_SLOT_HEADER_SIZE, SLOT_HEADER_BYTES);
            buf.putInt(H_NAMES_CAPACITY, EventsSettings.NAMES_CAPACITY);
            buf.putLong(H_NAMES_OFFSET, HEADER_BYTES);
            buf.putLong(H_SLOTS_OFFSET, HEADER_BYTES + (long) EventsSettings.NAMES_CAPACITY);
            buf.putLong(H_FILE_SIZE, size);
            buf.putInt(H_MAX_RECORD, MAX_RECORD_BYTES);
            for (NameRegistry.Entry e : names) {
                f.append(e);
            }
            INT.setRelease(buf, H_READY, 1);
            return f;
        } catch (IOException | UnsupportedOperationException e) {
            throw MemscopeException.system("cannot create ring file " + file + ": " + e, e);
        }
    }

    private static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private static FileAttribute<?>[] privateFile(Path file) {
        return posix(file) ? new FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))} : new FileAttribute<?>[0];
    }

    /**
     * Creates the directory with mode 0700 if missing; refuses an existing one that is a link, belongs to another
     * user (root's excepted), or that others can write ({@link PrivateFiles#checkPrivate}).
     */
    static void createPrivateDirectory(Path dir) throws IOException {
        if (!posix(dir)) {
            Files.createDirectories(dir);
            return;
        }
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try {
                PrivateFiles.createFolder(dir);
            } catch (FileAlreadyExistsException raced) {
                // another JVM of the same user created it first
            }
        }
        try {
            PrivateFiles.checkPrivate(dir);
        } catch (IOException e) {
            throw new IOException("events directory: " + e.getMessage()
                    + " (set MEMSCOPE_EVENTS_DIR to a private folder of yours)", e);
        }
    }

    /** Appends a names entry (once per entry) and publishes the new used size with a release store. */
    synchronized void append(NameRegistry.Entry e) {
        long key = ((long) e.entryKind << 32) | e.id;
        if (!writtenEntries.add(key)) {
            return;
        }
        int n = e.bytes();
        if (namesUsed + n > EventsSettings.NAMES_CAPACITY) {
            LONG.getAndAdd(buf, H_NAMES_DROPPED, 1L);
            return;
        }
        int at = HEADER_BYTES + namesUsed;
        buf.putShort(at, (short) n);
        buf.put(at + 2, (byte) e.entryKind);
        buf.put(at + 3, (byte) e.eventKind);
        buf.putShort(at + 4, (short) e.id);
        buf.putShort(at + 6, (short) e.typeId);
        buf.putShort(at + 8, (short) e.utf8.length);
        for (int i = 0; i < e.utf8.length; i++) {
            buf.put(at + ENTRY_HEADER_BYTES + i, e.utf8[i]);
        }
        namesUsed += n;
        INT.setRelease(buf, H_NAMES_USED, namesUsed);
    }

    int slotBase(int slot) {
        return (int) (HEADER_BYTES + EventsSettings.NAMES_CAPACITY + (long) slot * (SLOT_HEADER_BYTES + ringSize));
    }

    /**
     * Claims a free slot for {@code thread}: free -> claiming (CAS) -> the previous generation's thread id, start
     * position and name copied to the "previous" fields, this thread's id, start position and name written ->
     * active with the next generation (store-release). Returns null when every slot is in use.
     *
     * <p>The previous generation's fields let a reader that missed that generation (the slot was reused twice
     * between two of its polls, or it first looks at a ring still holding the earlier owner's records) attribute
     * those records to their thread; records of older generations it counts as lost, never as the new owner's.
     */
    RingWriter claim(Thread thread) {
        for (int i = 0; i < slotCount; i++) {
            int base = slotBase(i);
            long state = (long) LONG.getVolatile(buf, base + S_STATE);
            if ((state & 0xFF) != STATE_FREE) {
                continue;
            }
            long gen = state >>> 8;
            if (!LONG.compareAndSet(buf, base + S_STATE, state, (gen << 8) | STATE_CLAIMING)) {
                continue;
            }
            if (gen > 0) {
                buf.putLong(base + S_PREV_TID, buf.getLong(base + S_TID));
                buf.putLong(base + S_PREV_START_POS, buf.getLong(base + S_START_POS));
                int len = Math.min(buf.getShort(base + S_NAME_LEN) & 0xFFFF, MAX_THREAD_NAME_BYTES);
                byte[] prev = new byte[len];
                for (int k = 0; k < len; k++) {
                    prev[k] = buf.get(base + S_NAME + k);
                }
                prev = truncatedUtf8(prev, MAX_PREV_THREAD_NAME_BYTES);
                buf.putShort(base + S_PREV_NAME_LEN, (short) prev.length);
                for (int k = 0; k < prev.length; k++) {
                    buf.put(base + S_PREV_NAME + k, prev[k]);
                }
            }
            long tail = (long) LONG.getVolatile(buf, base + S_TAIL);
            buf.putLong(base + S_TID, threadId(thread));
            buf.putLong(base + S_START_POS, tail);
            byte[] name = truncatedUtf8(thread.getName(), MAX_THREAD_NAME_BYTES);
            buf.putShort(base + S_NAME_LEN, (short) name.length);
            for (int k = 0; k < name.length; k++) {
                buf.put(base + S_NAME + k, name[k]);
            }
            RingWriter w = new RingWriter(this, i, base, gen + 1);
            LONG.setRelease(buf, base + S_STATE, ((gen + 1) << 8) | STATE_ACTIVE);
            return w;
        }
        return null;
    }

    @SuppressWarnings("deprecation")
    static long threadId(Thread t) {
        return t.getId(); // threadId() is JDK 19+; same value
    }

    /**
     * Marks the slot of {@code w}, whose thread ended, retired: readable, not reusable until the grace period
     * passed. Only the generation {@code w} owns is retired (compare-and-set on the state word): a late or repeated
     * retirement of an earlier owner (two reapers that both saw the thread end) must not retire the slot of the
     * thread that owns it now, which would hand its ring to a second writer.
     */
    void retire(RingWriter w) {
        int base = slotBase(w.slot);
        long active = (w.generation << 8) | STATE_ACTIVE;
        if ((long) LONG.getVolatile(buf, base + S_STATE) != active) {
            return;
        }
        buf.putLong(base + S_RETIRED_AT, System.nanoTime());
        LONG.compareAndSet(buf, base + S_STATE, active, (w.generation << 8) | STATE_RETIRED);
    }

    /** Frees retired slots whose grace period has passed. */
    void freeExpired(long graceNanos) {
        long now = System.nanoTime();
        for (int i = 0; i < slotCount; i++) {
            int base = slotBase(i);
            long state = (long) LONG.getVolatile(buf, base + S_STATE);
            if ((state & 0xFF) == STATE_RETIRED && now - buf.getLong(base + S_RETIRED_AT) >= graceNanos) {
                LONG.compareAndSet(buf, base + S_STATE, state, (state & ~0xFFL) | STATE_FREE);
            }
        }
    }

    void countDropped() {
        LONG.getAndAdd(buf, H_DROPPED, 1L);
    }

    void markClosed() {
        INT.setRelease(buf, H_CLOSED, 1);
        buf.force();
    }

    static byte[] truncatedUtf8(String s, int max) {
        return truncatedUtf8(s.getBytes(StandardCharsets.UTF_8), max);
    }

    static byte[] truncatedUtf8(byte[] b, int max) {
        if (b.length <= max) {
            return b;
        }
        int n = max;
        while (n > 0 && (b[n] & 0xC0) == 0x80) {
            n--; // do not cut a multi-byte character
        }
        byte[] r = new byte[n];
        System.arraycopy(b, 0, r, 0, n);
        return r;
    }
}
