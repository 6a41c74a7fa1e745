/*
 * Why sampled objects are held: a walk of the heap from the GC roots (JVMTI FollowReferences) that finds, for every
 * tracked sample still reachable, one chain of references from a root down to it (included once, by
 * memscope_sampler.c, after everything else).
 *
 * The walk. FollowReferences reports every reference the JVM finds, roots first (thread stacks, then JNI globals,
 * system classes, VM internals), then object by object, each object visited once, at one safepoint. The callback
 * (hw_reference) runs on the VM thread: plain C, no JNI, no JVMTI. It keeps one node per reached object that can
 * hold references (leaves, such as primitive arrays, are not visited unless sampled): the object's class, the
 * reference that reached it first (the parent node, the kind and the field or array index) and its depth. A later
 * reference from a shallower object replaces the parent (never a root's, but for a JNI local's: see hw_reference),
 * so paths are short though not always the shortest (the JVM visits depth first). Depth strictly decreases along
 * parents, so they never form a cycle.
 *
 * Telling objects apart. JVMTI's own way is a tag per object; but a tag costs about 2 microseconds (the JVM's tag
 * table entry, a weak handle, and an identity hash installed in the object's header for good), ten times what the
 * walk itself costs per reference. So the walk tells objects apart by their address, which cannot change during the
 * safepoint: the callback's tag pointers point into the JVM's wrapper of the reference, on the VM thread's stack,
 * which holds the object's address a few words before the tag. Where exactly differs between JDK versions: a probe
 * walk over an array of objects whose addresses are known (hw_probe_layout) finds the words, and the walk checks
 * them again on every sample it meets (whose address the sample's weak handle holds). When the probe finds no
 * consistent layout, or a check fails (the walk then starts over), the walk tags the objects it visits instead:
 * slower, same result. Tags are still set on what must be found again after the walk: every loaded class's mirror
 * (CLASS_TAG + its index in the walk's class table), every tracked sample, the threads of thread roots, and one
 * example of each field (its holder and its value), from which the field's name is read afterwards.
 *
 * Before the walk, on the calling thread: every loaded class is described (whether its instances can hold
 * references at all, whether it is a weak, phantom or final Reference whose referent is then not followed, whether
 * its loader is the boot, platform or application loader: its static fields are then roots of their own, the class
 * never unloads) and every tracked sample still alive gets a node, not reached yet.
 *
 * Budgets. The pause is one VM operation: the callback looks at the clock every 1024 references and aborts the walk
 * past its time budget (like JFR's cutoff for its own path search). Memory: the nodes, the address table, and the
 * JVM's tag entries, counted against the memory budget, which is checked against the memory free on the machine
 * and in the process's cgroup before the walk starts; the walk aborts when it would exceed it. Either way the
 * result covers the objects reached so far and says why it stopped.
 *
 * After the walk, on the calling thread again: the chains of the reached samples are copied out, each node once,
 * parents before children, cut at the first class of a built-in loader (its static field is the root) and at the
 * root; class names come from their signatures, field names by reading the example holder's fields (JNI) and
 * comparing them with the example value (the JVM's field numbering changed in JDK 23; the values say which field
 * it is whatever the numbering), root names from the thread's name and the frame's method and line.
 */
#include <sys/mman.h>

#define HW_CLASS_TAG (((jlong) 1) << 40)
/* Tags of example field values that have no node (leaves): HW_EXAMPLE_TAG + the example's index. */
#define HW_EXAMPLE_TAG (((jlong) 1) << 36)
/* Bytes of the JVM's tag table per tagged object (docs/benchmarks.md, "Paths from GC roots"). */
#define HW_TAG_BYTES 72
/* A node's parent: not reached (yet), or a GC root (edge: kind, and a root record index for stack references). */
#define HW_UNREACHED 0u
#define HW_ROOT 0xFFFFFFFFu
#define HW_KIND_SHIFT 27
#define HW_INDEX_MAX ((1u << HW_KIND_SHIFT) - 1)
#define HW_EDGE(kind, index) (((uint32_t) (kind) << HW_KIND_SHIFT) | ((index) > HW_INDEX_MAX ? HW_INDEX_MAX : (index)))
#define HW_EDGE_KIND(edge) ((edge) >> HW_KIND_SHIFT)
#define HW_EDGE_INDEX(edge) ((edge) & HW_INDEX_MAX)
/* klass: the class table index + 1 of the object's class; with HW_MIRROR, of the class this Class object is. */
#define HW_MIRROR 0x80000000u
/* The depth a JNI local root's object starts at (see hw_reference). */
#define HW_JNI_LOCAL_DEPTH 64
/* Field examples kept at most (one per class and field). */
#define HW_MAX_EXAMPLES 65536u
/* Ambiguous examples per class after which its fields take no new example (their holders' fields all alike). */
#define HW_MAX_AMBIGUOUS 16u

