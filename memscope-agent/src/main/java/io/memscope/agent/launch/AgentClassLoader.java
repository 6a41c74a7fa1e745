package io.memscope.agent.launch;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Loads the agent's own classes ({@code io.memscope.agent.*}, this package excepted) straight from the agent jar,
 * child first; every other class through its parent, the system class loader.
 *
 * <p>Why: the agent loads about 90 of its classes at every start of the application's JVM, before the
 * application's {@code main}. Through the system class loader each one first misses on every entry of the
 * application's class path (a URL made and a file or jar looked up per entry, in a JVM whose class-loading code still
 * runs interpreted), then is read through the jar's URL machinery with its manifest, package and code source
 * checks. Here a class is one lookup in the jar, already open, and one {@code defineClass}: the agent's start costs
 * about 15 ms less CPU (docs/benchmarks.md, "Agent: start and exit"), more with a long class path.
 *
 * <p>The classes keep the agent jar as their code source ({@code -Xlog:class+load} names the jar; the agent finds
 * its jar's resources through it). They live in this loader's unnamed module, which the agent opens {@code java.lang}
 * to as before. The system class loader still sees the same classes in the jar (the JVM appends the agent jar to
 * the class path), but loading them there gives another copy without the running capture: to reach the running
 * agent, use {@link AgentLaunch#agentClassLoader()}.
 */
final class AgentClassLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static final String OWN = "io.memscope.agent.";
    private static final String LAUNCH = "io.memscope.agent.launch.";

    private final ZipFile jar;
    private final ProtectionDomain domain;

    private AgentClassLoader(ClassLoader parent, ZipFile jar, ProtectionDomain domain) {
        super(parent);
        this.jar = jar;
        this.domain = domain;
    }

    /** @return a loader for the agent jar this class came from, or null when it did not come from a jar */
    static ClassLoader create() {
        try {
            ProtectionDomain pd = AgentClassLoader.class.getProtectionDomain();
            CodeSource cs = pd.getCodeSource();
            URL location = cs == null ? null : cs.getLocation();
            if (location == null || !"file".equals(location.getProtocol())) {
                return null;
            }
            File f = new File(location.toURI());
            if (!f.isFile()) {
                return null;
            }
            return new AgentClassLoader(AgentClassLoader.class.getClassLoader(), new ZipFile(f),
                    new ProtectionDomain(new CodeSource(location, (Certificate[]) null), pd.getPermissions(),
                            null, null));
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(OWN) || name.startsWith(LAUNCH)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                c = findClass(name);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        ZipEntry e = jar.getEntry(name.replace('.', '/').concat(".class"));
        if (e == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] b;
        try {
            b = read(e);
        } catch (IOException x) {
            throw new ClassNotFoundException(name, x);
        }
        return defineClass(name, b, 0, b.length, domain);
    }

    private byte[] read(ZipEntry e) throws IOException {
        long size = e.getSize();
        InputStream in = jar.getInputStream(e);
        try {
            byte[] b = new byte[(int) size];
            int n = 0;
            while (n < b.length) {
                int r = in.read(b, n, b.length - n);
                if (r < 0) {
                    throw new IOException("truncated " + e.getName());
                }
                n += r;
            }
            return b;
        } finally {
            in.close();
        }
    }
}
