package io.memscope.analysis;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.RetentionWalk;
import io.memscope.recording.Site;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Builds a report's {@link Retention} from the recording's walk of the heap: the last walk that ran inside the
 * report's window (for the whole run: the one at the end of the capture, when it ran).
 *
 * <p>Each reached sample's path is read from the walk's forest, root first. The root: a static field when the path
 * starts at a class and goes through one of its static fields ({@code static pkg.Class.FIELD}), else the root's own
 * description ({@code thread main}, {@code thread main: pkg.Main.main(Main.java:12)}, {@code JNI global}). Then one
 * step per object down to the sample: the object's class and the reference to the next object
 * ({@code java.util.ArrayList.elementData}, {@code java.lang.Object[]} for an array slot, whatever its index,
 * {@code static pkg.Plugin.DATA} through a Class object's static field, {@code pkg.Foo.<class>} from an object to its
 * class). Steps are folded into shapes by {@link PathFolding}, one pass over the forest (parents come before their
 * children in it).
 *
 * <p>Per site, samples with the same root and folded path make a shape; thread roots whose names differ only in
 * their numbers are one root ({@code thread pool-1-thread-*}), and a shape that went through a linked structure zero
 * times joins the one that went through it. Each shape's objects and bytes are Horvitz-Thompson estimates, as every
 * held figure: a sample of {@code s} bytes weighs {@code 1/p} objects and {@code s/p} bytes.
 */
final class RetentionPaths {
    /** Shapes listed per site at most (the rest are the smallest). */
    static final int MAX_SHAPES = 20;

    private RetentionPaths() {
    }

    /** The retention of a report over {@code [from, to]}, of a run that started at {@code runStart}. */
    static Retention of(RecordedRun run, long runStart, long from, long to, boolean restricted) {
        RetentionWalk walk = null;
        for (RetentionWalk w : run.retentionWalks()) {
            if (!restricted || w.timestampNanos() >= from && w.timestampNanos() <= to) {
                walk = w;
            }
        }
        if (walk == null) {
            return Retention.NONE;
        }
        double mean = Math.max(1, run.metadataLong(MetadataKeys.INTERVAL_BYTES, 512 * 1024));
        Retention.Walk summary = new Retention.Walk(walk.trigger(), (walk.timestampNanos() - runStart) / 1e6,
                walk.outcome().name().toLowerCase(Locale.ROOT).replace('_', ' '), walk.pauseNanos() / 1e6,
                walk.totalNanos() / 1e6, walk.objectsVisited(), walk.referencesSeen(), walk.memoryBytes(),
                walk.samples().size(), walk.samplesReached(), walk.detail());
        return new Retention(summary, shapes(run, walk, mean));
    }

    private static Map<String, List<Retention.RetainedBy>> shapes(RecordedRun run, RetentionWalk walk, double mean) {
        List<RetentionWalk.Node> nodes = walk.nodes();
        int n = nodes.size();
        PathFolding folding = new PathFolding();
        int[] folded = new int[n];
        String[] root = new String[n];
        for (int i = 0; i < n; i++) {
            RetentionWalk.Node node = nodes.get(i);
            int p = node.parent();
            if (p < 0) {
                folded[i] = PathFolding.EMPTY;
                root[i] = node.label() != null ? node.label()
                        : node.classObject() ? "class " + node.className() : node.kind().name();
                continue;
            }
            RetentionWalk.Node from = nodes.get(p);
            if (from.parent() < 0 && from.classObject() && node.kind() == RetentionWalk.Kind.STATIC_FIELD) {
                root[i] = "static " + from.className() + "." + node.label();
                folded[i] = PathFolding.EMPTY;
                continue;
            }
            root[i] = root[p];
            String owner = from.classObject() ? "class " + from.className() : from.className();
            folded[i] = folding.append(folded[p], folding.step(owner, node.label(), step(from, node)));
        }
        // samples per site, root and folded path
        Map<String, Map<ShapeKey, Acc>> bySite = new HashMap<>();
        for (RetentionWalk.Sample s : walk.samples()) {
            if (!s.reached()) {
                continue;
            }
            Site site = run.site(s.siteId());
            String key = site == null ? Retention.key("site#" + s.siteId(), "?")
                    : Retention.key(site.frame(), site.typeName() == null ? "?" : site.typeName());
            double p = run.eventWeights() ? 1 : ReportBuilder.probability(s.size(), mean);
            String exact = root[s.node()];
            Acc a = bySite.computeIfAbsent(key, k -> new LinkedHashMap<>())
                    .computeIfAbsent(new ShapeKey(rootKey(exact), folded[s.node()]), k -> new Acc());
            a.samples++;
            a.objects += 1 / p;
            a.bytes += s.size() / p;
            if (a.roots.size() < 2) {
                a.roots.add(exact);
            }
        }
        Map<String, List<Retention.RetainedBy>> out = new HashMap<>();
        for (Map.Entry<String, Map<ShapeKey, Acc>> e : bySite.entrySet()) {
            out.put(e.getKey(), merge(folding, e.getValue()));
        }
        return out;
    }