/* Walk outcomes (stats[0]); HW_LAYOUT is internal: the address words were wrong, walk again with tags. */
#define HW_COMPLETE 0
#define HW_TIME 1
#define HW_MEMORY 2
#define HW_FAILED 3
#define HW_LAYOUT 4

/* Class flags. */
#define HW_LEAF 1u
#define HW_WEAK 2u
#define HW_BUILTIN 4u
#define HW_PREPARED 8u

/* The stats array of walk0, by index (HeapWalk.java reads the same). */
#define HW_STAT_OUTCOME 0
#define HW_STAT_ERROR 1
#define HW_STAT_PAUSE 2
#define HW_STAT_BEFORE 3
#define HW_STAT_AFTER 4
#define HW_STAT_NODES 5
#define HW_STAT_REFERENCES 6
#define HW_STAT_TRACKED 7
#define HW_STAT_REACHED 8
#define HW_STAT_GONE 9
#define HW_STAT_MEMORY 10
#define HW_STAT_CLASSES 11
#define HW_STAT_BY_ADDRESS 12
#define HW_STAT_OUTPUT_NODES 13
#define HW_STAT_BUDGET 14
#define HW_STAT_AVAILABLE 15
#define HW_STAT_TAGS 16
#define HW_STAT_ANSWER_LIMIT 17
#define HW_STAT_LEFT_OUT 18
#define HW_STATS 19

/* Longs per node and per sample in walk0's answer. */
#define HW_OUT_NODE_LONGS 5
#define HW_OUT_SAMPLE_LONGS 4
/* Most nodes in an answer (a recording block holds at most 16 MiB). */
#define HW_MAX_OUT_NODES 600000u
/*
 * Java heap bytes per node and per sample of an answer, counted generously: the answer's long[] (40 and 32 bytes),
 * the Java objects HeapWalk.java makes of them (a record each, a list slot), and their bytes in the recording's
 * block buffer. The answer may take the Java heap bytes it is given (answer_bytes): past them, paths are left out.
 */
#define HW_JAVA_NODE_BYTES 128
#define HW_JAVA_SAMPLE_BYTES 256 /* with the node of a sample whose path is left out */

typedef struct {
    uint32_t parent;
    uint32_t edge;
    uint32_t klass;
    uint32_t depth;
    uintptr_t address; /* while walking by address */
} hw_node;

typedef struct {
    jlong tid;
    jmethodID method;
    jlocation location;
} hw_root;

typedef struct {
    jclass cls;
    uint32_t node;
    uint32_t flags;
    jint referent;
    int32_t name;        /* string index of its name in the answer, -1 before it is needed */
    uint8_t leaf_state;  /* 0 unknown, 1 computing, 2 known */
    uint64_t seen_fields;  /* instance field indexes below 64 with an example */
    uint64_t seen_statics; /* static field indexes below 64 with an example */
    uint32_t ambiguous;    /* ambiguous examples of its fields so far (see hw_example) */
} hw_class;

/*
 * One example of a field: a holder (its tag: a node's, or a class's for a static field) and the value it held. The
 * field's name is read afterwards by finding which field of the holder holds the value, so an example whose holder
 * holds the same value in two fields (a map entry whose key is its value) cannot name it: it is ambiguous, and the
 * next holder of the class gives another example.
 */
typedef struct {
    uint32_t klass;
    uint32_t index;
    uint32_t is_static;
    uint32_t ambiguous;
    jlong holder;
    jlong value;
    int32_t name;
} hw_example;

/* Where the callback's wrappers hold the objects' addresses, in words before the tag, and whether via a pointer. */
typedef struct {
    int referee_word;
    int referee_deref;
    int referrer_word;
    int referrer_deref;
} hw_layout;

typedef struct {
    jweak ref;
    jlong id;
    jlong size;
    int32_t site;
    uint32_t node;
} hw_sample;

