package io.memscope.scope;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * The scope paths of one {@link ScopeTracker}: a tree of {@link PathNode}s numbered in creation order (a parent
 * before its children), bounded at {@code maxPaths} real paths. A name that does not fit the bound maps to the one
 * folded path {@code (other)} (remembered per parent, up to a cap of folded names, after which nothing more is
 * remembered and the fold count stops being exact); a bad name (null, empty, too long, with {@code /}) is replaced
 * and counted.
 *
 * <p>Lookups ({@link PathNode#child}) take no lock; a new path takes the tracker's lock, which also guards the
 * tracker's thread states, so that a snapshot sees paths and figures as of one moment.
 */
final class PathTable {
    private final int maxPaths;
    /** The tracker's lock (guards creation here and the thread states there). */
    private final Object lock;
    final PathNode root = new PathNode(0, ScopeText.EMPTY, null);
    final PathNode other = new PathNode(1, ScopeText.OTHER, root);
    private volatile PathNode[] nodes = {root, other, null, null, null, null, null, null};
    /** Nodes in {@link #nodes}: root and other, then real paths. */
    private volatile int nodeCount = 2;
    /** Keys mapped to {@link #other} in some node's table (bounded by {@link #foldCap}). */
    private volatile int foldedKeys;
    private final int foldCap;
    private volatile boolean foldOverflow;
    private final LongAdder invalidNames = new LongAdder();

    PathTable(int maxPaths, Object lock) {
        this.maxPaths = maxPaths;
        this.lock = lock;
        this.foldCap = Math.max(1024, Math.min(1 << 20, 4 * maxPaths));
    }

    /**
     * The slow path of a lookup: a key not in the parent's table yet. Allocates (a node, a grown table): the caller
     * measures it as memscope's own.
     *
     * @return the path of {@code key} below {@code parent}: a new one, one known under the replaced name, or
     *         {@link #other}
     */
    PathNode add(PathNode parent, String key) {
        if (parent == other) {
            return other; // below a folded scope everything stays folded
        }
        boolean wasNull = key == null;
        if (wasNull) {
            key = ScopeText.INVALID; // null cannot be a key: it shares the node of (invalid)
            PathNode n = parent.child(key);
            if (n != null) {
                return n;
            }
        }
        boolean bad = wasNull || key.isEmpty() || key.length() > ScopeTracker.MAX_NAME || key.indexOf('/') >= 0;
        String name = !bad ? key : wasNull || key.isEmpty() ? ScopeText.INVALID
                : (key.length() > ScopeTracker.MAX_NAME ? key.substring(0, ScopeTracker.MAX_NAME) : key)
                        .replace('/', '_');
        if (nodeCount - 2 >= maxPaths && (foldOverflow || foldedKeys >= foldCap)) {
            foldOverflow = true;
            return other; // full, and no more room to remember folded names: no lock
        }
        synchronized (lock) {
            PathNode n = parent.child(key);
            if (n != null) {
                return n;
            }
            if (bad) {
                invalidNames.increment();
            }
            if (!name.equals(key)) {
                n = parent.child(name); // the replaced name may be known already
                if (n != null) {
                    parent.addChild(key, n);
                    return n;
                }
            }
            if (nodeCount - 2 >= maxPaths) {
                if (foldedKeys >= foldCap) {
                    foldOverflow = true;
                    return other;
                }
                foldedKeys++;
                parent.addChild(key, other);
                return other;
            }
            return create(parent, key, name);
        }
    }

    /** A new path (under the lock). */
    private PathNode create(PathNode parent, String key, String name) {
        PathNode created = new PathNode(nodeCount, name, parent);
        PathNode[] all = nodes;
        if (nodeCount == all.length) {
            all = Arrays.copyOf(all, all.length * 2);
        }
        all[nodeCount] = created;
        nodes = all;
        nodeCount = nodeCount + 1;
        parent.addChild(key, created);
        if (!name.equals(key)) {
            parent.addChild(name, created);
        }
        return created;
    }

    /** @return the number of nodes: root and other, then the real paths (ids {@code 2 .. count() - 1}) */
    int count() {
        return nodeCount;
    }

    /** @return the nodes by id, at least {@link #count()} of them */
    PathNode[] nodes() {
        return nodes;
    }

    int maxPaths() {
        return maxPaths;
    }

    /** @return names folded into {@link #other} */
    int foldedKeys() {
        return foldedKeys;
    }

    /** @return whether every folded name was remembered (the fold count is exact) */
    boolean foldExact() {
        return !foldOverflow;
    }

    long invalidNames() {
        return invalidNames.sum();
    }
}