    /**
     * Merges the shapes of a site that differ only in their groups (a structure gone through zero times, or once
     * more), then lists them largest first.
     */
    private static List<Retention.RetainedBy> merge(PathFolding folding, Map<ShapeKey, Acc> shapes) {
        Map<List<Object>, List<Map.Entry<ShapeKey, Acc>>> merged = new LinkedHashMap<>();
        for (Map.Entry<ShapeKey, Acc> e : shapes.entrySet()) {
            List<Object> key = List.of(e.getKey().root, folding.plain(e.getKey().path));
            merged.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
        }
        List<Retention.RetainedBy> list = new ArrayList<>();
        for (List<Map.Entry<ShapeKey, Acc>> members : merged.values()) {
            // shown as the member with groups (the general shape) that has the most samples
            members.sort(Comparator.comparing((Map.Entry<ShapeKey, Acc> m) -> !folding.hasGroup(m.getKey().path))
                    .thenComparing(m -> -m.getValue().samples));
            long samples = 0;
            double objects = 0;
            double bytes = 0;
            TreeSet<String> roots = new TreeSet<>();
            for (Map.Entry<ShapeKey, Acc> m : members) {
                samples += m.getValue().samples;
                objects += m.getValue().objects;
                bytes += m.getValue().bytes;
                roots.addAll(m.getValue().roots);
            }
            ShapeKey shown = members.get(0).getKey();
            String root = roots.size() == 1 ? roots.first() : shown.root;
            list.add(new Retention.RetainedBy(root, folding.texts(shown.path), Math.round(objects),
                    Math.round(bytes), samples));
        }
        list.sort(Comparator.comparingLong((Retention.RetainedBy r) -> -r.bytes())
                .thenComparingLong(r -> -r.samples()).thenComparing(Retention.RetainedBy::root));
        return list.size() > MAX_SHAPES ? List.copyOf(list.subList(0, MAX_SHAPES)) : list;
    }

    /** How the reference from {@code from} to {@code to} reads as a step of a path. */
    static String step(RetentionWalk.Node from, RetentionWalk.Node to) {
        String owner = from.classObject() ? "class " + from.className() : from.className();
        String label = to.label() == null ? "?" : to.label();
        return switch (to.kind()) {
            case FIELD -> owner + "." + label;
            case STATIC_FIELD -> "static " + from.className() + "." + label;
            case ARRAY_ELEMENT -> owner;
            case CLASS -> owner + ".<class>";
            case CLASS_LOADER -> owner + ".<loader>";
            case SIGNERS -> owner + ".<signers>";
            case PROTECTION_DOMAIN -> owner + ".<protection domain>";
            case INTERFACE -> owner + ".<interface>";
            case SUPERCLASS -> owner + ".<superclass>";
            case CONSTANT_POOL -> owner + ".<constant pool>";
            default -> owner + ".<" + to.kind().name().toLowerCase(Locale.ROOT) + ">";
        };
    }

    /** A root with the numbers in a thread's name folded ({@code thread pool-1-thread-3} -> {@code thread pool-*-thread-*}). */
    static String rootKey(String root) {
        if (!root.startsWith("thread ")) {
            return root;
        }
        int colon = root.indexOf(": ", 7);
        String name = colon < 0 ? root.substring(7) : root.substring(7, colon);
        return "thread " + name.replaceAll("[0-9]+", "*") + (colon < 0 ? "" : root.substring(colon));
    }

    private record ShapeKey(String root, int path) {
    }

    /** One shape's figures while samples are added. */
    private static final class Acc {
        long samples;
        double objects;
        double bytes;
        final TreeSet<String> roots = new TreeSet<>();
    }
}