typedef struct {
    hw_node *nodes;
    uint32_t count;
    uint32_t capacity;
    size_t mapped;
    /* address -> node index + 1, open addressing (walking by address) */
    uint32_t *table;
    uint32_t table_mask;
    uint32_t table_used;
    hw_root *roots;
    uint32_t root_count;
    uint32_t root_capacity;
    hw_class *classes;
    jint class_count;
    hw_example *examples;
    uint32_t example_count;
    uint32_t example_capacity;
    uint32_t *example_table; /* (class, index, static) -> example index + 1 */
    uint32_t example_mask;
    /* the samples' weak handles by node (nodes 1 .. sample_nodes), to check the address words against */
    jweak *sample_refs;
    uint32_t sample_nodes;
    int by_address;
    int check_addresses;
    hw_layout layout;
    uintptr_t last_referrer;
    uint32_t last_referrer_node;
    jlong deadline;
    /* The walking thread's Java id: its own frames and JNI references are not roots of the application's. */
    jlong own_tid;
    int64_t budget;
    int64_t fixed_bytes;
    uint64_t references;
    uint64_t orphans;
    uint64_t tags;
    int outcome;
} hw_state;

/* ------------------------------------------------------------------------------------------ during the walk */

static inline int64_t hw_memory(const hw_state *w) {
    return w->fixed_bytes + (int64_t) w->count * (int64_t) sizeof(hw_node)
            + (int64_t) (w->table == NULL ? 0 : (w->table_mask + 1)) * 4
            + (int64_t) w->root_capacity * (int64_t) sizeof(hw_root)
            + (int64_t) w->example_capacity * (int64_t) sizeof(hw_example)
            + (int64_t) (w->example_table == NULL ? 0 : (w->example_mask + 1)) * 4
            + (int64_t) w->tags * HW_TAG_BYTES;
}

static inline uint32_t hw_new_node(hw_state *w, uint32_t parent, uint32_t edge, uint32_t klass, uint32_t depth) {
    if (w->count >= w->capacity || hw_memory(w) + (int64_t) sizeof(hw_node) > w->budget) {
        return 0;
    }
    hw_node *n = &w->nodes[w->count++];
    n->parent = parent;
    n->edge = edge;
    n->klass = klass;
    n->depth = depth;
    n->address = 0;
    return w->count; /* node index + 1 */
}

static inline hw_class *hw_class_of(hw_state *w, jlong tag) {
    if (tag < HW_CLASS_TAG) {
        return NULL;
    }
    jlong i = tag - HW_CLASS_TAG;
    return i < w->class_count ? &w->classes[i] : NULL;
}

/* The node of a tag (a Class object's node through its class), 0 when it has none. */
static inline uint32_t hw_node_of(hw_state *w, jlong tag) {
    if (tag <= 0 || (tag >= HW_EXAMPLE_TAG && tag < HW_CLASS_TAG)) {
        return 0;
    }
    if (tag >= HW_CLASS_TAG) {
        hw_class *c = hw_class_of(w, tag);
        return c == NULL ? 0 : c->node;
    }
    return tag <= (jlong) w->count ? (uint32_t) tag : 0;
}

static inline uint32_t hw_hash_address(uintptr_t a) {
    uint64_t h = (uint64_t) a * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t) (h >> 32);
}

/* The node of an object by its address, 0 when it has none. */
static inline uint32_t hw_table_find(const hw_state *w, uintptr_t a) {
    for (uint32_t i = hw_hash_address(a) & w->table_mask;; i = (i + 1) & w->table_mask) {
        uint32_t n = w->table[i];
        if (n == 0) {
            return 0;
        }
        if (w->nodes[n - 1].address == a) {
            return n;
        }
    }
}

/* @return 0, or -1 when the table cannot grow (memory) */
static int hw_table_add(hw_state *w, uintptr_t a, uint32_t n) {
    if ((w->table_used + 1) * 2 > w->table_mask + 1) {
        uint32_t slots = (w->table_mask + 1) * 2;
        if (slots == 0 || hw_memory(w) + (int64_t) slots * 4 > w->budget) {
            return -1;
        }
        uint32_t *bigger = calloc(slots, sizeof(uint32_t));
        if (bigger == NULL) {
            return -1;
        }
        for (uint32_t i = 0; i <= w->table_mask; i++) {
            uint32_t m = w->table[i];
            if (m != 0) {
                uint32_t k = hw_hash_address(w->nodes[m - 1].address) & (slots - 1);
                while (bigger[k] != 0) {
                    k = (k + 1) & (slots - 1);
                }
                bigger[k] = m;
            }
        }
        free(w->table);
        w->table = bigger;
        w->table_mask = slots - 1;
    }
    uint32_t i = hw_hash_address(a) & w->table_mask;
    while (w->table[i] != 0) {
        i = (i + 1) & w->table_mask;
    }
    w->table[i] = n;
    w->nodes[n - 1].address = a;
    w->table_used++;
    return 0;
}

