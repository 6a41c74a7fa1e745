package io.memscope.scope;

import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;
import io.memscope.internal.link.AgentLink;

/**
 * One distinct scope path ({@code request/parse}) of a {@link ScopeTracker}: its dense id (the index of its
 * statistics), its name, parent and depth, and the table of its children by name. Nodes are created once and
 * never removed; the table of children is copied on write (under the tracker's lock) and read without locks.
 */
final class PathNode {
    final int id;
    /** The name as shown (bad characters replaced). */
    final String name;
    final PathNode parent;
    /** 1 for a root scope; 0 for the tracker's root node. */
    final int depth;
    /** {@code parent/name}, the root's children are their name. */
    final String path;
    private volatile Children children = Children.EMPTY;
    /**
     * The agent's id of this path (low 32 bits) and the link generation it is valid in (high 32 bits), in one
     * field so that a thread never sees the id of one generation with another; 0 = none yet (generations start
     * at 1).
     */
    private long agent;
    private volatile Span span;

    PathNode(int id, String name, PathNode parent) {
        this.id = id;
        this.name = name;
        this.parent = parent;
        this.depth = parent == null ? 0 : parent.depth + 1;
        this.path = parent == null ? ScopeText.EMPTY : parent.depth == 0 ? name : ScopeText.childPath(parent.path, name);
    }

    /** @return the child registered under exactly this key (the name as the application passed it), or null */
    PathNode child(String key) {
        Children c = children;
        String[] keys = c.keys;
        int mask = keys.length - 1;
        int h = key.hashCode();
        for (int i = (h ^ (h >>> 16)) & mask; ; i = (i + 1) & mask) {
            String k = keys[i];
            if (k == null) {
                return null;
            }
            if (k == key || k.equals(key)) {
                return c.nodes[i];
            }
        }
    }

    /** Adds {@code key -> node}; the caller holds the tracker's lock. */
    void addChild(String key, PathNode node) {
        Children c = children;
        int n = c.size + 1;
        int capacity = c.keys.length;
        while (n * 2 > capacity) {
            capacity *= 2;
        }
        String[] keys = new String[capacity];
        PathNode[] nodes = new PathNode[capacity];
        for (int i = 0; i < c.keys.length; i++) {
            if (c.keys[i] != null) {
                put(keys, nodes, c.keys[i], c.nodes[i]);
            }
        }
        put(keys, nodes, key, node);
        children = new Children(keys, nodes, n);
    }

    private static void put(String[] keys, PathNode[] nodes, String key, PathNode node) {
        int mask = keys.length - 1;
        int h = key.hashCode();
        int i = (h ^ (h >>> 16)) & mask;
        while (keys[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        nodes[i] = node;
    }

    /** @return children entries (keys that lead to this node's children, folded keys included) */
    int childEntries() {
        return children.size;
    }

    /** @return whether {@link #agentId()} is known for the current link generation (it then does not allocate) */
    boolean agentIdKnown() {
        return (int) (agent >>> 32) == AgentLink.generation();
    }

    /**
     * @return the agent's id of this path, registering it (and its parents) with the agent if this link generation
     *         has not seen it yet; 0 when the agent does not capture
     */
    int agentId() {
        int g = AgentLink.generation();
        long a = agent;
        if ((int) (a >>> 32) == g) {
            return (int) a;
        }
        int parentId = parent == null || parent.depth == 0 ? 0 : parent.agentId();
        int id = AgentLink.scopePath(parentId, name);
        agent = (long) g << 32 | (id & 0xFFFFFFFFL);
        return id;
    }

    /** @return this path's span in the event rings ({@code scope/<path>}), registered on first use */
    Span span() {
        Span s = span;
        if (s == null) {
            s = RuntimeEvents.span(ScopeText.spanName(path));
            span = s;
        }
        return s;
    }

    @Override
    public String toString() {
        return path;
    }

    /** An open-addressed table of children, immutable once published. */
    private static final class Children {
        static final Children EMPTY = new Children(new String[4], new PathNode[4], 0);
        final String[] keys;
        final PathNode[] nodes;
        final int size;

        Children(String[] keys, PathNode[] nodes, int size) {
            this.keys = keys;
            this.nodes = nodes;
            this.size = size;
        }
    }
}
