package io.memscope.analysis;

import io.memscope.recording.RetentionWalk;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedObject;

/**
 * The paths to GC roots of a JFR recording's old-object samples ({@code path-to-gc-roots=true}) as one
 * {@link RetentionWalk} at the recording's end: each sample's chain of referrers from its root, the chains sharing
 * their common objects (JFR names each by its address). A static field is a {@link RetentionWalk.Kind#STATIC_FIELD}
 * of the class object that holds it; JFR's roots map to memscope's root kinds by their {@code system} and
 * {@code type}. JFR does not record the walk's pause or cost: those figures are 0.
 */
final class JfrRetention {
    private final List<RetentionWalk.Node> forest = new ArrayList<>();
    private final List<RetentionWalk.Sample> samples = new ArrayList<>();
    private final Map<Long, Integer> nodes = new HashMap<>();
    private long end = Long.MIN_VALUE;
    private long rooted;

    /**
     * Adds a held sample, with its chain when it has one.
     *
     * @param at when JFR wrote it (the walk's time is the last one's)
     */
    void add(long sampleId, int siteId, long size, long at, RecordedObject object, RecordedObject root) {
        end = Math.max(end, at);
        int node = chain(object, root);
        if (node >= 0) {
            rooted++;
        }
        samples.add(new RetentionWalk.Sample(sampleId, siteId, size, node));
    }

    /** @return samples with a path to a root */
    long rooted() {
        return rooted;
    }

    /** @return the walk, or none when no sample has a path */
    List<RetentionWalk> walks() {
        return rooted == 0 ? List.of() : List.of(new RetentionWalk(end, 0, 0, RetentionWalk.Outcome.COMPLETE,
                "end (JFR old-object samples)", null, forest.size(), 0, 0, forest, samples));
    }

    /**
     * Adds an old object's reference chain to the walk's forest (objects shared by chains are one node: JFR names
     * each by its address).
     *
     * @return the object's node, -1 without a root (recorded without {@code path-to-gc-roots=true})
     */
    int chain(RecordedObject object, RecordedObject root) {
        if (object == null || root == null) {
            return -1;
        }
        List<RecordedObject> objects = new ArrayList<>();
        for (RecordedObject o = object; o != null && objects.size() < 10_000; ) {
            objects.add(o);
            RecordedObject ref = o.getValue("referrer");
            o = ref == null ? null : ref.getValue("object");
        }
        int parent = -1;
        for (int i = objects.size() - 1; i >= 0; i--) {
            RecordedObject o = objects.get(i);
            long address = o.getLong("address");
            Integer known = nodes.get(address);
            if (known != null) {
                parent = known;
                continue;
            }
            RecordedClass c = o.getValue("type");
            String name = JfrStacks.typeName(c);
            String description = o.getString("description");
            boolean classObject = "java.lang.Class".equals(name) && description != null
                    && description.startsWith("Class Name: ");
            String className = classObject ? description.substring("Class Name: ".length()).strip()
                    : name == null ? "?" : name;
            RetentionWalk.Node n;
            if (parent < 0) {
                n = new RetentionWalk.Node(-1, rootKind(root), classObject, className,
                        classObject ? null : rootLabel(root), 0);
            } else {
                RecordedObject ref = objects.get(i).getValue("referrer");
                RecordedObject field = ref == null ? null : ref.getValue("field");
                RecordedObject array = ref == null ? null : ref.getValue("array");
                RetentionWalk.Node from = forest.get(parent);
                if (array != null) {
                    n = new RetentionWalk.Node(parent, RetentionWalk.Kind.ARRAY_ELEMENT, classObject, className, null,
                            array.getInt("index"));
                } else {
                    String label = field == null ? "?" : field.getString("name");
                    int skipped = ref == null ? 0 : ref.getInt("skip");
                    n = new RetentionWalk.Node(parent, from.classObject() ? RetentionWalk.Kind.STATIC_FIELD
                            : RetentionWalk.Kind.FIELD, classObject, className,
                            skipped > 0 ? label + " (+" + skipped + " references JFR left out)" : label, 0);
                }
            }
            parent = forest.size();
            forest.add(n);
            nodes.put(address, parent);
        }
        return parent;
    }

    private static RetentionWalk.Kind rootKind(RecordedObject root) {
        String system = String.valueOf(root.getString("system"));
        String type = String.valueOf(root.getString("type"));
        if (type.contains("Stack Variable") || system.equals("Threads")) {
            return RetentionWalk.Kind.STACK_LOCAL;
        } else if (type.contains("Global JNI") || system.contains("JNI Global")) {
            return RetentionWalk.Kind.JNI_GLOBAL;
        } else if (type.contains("Local JNI")) {
            return RetentionWalk.Kind.JNI_LOCAL;
        } else if (system.contains("Class Loader Data")) {
            return RetentionWalk.Kind.SYSTEM_CLASS;
        } else if (system.contains("Monitor")) {
            return RetentionWalk.Kind.MONITOR;
        }
        return RetentionWalk.Kind.OTHER;
    }

    private static String rootLabel(RecordedObject root) {
        String d = root.getString("description");
        String system = root.getString("system");
        String type = root.getString("type");
        StringBuilder b = new StringBuilder();
        if (system != null) {
            b.append(system);
        }
        if (type != null && !type.equals("<unknown>")) {
            b.append(b.length() > 0 ? ": " : "").append(type);
        }
        if (d != null && !d.equals("N/A")) {
            b.append(b.length() > 0 ? ", " : "").append(d);
        }
        return b.length() == 0 ? "JFR root" : b.toString();
    }
}