/* An object's address from the wrapper around a tag pointer (see the file comment). */
static inline uintptr_t hw_address(const jlong *tag_ptr, int word, int deref) {
    uintptr_t v = ((const uintptr_t *) tag_ptr)[-word];
    return deref ? *(const uintptr_t *) v : v;
}

static inline uint32_t hw_example_key_slot(const hw_state *w, uint32_t klass, uint32_t index, uint32_t is_static) {
    uint64_t h = ((uint64_t) klass << 33 | (uint64_t) index << 1 | is_static) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t) (h >> 32) & w->example_mask;
}

/* The example of a field that can name it, else an ambiguous one (see hw_example), or NULL. */
static hw_example *hw_example_find(hw_state *w, uint32_t klass, uint32_t index, uint32_t is_static) {
    if (w->example_table == NULL) {
        return NULL;
    }
    hw_example *ambiguous = NULL;
    for (uint32_t i = hw_example_key_slot(w, klass, index, is_static);; i = (i + 1) & w->example_mask) {
        uint32_t e = w->example_table[i];
        if (e == 0) {
            return ambiguous;
        }
        hw_example *x = &w->examples[e - 1];
        if (x->klass == klass && x->index == index && x->is_static == is_static) {
            if (!x->ambiguous) {
                return x;
            }
            if (ambiguous == NULL) {
                ambiguous = x;
            }
        }
    }
}

/* Lets the next holder of a class give an example of one of its fields again. */
static inline void hw_forget_field(hw_class *holder_class, uint32_t index, uint32_t is_static) {
    if (index < 64 && holder_class->ambiguous < HW_MAX_AMBIGUOUS) {
        uint64_t *seen = is_static ? &holder_class->seen_statics : &holder_class->seen_fields;
        *seen &= ~(UINT64_C(1) << index);
    }
}

/*
 * Remembers the first holder and value of each field seen, tagging both (the holder with its node, a value without
 * one with an example tag), so that the field's name can be read after the walk.
 */
static void hw_note_field(hw_state *w, hw_class *holder_class, uint32_t index, uint32_t is_static, uint32_t holder,
                          jlong *holder_tag, uint32_t value, jlong *value_tag) {
    if (index < 64) {
        uint64_t *seen = is_static ? &holder_class->seen_statics : &holder_class->seen_fields;
        if (*seen & (UINT64_C(1) << index)) {
            return;
        }
        *seen |= UINT64_C(1) << index;
    }
    uint32_t klass = (uint32_t) (holder_class - w->classes) + 1;
    if (index >= 64) {
        hw_example *known = hw_example_find(w, klass, index, is_static);
        if (known != NULL && (!known->ambiguous || holder_class->ambiguous >= HW_MAX_AMBIGUOUS)) {
            return;
        }
    }
    if (w->example_count >= HW_MAX_EXAMPLES || hw_memory(w) + 2 * HW_TAG_BYTES + 64 > w->budget) {
        return;
    }
    if (w->example_count == w->example_capacity) {
        uint32_t grown = w->example_capacity == 0 ? 1024 : w->example_capacity * 2;
        hw_example *bigger = realloc(w->examples, sizeof(hw_example) * grown);
        uint32_t *table = bigger == NULL ? NULL : calloc((size_t) grown * 2, sizeof(uint32_t));
        if (bigger != NULL) {
            w->examples = bigger;
        }
        if (table == NULL) {
            return;
        }
        free(w->example_table);
        w->example_table = table;
        w->example_mask = grown * 2 - 1;
        w->example_capacity = grown;
        for (uint32_t e = 0; e < w->example_count; e++) {
            hw_example *x = &w->examples[e];
            uint32_t k = hw_example_key_slot(w, x->klass, x->index, x->is_static);
            while (w->example_table[k] != 0) {
                k = (k + 1) & w->example_mask;
            }
            w->example_table[k] = e + 1;
        }
    }
    uint32_t e = w->example_count++;
    hw_example *x = &w->examples[e];
    x->klass = klass;
    x->index = index;
    x->is_static = is_static;
    x->name = -1;
    if (*holder_tag == 0) {
        *holder_tag = holder;
        w->tags++;
    }
    x->holder = *holder_tag;
    if (*value_tag == 0) {
        *value_tag = value != 0 ? (jlong) value : HW_EXAMPLE_TAG + e;
        w->tags++;
    }
    x->value = *value_tag;
    x->ambiguous = 0;
    uint32_t k = hw_example_key_slot(w, klass, index, is_static);
    while (w->example_table[k] != 0) {
        k = (k + 1) & w->example_mask;
    }
    w->example_table[k] = e + 1;
    /* The JVM reports an object's fields one after the other: the examples just taken from the same holder come
     * right before this one. One of them with the same value makes both ambiguous (see hw_example). */
    for (uint32_t o = e; o-- > 0;) {
        hw_example *y = &w->examples[o];
        if (y->holder != x->holder || y->klass != klass || y->is_static != is_static) {
            break;
        }
        if (y->value == x->value && !y->ambiguous) {
            x->ambiguous = 1;
            y->ambiguous = 1;
            hw_forget_field(holder_class, y->index, is_static);
        }
    }
    if (x->ambiguous) {
        hw_forget_field(holder_class, index, is_static);
        holder_class->ambiguous++;
    }
}

