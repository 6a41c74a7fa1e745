package io.memscope.recording;

import java.util.Arrays;
import java.util.List;

/**
 * One walk of the recorded JVM's heap from its GC roots (a RETENTION block of a recording, format 1.4): for each
 * sampled object still tracked when the walk started, whether the walk reached it and, if so, one chain of references
 * from a GC root down to it. The chains share their common parts: they are a forest of {@link Node}s, each node an
 * object (or, at a root, a class whose static fields are roots), its parent the object whose reference reached it.
 *
 * <p>A sample's path is read from its node up to a root: {@code root -> ... -> parent -> sample}. Each node but the
 * sample contributes its class and the reference that leads to the next node (the next node's {@link Node#kind()},
 * {@link Node#label()} and {@link Node#index()}).
 *
 * <p>Paths are real references the JVM reported at one safepoint, but not necessarily the shortest ones: the walk
 * keeps the first reference that reached an object, replaced by a shallower one seen later. References from
 * weak, phantom and final references to their referents are not followed (they do not keep objects alive); soft
 * references are.
 *
 * @param timestampNanos  {@link System#nanoTime()} of the recorded JVM when the walk was asked for
 * @param pauseNanos      how long the application was stopped for the walk (one safepoint)
 * @param totalNanos      the whole walk: preparation (tagging classes and samples), the pause, and naming what it
 *                        found, in the thread that asked (the application runs meanwhile, but for the pause)
 * @param outcome         whether it covered the whole heap
 * @param trigger         why it ran: {@code end} (the end of a capture) or {@code on demand}
 * @param detail          what stopped it, or why it could not run (null when complete)
 * @param objectsVisited  objects the walk kept a node for (those that can hold references, and the samples)
 * @param referencesSeen  references the JVM reported to the walk
 * @param memoryBytes     the walk's memory in the recorded JVM at its largest: its nodes and the JVM's tags (an
 *                        estimate of the JVM's part)
 * @param nodes           the forest, parents before their children
 * @param samples         every sample tracked when the walk started, with its node ({@link Sample#node()} -1 when
 *                        the walk did not reach it)
 */
public record RetentionWalk(long timestampNanos, long pauseNanos, long totalNanos, Outcome outcome, String trigger,
                            String detail, long objectsVisited, long referencesSeen, long memoryBytes,
                            List<Node> nodes, List<Sample> samples) {

    public RetentionWalk {
        nodes = List.copyOf(nodes);
        samples = List.copyOf(samples);
    }

    /** Whether a walk covered the heap. */
    public enum Outcome {
        /** Every object reachable from the roots was visited: a sample not reached is unreachable. */
        COMPLETE(0),
        /** Stopped at its time budget (the pause's limit): samples not reached are unknown. */
        TIME_BUDGET(1),
        /** Stopped at its memory budget: samples not reached are unknown. */
        MEMORY_BUDGET(2),
        /** Could not run, or failed (see {@link RetentionWalk#detail()}): no sample was reached. */
        FAILED(3);

        /** The code in the recording. */
        public final int code;

        Outcome(int code) {
            this.code = code;
        }

        /** @return the outcome with this code, or null */
        public static Outcome ofCode(int code) {
            for (Outcome o : values()) {
                if (o.code == code) {
                    return o;
                }
            }
            return null;
        }
    }

    /**
     * The kind of a reference, with JVMTI's numbering ({@code jvmtiHeapReferenceKind}): how a node was reached from
     * its parent, or, for a root node, what kind of root holds it.
     */
    public enum Kind {
        /** From an object to its class. */
        CLASS(1),
        /** From an object to the value of one of its instance fields. */
        FIELD(2),
        /** From an array to one of its elements. */
        ARRAY_ELEMENT(3),
        /** From a class to its class loader. */
        CLASS_LOADER(4),
        /** From a class to its signers array. */
        SIGNERS(5),
        /** From a class to its protection domain. */
        PROTECTION_DOMAIN(6),
        /** From a class to one of its interfaces. */
        INTERFACE(7),
        /** From a class to the value of one of its static fields. */
        STATIC_FIELD(8),
        /** From a class to a resolved entry of its constant pool. */
        CONSTANT_POOL(9),
        /** From a class to its superclass. */
        SUPERCLASS(10),
        /** Root: a JNI global reference. */
        JNI_GLOBAL(21),
        /** Root: a class that never unloads (boot, platform or application class loader). */
        SYSTEM_CLASS(22),
        /** Root: a monitor. */
        MONITOR(23),
        /** Root: a local variable or operand of a thread's stack frame. */
        STACK_LOCAL(24),
        /** Root: a JNI local reference of a thread. */
        JNI_LOCAL(25),
        /** Root: a live thread. */
        THREAD(26),
        /** Root: anything else the JVM holds (a mounted virtual thread, VM internals). */
        OTHER(27);

        /** The code in the recording (JVMTI's). */
        public final int code;

        Kind(int code) {
            this.code = code;
        }

        /** @return whether this kind is a root's (JVMTI codes 21 and above) */
        public boolean root() {
            return code >= 21;
        }

        /** @return the kind with this code, or null */
        public static Kind ofCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    /**
     * One object of the forest.
     *
     * @param parent      index of the parent node in {@link RetentionWalk#nodes()} (always an earlier one), or -1 for
     *                    a root node
     * @param kind        how the parent's reference reached this node, or, for a root node, the kind of root
     * @param classObject whether the node is a {@code java.lang.Class} object ({@code className} is then the class
     *                    it is, not {@code java.lang.Class})
     * @param className   the object's class in Java syntax ({@code java.util.HashMap$Node[]}); {@code ?} when the
     *                    walk did not know it (a class loaded during the walk)
     * @param label       {@link Kind#FIELD} and {@link Kind#STATIC_FIELD}: the field's name; a root node: the root's
     *                    description ({@code thread main}, {@code thread main: com.acme.Main.main(Main.java:12)},
     *                    {@code class com.acme.Registry}, {@code JNI global}); else null
     * @param index       {@link Kind#ARRAY_ELEMENT}: the element's index; {@link Kind#CONSTANT_POOL}: the entry;
     *                    else 0
     */
    public record Node(int parent, Kind kind, boolean classObject, String className, String label, long index) {
    }

    /**
     * A sample tracked when the walk started.
     *
     * @param sampleId the sample's id (the address of its ALLOCATE event)
     * @param siteId   its allocation site
     * @param size     its size in bytes
     * @param node     its node, -1 when the walk did not reach it
     */
    public record Sample(long sampleId, int siteId, long size, int node) {
        /** @return whether the walk reached it */
        public boolean reached() {
            return node >= 0;
        }
    }

    /** @return samples the walk reached */
    public long samplesReached() {
        long n = 0;
        for (Sample s : samples) {
            if (s.reached()) {
                n++;
            }
        }
        return n;
    }

    /**
     * @return the nodes of a sample's path from its root down to the sample (the sample's node last), empty when it
     *         was not reached
     */
    public List<Node> chain(Sample s) {
        if (!s.reached()) {
            return List.of();
        }
        int depth = 0;
        for (int n = s.node(); n >= 0; n = nodes.get(n).parent()) {
            depth++;
        }
        Node[] chain = new Node[depth];
        int i = depth;
        for (int n = s.node(); n >= 0; n = nodes.get(n).parent()) {
            chain[--i] = nodes.get(n);
        }
        return Arrays.asList(chain);
    }
}
