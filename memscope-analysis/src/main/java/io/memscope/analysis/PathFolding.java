package io.memscope.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Folds reference paths into shapes: the same structure reached at different depths gives the same shape. A path is
 * a sequence of steps (an object's class and the field or array slot leading to the next object, interned by
 * {@link #step}); a folded path is a node of a trie of elements, each a step or a group, built one step at a time by
 * {@link #append}, so that a path is folded in time proportional to its length and the paths of a tree of objects
 * share their folded prefixes.
 *
 * <p>Rules, applied as each step is appended:
 * <ul>
 * <li><b>Runs of one class.</b> Consecutive steps out of objects of the same class (the nodes of a linked list, a
 *     tree, a hash bucket's chain) become one group, {@code owner.{fields}*}, followed by the run's last step, which
 *     leads out of the structure: {@code LinkedList$Node.next*, LinkedList$Node.item}. The group names every field
 *     the walk went through out of that class, in any path ({@code TreeMap$Entry.{left,right}*}).</li>
 * <li><b>Repeated blocks.</b> A block of two or three steps repeated right after itself (nested maps:
 *     {@code HashMap.table, HashMap$Node[], HashMap$Node.value} twice) becomes one group,
 *     {@code (A -> B -> C)*}, followed by the block once.</li>
 * </ul>
 * A path that went through a structure zero times has no group; {@link #plain} gives a path's steps without its
 * groups, so that callers can merge it with the paths that went through the structure.
 *
 * <p>Elements are ints: a step is its id (0 and up), a group is {@code -(group + 1)}. Not thread-safe.
 */
final class PathFolding {
    /** The empty path. */
    static final int EMPTY = 0;

    private final List<String> stepText = new ArrayList<>();
    private final List<String> stepLabel = new ArrayList<>();
    private int[] stepOwner = new int[64];
    private final Map<String, Integer> stepIds = new HashMap<>();
    private final List<String> ownerText = new ArrayList<>();
    private final Map<String, Integer> ownerIds = new HashMap<>();
    /** Fields each owner's groups went through. */
    private final List<TreeSet<String>> ownerLabels = new ArrayList<>();
    /** Groups: {0, owner} for a run of one class, {1, step, step, ...} for a repeated block. */
    private final List<int[]> groups = new ArrayList<>();
    private final Map<List<Integer>, Integer> groupIds = new HashMap<>();
    /** The trie: parent and element of each folded path (0 = the empty path). */
    private int[] parent = new int[1024];
    private int[] element = new int[1024];
    private int size = 1;
    private final Map<Long, Integer> children = new HashMap<>();

    /**
     * @param owner the class of the object the step leaves (with {@code class } in front for a Class object)
     * @param label the field's name, or null (an array slot, a root)
     * @param text  how the step reads: {@code java.util.ArrayList.elementData}, {@code java.lang.Object[]}
     * @return the step's id
     */
    int step(String owner, String label, String text) {
        Integer id = stepIds.get(text);
        if (id != null) {
            return id;
        }
        int s = stepText.size();
        stepText.add(text);
        stepLabel.add(label);
        if (s == stepOwner.length) {
            stepOwner = Arrays.copyOf(stepOwner, s * 2);
        }
        stepOwner[s] = ownerIds.computeIfAbsent(owner, o -> {
            ownerText.add(o);
            ownerLabels.add(new TreeSet<>());
            return ownerText.size() - 1;
        });
        stepIds.put(text, s);
        return s;
    }

    /** @return the folded path {@code path} followed by {@code step} */
    int append(int path, int step) {
        if (path != EMPTY) {
            int last = element[path];
            if (last >= 0 && stepOwner[last] == stepOwner[step]) {
                // a run of one class: the earlier step joins (or becomes) the group, the new one stays last
                String label = stepLabel.get(last);
                if (label != null) {
                    ownerLabels.get(stepOwner[last]).add(label);
                }
                int base = parent[path];
                int group = -(group(new int[] {0, stepOwner[last]}) + 1);
                if (base == EMPTY || element[base] != group) {
                    base = node(base, group);
                }
                return node(base, step);
            }
        }
        int q = node(path, step);
        for (int k = 2; k <= 3; k++) {
            int[] tail = tail(q, 2 * k);
            if (tail == null) {
                continue;
            }
            boolean repeated = true;
            for (int i = 0; i < k && repeated; i++) {
                repeated = tail[i] >= 0 && tail[i] == tail[i + k];
            }
            if (repeated) {
                int[] block = new int[k + 1];
                System.arraycopy(tail, k, block, 1, k);
                block[0] = 1;
                int group = -(group(block) + 1);
                int base = ancestor(q, 2 * k);
                if (base == EMPTY || element[base] != group) {
                    base = node(base, group);
                }
                for (int i = k; i < 2 * k; i++) {
                    base = node(base, tail[i]);
                }
                return base;
            }
        }
        return q;
    }

    /** @return the elements of a folded path, from its start */
    int[] elements(int path) {
        int n = 0;
        for (int p = path; p != EMPTY; p = parent[p]) {
            n++;
        }
        int[] e = new int[n];
        for (int p = path; p != EMPTY; p = parent[p]) {
            e[--n] = element[p];
        }
        return e;
    }

    /** @return the steps of a folded path without its groups */
    List<Integer> plain(int path) {
        List<Integer> l = new ArrayList<>();
        for (int e : elements(path)) {
            if (e >= 0) {
                l.add(e);
            }
        }
        return l;
    }

    /** @return whether a folded path has a group */
    boolean hasGroup(int path) {
        for (int p = path; p != EMPTY; p = parent[p]) {
            if (element[p] < 0) {
                return true;
            }
        }
        return false;
    }

    /** @return how an element reads */
    String text(int e) {
        if (e >= 0) {
            return stepText.get(e);
        }
        int[] g = groups.get(-e - 1);
        if (g[0] == 0) {
            TreeSet<String> labels = ownerLabels.get(g[1]);
            String owner = ownerText.get(g[1]);
            if (labels.isEmpty()) {
                return owner + "*";
            }
            return labels.size() == 1 ? owner + "." + labels.first() + "*"
                    : owner + ".{" + String.join(",", labels) + "}*";
        }
        StringBuilder b = new StringBuilder("(");
        for (int i = 1; i < g.length; i++) {
            if (i > 1) {
                b.append(" -> ");
            }
            b.append(stepText.get(g[i]));
        }
        return b.append(")*").toString();
    }

    /** @return a folded path as text, element by element */
    List<String> texts(int path) {
        List<String> l = new ArrayList<>();
        for (int e : elements(path)) {
            l.add(text(e));
        }
        return l;
    }

    private int group(int[] g) {
        List<Integer> key = new ArrayList<>(g.length);
        for (int v : g) {
            key.add(v);
        }
        Integer id = groupIds.get(key);
        if (id == null) {
            id = groups.size();
            groups.add(g);
            groupIds.put(key, id);
        }
        return id;
    }

    private int node(int p, int e) {
        long key = (long) p << 32 | (e & 0xFFFF_FFFFL);
        Integer n = children.get(key);
        if (n != null) {
            return n;
        }
        if (size == parent.length) {
            parent = Arrays.copyOf(parent, size * 2);
            element = Arrays.copyOf(element, size * 2);
        }
        parent[size] = p;
        element[size] = e;
        children.put(key, size);
        return size++;
    }

    /** @return the last n elements of a path, oldest first, or null when it is shorter */
    private int[] tail(int path, int n) {
        int[] t = new int[n];
        int p = path;
        for (int i = n - 1; i >= 0; i--) {
            if (p == EMPTY) {
                return null;
            }
            t[i] = element[p];
            p = parent[p];
        }
        return t;
    }

    private int ancestor(int path, int n) {
        int p = path;
        for (int i = 0; i < n; i++) {
            p = parent[p];
        }
        return p;
    }
}