/* Whether the address words found a sample's node where its weak handle says the sample is. */
static inline int hw_check_sample(const hw_state *w, uint32_t n, const jlong *tag_ptr) {
    if (!w->by_address || !w->check_addresses || n == 0 || n > w->sample_nodes) {
        return 1;
    }
    uintptr_t slot = (uintptr_t) w->sample_refs[n - 1] & ~(uintptr_t) 3;
    uintptr_t expected = __atomic_load_n((uintptr_t *) slot, __ATOMIC_RELAXED);
    return hw_address(tag_ptr, w->layout.referee_word, w->layout.referee_deref) == expected;
}

/* What hw_reference does with a reference, as its parts answer: go on, leave it (0), or abort the walk. */
#define HW_GO 1
#define HW_LEAVE 0
#define HW_ABORT (-1)

/*
 * A reference from a root (no referrer): the root's record for a thread's stack or JNI local (its thread, method
 * and location, named after the walk), and the edge and depth of the reference.
 */
static inline int hw_from_root(hw_state *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                               uint32_t *edge, uint32_t *depth) {
    uint32_t record = 0;
    if (kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL || kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL) {
        jlong tid = kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL ? info->stack_local.thread_id
                                                             : info->jni_local.thread_id;
        if (tid == w->own_tid) {
            return HW_LEAVE; /* the walk's own references (its class table, the samples being tagged) */
        }
        if (w->root_count == w->root_capacity) {
            uint32_t grown = w->root_capacity == 0 ? 1024 : w->root_capacity * 2;
            hw_root *bigger = hw_memory(w) + (int64_t) grown * (int64_t) sizeof(hw_root) > w->budget ? NULL
                    : realloc(w->roots, sizeof(hw_root) * grown);
            if (bigger == NULL) {
                w->outcome = HW_MEMORY;
                return HW_ABORT;
            }
            w->roots = bigger;
            w->root_capacity = grown;
        }
        hw_root *r = &w->roots[w->root_count];
        r->tid = tid;
        if (kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL) {
            r->method = info->stack_local.method;
            r->location = info->stack_local.location;
        } else {
            r->method = info->jni_local.method;
            r->location = -1;
        }
        record = w->root_count++;
    }
    *edge = HW_EDGE(kind, record);
    /* A JNI local is mostly an oop a compiled frame embeds (a static final's value, constant-folded): a weak
     * reason; any path from another root that is not much longer replaces it. */
    *depth = kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL ? HW_JNI_LOCAL_DEPTH : 1;
    return HW_GO;
}

/*
 * A reference from an object: its node (by tag, or by address through the table), and for a field the class that
 * declares it (holder), whose example of the field hw_note_field keeps; index: the field, element or constant pool
 * index.
 */
