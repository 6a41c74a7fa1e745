package io.memscope.agent.instrument;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.zip.CRC32;

/**
 * The JDK classes the agent instruments ({@code jdk.internal.misc.Unsafe}, about 100 KB, at every start with native
 * tracking; {@code java.lang.management.ManagementFactory} when the application loads it, for the MXBean), as it
 * instrumented them the last time: so that a start does not load and run ASM for them again. An entry is keyed by
 * the class file the JVM handed over (its length and CRC-32) and by the agent jar (its length and modification time,
 * so that another build of the agent never reuses an entry); its own CRC-32 is checked when it is read.
 *
 * <p>Entries live in {@code <java.io.tmpdir>/memscope-<user>/classes}, a directory that must belong to the user and
 * be writable by nobody else (what is read from it is loaded into {@code java.base}); when it is not, or anything
 * fails, the cache is not used and the class is instrumented as usual.
 */
final class TransformCache {
    private final File dir;
    private final String agentKey;

    private TransformCache(File dir, String agentKey) {
        this.dir = dir;
        this.agentKey = agentKey;
    }

    /** @return the cache for the agent jar {@code agentJar}, or null when there is no usable private directory */
    static TransformCache open(File agentJar) {
        try {
            if (agentJar == null || !agentJar.isFile()) {
                return null;
            }
            String user = safeName(System.getProperty("user.name", "user"));
            File base = new File(System.getProperty("java.io.tmpdir"), "memscope-" + user);
            File dir = new File(base, "classes");
            if (!privateDir(base) || !privateDir(dir)) {
                return null;
            }
            return new TransformCache(dir, Long.toHexString(agentJar.length()) + "-"
                    + Long.toHexString(agentJar.lastModified()));
        } catch (Throwable t) {
            return null;
        }
    }

    /** @return the name with every character outside {@code [A-Za-z0-9._-]} replaced by {@code _} (no regex) */
    static String safeName(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == '-';
            b.append(ok ? c : '_');
        }
        return b.toString();
    }

    /** Creates {@code d} (mode 0700) if missing; @return whether it is a directory of this user, private to it */
    private static boolean privateDir(File d) throws IOException {
        Path p = d.toPath();
        if (!d.exists() && d.mkdir()) {
            d.setReadable(false, false);
            d.setWritable(false, false);
            d.setExecutable(false, false);
            d.setReadable(true, true);
            d.setWritable(true, true);
            d.setExecutable(true, true);
        }
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.isDirectory() && a.owner().getName().equals(System.getProperty("user.name"))
                && !a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                && !a.permissions().contains(PosixFilePermission.OTHERS_WRITE);
    }

    /** @return the instrumented class stored for this class file, or null */
    byte[] get(String name, byte[] original) {
        File f = entry(name, original);
        try {
            if (!f.isFile() || f.length() < 8 || f.length() > 16 << 20) {
                return null;
            }
            byte[] all = new byte[(int) f.length()];
            try (FileInputStream in = new FileInputStream(f)) {
                int n = 0;
                while (n < all.length) {
                    int r = in.read(all, n, all.length - n);
                    if (r < 0) {
                        return null;
                    }
                    n += r;
                }
            }
            CRC32 crc = new CRC32();
            crc.update(all, 8, all.length - 8);
            long stored = 0;
            for (int i = 0; i < 8; i++) {
                stored = stored << 8 | (all[i] & 0xff);
            }
            if (stored != crc.getValue()) {
                return null;
            }
            byte[] out = new byte[all.length - 8];
            System.arraycopy(all, 8, out, 0, out.length);
            return out;
        } catch (Throwable t) {
            return null;
        }
    }

    /** Stores the instrumented class (written to a temporary file, then renamed: readers never see half of it). */
    void put(String name, byte[] original, byte[] instrumented) {
        File f = entry(name, original);
        File tmp = new File(dir, f.getName() + "." + System.nanoTime() + ".tmp");
        try {
            CRC32 crc = new CRC32();
            crc.update(instrumented, 0, instrumented.length);
            long v = crc.getValue();
            byte[] head = new byte[8];
            for (int i = 7; i >= 0; i--) {
                head[i] = (byte) v;
                v >>>= 8;
            }
            try (FileOutputStream out = new FileOutputStream(tmp)) {
                out.write(head);
                out.write(instrumented);
            }
            if (!tmp.renameTo(f)) {
                tmp.delete();
            }
        } catch (Throwable t) {
            tmp.delete();
        }
    }

    private File entry(String name, byte[] original) {
        CRC32 crc = new CRC32();
        crc.update(original, 0, original.length);
        return new File(dir, name.replace('/', '.') + "-" + Integer.toHexString(original.length) + "-"
                + Long.toHexString(crc.getValue()) + "-" + agentKey + ".class");
    }
}
