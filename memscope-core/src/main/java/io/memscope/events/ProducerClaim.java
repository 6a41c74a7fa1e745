package io.memscope.events;

import io.memscope.internal.version.BuildVersion;
import io.memscope.error.MemscopeException;
import io.memscope.internal.error.Failures;

import java.security.CodeSource;
import java.util.Properties;

/**
 * Makes sure that one copy of this package produces {@code <pid>.events} in a JVM. Two copies can be loaded: an
 * application server's web application brings its memscope-core while the agent (or a shared library folder)
 * brings another, maybe of another version, each in its own class loader. Each would create the same file and
 * overwrite the other's rings. So the copy that starts first claims the JVM through a system property (the one
 * place every class loader shares), holding its identity; another copy asked to start finds the claim, stays off,
 * prints one line on stderr saying which copy writes the file and counts the refusal in {@link Failures}
 * (category CONFIGURATION). The claim is released when its owner stops.
 *
 * <p>The property's value is a string (some code iterates the system properties as strings):
 * {@code memscope-core <version> (<jar or classes directory>, class loader <name>) #<identity>}.
 */
final class ProducerClaim {
    /** The system property holding the claim; built at run time so that relocation in a shaded jar leaves it. */
    static final String PROPERTY = String.join(".", "io", "memscope", "events", "producer");

    /** This copy's identity: the identity hash makes two copies of one jar in two class loaders differ. */
    static final String SELF = describe() + " #" + Integer.toHexString(System.identityHashCode(ProducerClaim.class));

    private static volatile boolean told;

    private ProducerClaim() {
    }

    /**
     * Claims this JVM's events file for this copy.
     *
     * @return true if this copy owns it now (claimed here or before); false if another copy does: refused (one
     * stderr line, counted)
     */
    static boolean claim() {
        Properties p = System.getProperties();
        Object owner = p.putIfAbsent(PROPERTY, SELF);
        if (owner == null || SELF.equals(owner)) {
            return true;
        }
        refuse(String.valueOf(owner));
        return false;
    }

    /** Gives the claim up, if this copy holds it. */
    static void release() {
        System.getProperties().remove(PROPERTY, SELF);
    }

    private static void refuse(String owner) {
        String owned = owner.replaceFirst(" #[0-9a-f]+$", "");
        String message = "memscope: runtime events stay off for " + describe() + ": " + owned
                + " already writes this JVM's events file (one producer per JVM; its spans and counters work, use"
                + " that copy: load memscope-core once, from the shared class loader)";
        if (!told) {
            told = true;
            System.err.println(message);
        }
        Failures.report("events.start", MemscopeException.configuration(message));
    }

    private static String describe() {
        String where;
        try {
            CodeSource cs = ProducerClaim.class.getProtectionDomain().getCodeSource();
            where = cs == null || cs.getLocation() == null ? "unknown location" : cs.getLocation().toString();
        } catch (RuntimeException e) { // a security manager refusing getProtectionDomain
            where = "unknown location";
        }
        ClassLoader l = ProducerClaim.class.getClassLoader();
        String loader = l == null ? "bootstrap" : l.getName() != null ? l.getName() : l.getClass().getName();
        return "memscope-core " + BuildVersion.get() + " (" + where + ", class loader " + loader + ")";
    }
}