static inline int hw_from_object(hw_state *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                 jlong referrer_class_tag, const jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 uint32_t *parent, uint32_t *edge, uint32_t *depth, hw_class **holder,
                                 uint32_t *index) {
    if (referrer_tag_ptr == tag_ptr) {
        return HW_LEAVE; /* an object referring to itself */
    }
    uint32_t p = hw_node_of(w, *referrer_tag_ptr);
    if (p == 0 && w->by_address && *referrer_tag_ptr == 0) {
        uintptr_t a = hw_address(referrer_tag_ptr, w->layout.referrer_word, w->layout.referrer_deref);
        if (a == w->last_referrer) {
            p = w->last_referrer_node;
        } else {
            p = hw_table_find(w, a);
            w->last_referrer = a;
            w->last_referrer_node = p;
        }
    }
    if (p == 0) {
        w->orphans++; /* not one of ours: cannot happen, every object visited got a node first */
        return HW_LEAVE;
    }
    if (kind == JVMTI_HEAP_REFERENCE_FIELD) {
        *index = (uint32_t) info->field.index;
        *holder = hw_class_of(w, referrer_class_tag);
        if (*holder != NULL && ((*holder)->flags & HW_WEAK) && info->field.index == (*holder)->referent) {
            return HW_LEAVE; /* a weak, phantom or final reference's referent: not held by it */
        }
    } else if (kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD) {
        *index = (uint32_t) info->field.index;
        *holder = hw_class_of(w, *referrer_tag_ptr);
    } else if (kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT) {
        *index = (uint32_t) info->array.index;
    } else if (kind == JVMTI_HEAP_REFERENCE_CONSTANT_POOL) {
        *index = (uint32_t) info->constant_pool.index;
    }
    *parent = p;
    *edge = HW_EDGE(kind, *index);
    *depth = w->nodes[p - 1].depth + 1;
    return HW_GO;
}

/*
 * The referee's node: a class mirror's, a tagged object's (a sample, or a node tagged earlier), or one found or made
 * by address (or tag) for an object that can hold references; 0 for a leaf. *created: the node is new (its parent
 * is this reference). Returns HW_ABORT (w->outcome set) when memory runs out or a sample's address check fails.
 */
static inline int hw_referee(hw_state *w, jvmtiHeapReferenceKind kind, jlong class_tag, jlong *tag_ptr,
                             uint32_t parent, uint32_t edge, uint32_t depth, uint32_t *node, uint32_t *klass_out,
                             int *created) {
    jlong tag = *tag_ptr;
    hw_class *c = hw_class_of(w, class_tag);
    uint32_t klass = c == NULL ? 0 : (uint32_t) (c - w->classes) + 1;
    uint32_t n = 0;
    hw_class *mirror = tag >= HW_CLASS_TAG ? hw_class_of(w, tag) : NULL;
    *klass_out = klass;
    *created = 0;
    if (mirror != NULL) {
        if (mirror->node == 0) {
            mirror->node = hw_new_node(w, parent, edge, HW_MIRROR | ((uint32_t) (mirror - w->classes) + 1), depth);
            if (mirror->node == 0) {
                w->outcome = HW_MEMORY;
                return HW_ABORT;
            }
            *created = 1;
        }
        n = mirror->node;
    } else if (tag != 0) {
        n = hw_node_of(w, tag); /* a sample, a node tagged earlier, or (0) a leaf tagged as an example */
        if (n != 0 && !hw_check_sample(w, n, tag_ptr)) {
            w->outcome = HW_LAYOUT;
            return HW_ABORT;
        }
    } else if (c == NULL || !(c->flags & HW_LEAF)) {
        uintptr_t a = 0;
        if (w->by_address) {
            a = hw_address(tag_ptr, w->layout.referee_word, w->layout.referee_deref);
            n = hw_table_find(w, a);
        }
        if (n == 0) {
            n = hw_new_node(w, parent, edge, klass, depth);
            if (n == 0 || (w->by_address && hw_table_add(w, a, n) != 0)) {
                w->outcome = HW_MEMORY;
                return HW_ABORT;
            }
            if (!w->by_address || kind == JVMTI_HEAP_REFERENCE_THREAD) {
                *tag_ptr = n; /* walking by tags; and a thread root's thread, to name it afterwards */
                w->tags++;
            }
            *created = 1;
        }
    }
    *node = n;
    return HW_GO;
}

/*
 * An existing node reached again: a sample reached the first time takes this reference as its parent; any node takes
 * a shallower one, unless it hangs from a root (other than a JNI local, a weak reason).
 */
static inline void hw_reparent(hw_state *w, uint32_t n, uint32_t parent, uint32_t edge, uint32_t depth,
                               uint32_t klass) {
    hw_node *e = &w->nodes[n - 1];
    if (e->parent == HW_UNREACHED) {
        e->parent = parent;
        e->edge = edge;
        e->depth = depth;
        if (e->klass == 0) {
            e->klass = klass;
        }
    } else if (depth < e->depth && (e->parent != HW_ROOT
                                    || HW_EDGE_KIND(e->edge) == JVMTI_HEAP_REFERENCE_JNI_LOCAL)) {
        e->parent = parent;
        e->edge = edge;
        e->depth = depth;
    }
}

/*
 * FollowReferences' callback, at a safepoint: only plain C here (its parts are inline). Returns JVMTI_VISIT_OBJECTS
 * to have the JVM visit the referee's own references (it visits each object once, whatever it is asked), 0 to leave
 * them, and JVMTI_VISIT_ABORT past a budget.
 */
static jint JNICALL hw_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data) {
    (void) size;
    (void) length;
    hw_state *w = (hw_state *) user_data;
    if ((++w->references & 1023) == 0 && now_nanos() > w->deadline) {
        w->outcome = HW_TIME;
        return JVMTI_VISIT_ABORT;
    }
    uint32_t parent = HW_ROOT;
    uint32_t edge = 0;
    uint32_t depth = 0;
    hw_class *holder = NULL;
    uint32_t index = 0;
    int go = referrer_tag_ptr == NULL
            ? hw_from_root(w, kind, info, &edge, &depth)
            : hw_from_object(w, kind, info, referrer_class_tag, tag_ptr, referrer_tag_ptr, &parent, &edge, &depth,
                             &holder, &index);
    if (go != HW_GO) {
        return go == HW_ABORT ? JVMTI_VISIT_ABORT : 0;
    }
    uint32_t n = 0;
    uint32_t klass = 0;
    int created = 0;
    if (hw_referee(w, kind, class_tag, tag_ptr, parent, edge, depth, &n, &klass, &created) == HW_ABORT) {
        return JVMTI_VISIT_ABORT;
    }
    if (n != 0 && !created) {
        hw_reparent(w, n, parent, edge, depth, klass);
    }
    if (holder != NULL) {
        hw_note_field(w, holder, index, kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD, parent, referrer_tag_ptr, n,
                      tag_ptr);
    }
    return n == 0 ? 0 : JVMTI_VISIT_OBJECTS;
}

#include "heap_walk_prepare.h"
#include "heap_walk_answer.h"

#include "heap_walk_attempt.h"

/* ------------------------------------------------------------------------------------------- the walk */

/*
 * Walks the heap from the GC roots and answers, for each tracked sample whose object is alive, the chain of
 * references that reached it. Called with the drain thread excluded (JvmtiHeapSampler holds its lock: no reference
 * of the live table is deleted meanwhile).
 *
 * stats (HW_STATS longs): see the HW_STAT_* indexes. Returns {long[] nodes, String[] strings, long[] samples}, or
 * null when the walk could not run or its answer could not be built (stats say why: outcome HW_FAILED, error: a
 * JVMTI error code, -1 no JVMTI, -5 memory short, -6 not enough free memory for the budget, -7 no capture, -9 the
 * answer for the tracked samples would not fit in answer_bytes of Java heap; -8 with an empty answer: no sample was
 * tracked, so there was nothing to walk for). answer_bytes: the Java heap the answer may take (HW_JAVA_*_BYTES a
 * node and a sample); the paths of samples past it are left out.
 *   nodes: HW_OUT_NODE_LONGS per node, parents first: parent (-1: a root), kind (the JVMTI reference kind of the
 *          reference into it; a root's kind) | 0x100 when it is a Class object, array element or constant pool
 *          index (else 0), class name (string index: the class of the object, or the class a Class object is),
 *          label (string index: the field's name, or the root's description; -1 none)
 *   samples: HW_OUT_SAMPLE_LONGS per tracked sample alive when the walk started: id, site, size, node (-1: not
 *          reached)
 *
 * About 110 lines for one exit: every path, failed or not, leaves through `done`, which frees all the walk took.
 */
JNIEXPORT jobjectArray JNICALL Java_java_lang_MemscopeHooks_jvmtiWalk0(JNIEnv *jni, jclass cls, jlong time_budget,
                                                                      jlong memory_budget, jlong answer_bytes,
                                                                      jlongArray stats_out) {
    (void) cls;
    jlong stats[HW_STATS];
    memset(stats, 0, sizeof(stats));
    stats[HW_STAT_OUTCOME] = HW_FAILED;
    jobjectArray answer = NULL;
    jvmtiEnv *env = NULL;
    hw_state w;
    memset(&w, 0, sizeof(w));
    hw_answer a;
    memset(&a, 0, sizeof(a));
    hw_sample *samples = NULL;
    size_t sample_count = 0;
    jlong started = now_nanos();
    int frame_pushed = 0;
    jint rc;

    if (jvmti == NULL || vm == NULL) {
        stats[HW_STAT_ERROR] = -1;
        goto done;
    }
    /* Memory: the budget must fit in what the machine and the cgroup have free, with room to spare. */
    int64_t available = hw_available_bytes();
    stats[HW_STAT_AVAILABLE] = available;
    int64_t budget = memory_budget;
    if (available >= 0 && budget > available / 2) {
        budget = available / 2;
    }
    stats[HW_STAT_BUDGET] = budget;
    if (budget < (int64_t) (1 << 20)) {
        stats[HW_STAT_ERROR] = -6;
        goto done;
    }
    rc = hw_collect_samples(&samples, &sample_count);
    if (rc != 0) {
        stats[HW_STAT_ERROR] = rc;
        goto done;
    }
    /* The answer's Java objects must fit in the Java heap's free room given: checked before the walk, no pause. */
    {
        int64_t for_samples = (int64_t) sample_count * HW_JAVA_SAMPLE_BYTES;
        int64_t nodes = (answer_bytes - for_samples) / HW_JAVA_NODE_BYTES;
        if (sample_count > 0 && nodes < 1024) {
            stats[HW_STAT_TRACKED] = (jlong) sample_count;
            stats[HW_STAT_ERROR] = -9;
            goto done;
        }
        a.max_nodes = nodes <= 0 ? 0 : nodes > (int64_t) HW_MAX_OUT_NODES ? HW_MAX_OUT_NODES : (uint32_t) nodes;
        stats[HW_STAT_ANSWER_LIMIT] = a.max_nodes;
    }
    if (sample_count == 0) {
        /* nothing tracked, nothing to explain: no walk, no pause */
        answer = hw_java_answer(jni, &a);
        stats[HW_STAT_OUTCOME] = answer == NULL ? HW_FAILED : HW_COMPLETE;
        stats[HW_STAT_ERROR] = answer == NULL ? -5 : -8;
        goto done;
    }
    if ((*jni)->PushLocalFrame(jni, 64) != 0) {
        (*jni)->ExceptionClear(jni);
        stats[HW_STAT_ERROR] = -5;
        goto done;
    }
    frame_pushed = 1;
    rc = hw_attempt(jni, &w, &env, samples, sample_count, budget, time_budget, started, 1, stats);
    if (rc == 0 && w.outcome == HW_LAYOUT) {
        /* the address words did not hold for this JVM: walk again, telling objects apart by tags */
        hw_release(&w, env);
        env = NULL;
        rc = hw_attempt(jni, &w, &env, samples, sample_count, budget, time_budget, started, 0, stats);
    }
    if (rc != 0) {
        stats[HW_STAT_ERROR] = rc;
        goto done;
    }
    jlong walked = now_nanos();
    rc = hw_chains(&w, samples, sample_count, &a);
    if (rc == 0) {
        rc = hw_names(jni, env, &w, &a);
    }
    if (rc == 0) {
        answer = hw_java_answer(jni, &a);
        rc = answer == NULL ? -5 : 0;
    }
    if (rc != 0) {
        stats[HW_STAT_ERROR] = rc;
        goto done;
    }
    stats[HW_STAT_REACHED] = (jlong) a.reached;
    stats[HW_STAT_OUTPUT_NODES] = (jlong) a.count;
    stats[HW_STAT_LEFT_OUT] = (jlong) a.left_out;
    stats[HW_STAT_OUTCOME] = w.outcome;
    stats[HW_STAT_AFTER] = now_nanos() - walked;

done:
    if (frame_pushed) {
        answer = (jobjectArray) (*jni)->PopLocalFrame(jni, answer);
    }
    hw_release(&w, env);
    free(samples);
    free(a.nodes);
    free(a.source);
    free(a.samples);
    hw_strings_free(&a.strings);
    if (stats_out != NULL) {
        (*jni)->SetLongArrayRegion(jni, stats_out, 0, HW_STATS, stats);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
        }
    }
    return answer;
}
