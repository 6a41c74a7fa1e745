/*
 * Stack keys: a cheap name for the allocating thread's stack, and the cache from that name to GetStackTrace's answer
 * (included once, by memscope_sampler.c, after its state).
 *
 * Why. JVMTI GetStackTrace is most of what a sample costs: it enters the VM, builds a virtual frame per Java frame
 * and decodes compiled frames' debug information every time. Yet its answer is a function of the thread's physical
 * frames: a compiled frame is fully named by its return address and the compilation it belongs to (the debug
 * information at that address lists its inlined Java frames), an interpreted frame by its method and bytecode
 * index. So a sample walks its own thread's frames (reading HotSpot's structures, whose layout the JVM publishes in
 * gHotSpotVMStructs, as its Serviceability Agent reads them), hashes what names each frame into a 64-bit key, and
 * looks the key up in a table filled from GetStackTrace's earlier answers. A key is never a guess: when the walk
 * meets anything it does not know exactly, there is no key and GetStackTrace answers, as it always did.
 *
 * What names a frame, and why it cannot be reused for another:
 *   - compiled (nmethod): its return address and the nmethod's compile id. Compile ids are never reused, so an
 *     address reused by a later compilation gives another key. A return address must lie in the nmethod's code
 *     before its stub section: a frame the JVM deoptimized returns into the deoptimization handler instead, which
 *     does not name the call site, so such a walk has no key;
 *   - interpreted: the method's jmethodID (read from the class's jmethodID cache; none yet means no key) and the
 *     bytecode index (from the frame's bytecode pointer; -1 for a native method, as JVMTI reports it);
 *   - runtime stubs and other code blobs with a frame: no Java frame (GetStackTrace skips them); the walk passes
 *     them by their frame size and names them by their return address (so that an nmethod a JDK's blob names were
 *     not recognized by is still named by its address);
 *   - the call stub's entry frames (the VM or native code calling Java): no Java frame; the walk goes on where the
 *     JavaCallWrapper's anchor says (the wrapper lives on this stack, in the VM's call_helper frame);
 *   - anything else (a code blob without a frame, an adapter, an upcall stub, a continuation's return barrier, an
 *     address outside the code cache, a frame pointer outside the thread's stack): no key.
 * The walk stops at the thread's first frame, or once it has passed as many frames holding Java frames as the
 * samples keep (each holds at least one, so GetStackTrace's truncated answer is decided by then).
 *
 * Sender frames follow HotSpot's x86_64 frame layout (frame_x86.hpp): a code blob's caller's stack pointer is its
 * (unextended) stack pointer plus its frame size, with the return address and the saved frame pointer in the two
 * words below; an interpreted frame's caller's return address and frame pointer are at fp[1] and fp[0], its
 * caller's unextended stack pointer at fp[-1], its Method* at fp[-3] and its bytecode pointer at fp[-8]; an entry
 * frame's JavaCallWrapper* at fp[-6] (frame::entry_frame_call_wrapper_offset, checked against the JVM's constant).
 *
 * Safety. Only the calling thread's own frames are walked, from its last Java frame (the anchor the JVM set when
 * it left Java code for the allocation's slow path), while the callback runs: those frames, their nmethods and their
 * methods cannot go away meanwhile. Every stack address is checked against the thread's stack bounds and every code
 * address against the code heaps' committed memory before it is read. The only thing another thread may change is
 * a frame's return address (the JVM deoptimizing it), a word written atomically: either value is handled.
 *
 * Checked. Every 1024th answer from the table (per thread) is compared with GetStackTrace's; a difference turns the
 * table off for good (counted: the stacks stay exact, only slower). With stackwalk=check every answer is compared.
 *
 * The cache: open addressing, 2^16 slots of (key, stack hash), insert-only, lock-free (a slot's key is claimed with
 * a compare-and-swap and its value published after it; a reader that sees the key before the value treats it as a
 * miss). Cleared with each capture (the depth kept may differ). Full: later keys go uncached.
 */
#include <dlfcn.h>
#include <pthread.h>

/* What GetStackTrace's answers are checked against the table: every 1024th (per thread), every one, or none. */
#define STACK_WALK_OFF 0
#define STACK_WALK_ON 1
#define STACK_WALK_CHECK 2

#define KEY_SLOTS (1u << 16)
#define KEY_LIMIT (KEY_SLOTS / 4 * 3)
#define KEY_PROBES 16
#define CHECK_EVERY 1024
#define MAX_PHYSICAL_FRAMES 8192
#define MAX_CODE_HEAPS 8

typedef struct {
    uint64_t key;
    uint64_t stack;
} key_slot;

static key_slot *key_table;
static volatile uint32_t key_count;
/* STACK_WALK_*: what this capture asked for. walker_usable: -1 not read yet, 0 the JVM's layout not understood,
 * 1 understood, WALKER_DISTRUSTED after an answer from the table differed from GetStackTrace's (for the JVM's life). */
#define WALKER_DISTRUSTED 2
static volatile int stack_walk_mode;
static volatile int walker_usable = -1;
static volatile int64_t stacks_from_table;
static volatile int64_t stacks_keyed_missed;
static volatile int64_t stacks_unkeyed;
static volatile int64_t stacks_checked;
static volatile int64_t stacks_mismatched;

/* HotSpot's layout, read from gHotSpotVMStructs (offsets in bytes; -1: the JVM does not publish it). */
static struct {
    intptr_t env_offset;            /* JNIEnv* minus JavaThread* */
    int thread_anchor, thread_stack_base;
    int anchor_sp, anchor_pc, anchor_fp;
    int wrapper_anchor;
    uintptr_t call_stub_return;
    uintptr_t interpreter_begin, interpreter_end;
    int heaps;
    uintptr_t heap[MAX_CODE_HEAPS];  /* CodeHeap* */
    int heap_memory, heap_segmap, heap_log2_segment;
    int vs_low, vs_high;
    size_t heap_block_size;
    int heap_block_used;
    int blob_name, blob_size, blob_frame_size, blob_kind, blob_code_begin, blob_code_offset;
    int kind_nmethod, kind_runtime_stub, kind_deoptimization, kind_safepoint, kind_exception, kind_uncommon_trap;
    int nm_compile_id, nm_stub_offset;
    int method_const, const_constants, const_idnum, const_code_size, pool_holder, klass_jmethod_ids;
    size_t const_method_size;
} hs;

/* ------------------------------------------------------------------------------------ reading VMStructs */

typedef struct {
    char **structs, **types, **ints;
    uint64_t *s_stride, *s_type, *s_field, *s_static, *s_offset, *s_address;
    uint64_t *t_stride, *t_name, *t_size;
    uint64_t *i_stride, *i_name, *i_value;
} vm_tables;

static void *vm_symbol(const char *name) {
    return dlsym(RTLD_DEFAULT, name);
}

static int vm_tables_find(vm_tables *t) {
    t->structs = vm_symbol("gHotSpotVMStructs");
    t->types = vm_symbol("gHotSpotVMTypes");
    t->ints = vm_symbol("gHotSpotVMIntConstants");
    t->s_stride = vm_symbol("gHotSpotVMStructEntryArrayStride");
    t->s_type = vm_symbol("gHotSpotVMStructEntryTypeNameOffset");
    t->s_field = vm_symbol("gHotSpotVMStructEntryFieldNameOffset");
    t->s_static = vm_symbol("gHotSpotVMStructEntryIsStaticOffset");
    t->s_offset = vm_symbol("gHotSpotVMStructEntryOffsetOffset");
    t->s_address = vm_symbol("gHotSpotVMStructEntryAddressOffset");
    t->t_stride = vm_symbol("gHotSpotVMTypeEntryArrayStride");
    t->t_name = vm_symbol("gHotSpotVMTypeEntryTypeNameOffset");
    t->t_size = vm_symbol("gHotSpotVMTypeEntrySizeOffset");
    t->i_stride = vm_symbol("gHotSpotVMIntConstantEntryArrayStride");
    t->i_name = vm_symbol("gHotSpotVMIntConstantEntryNameOffset");
    t->i_value = vm_symbol("gHotSpotVMIntConstantEntryValueOffset");
    return t->structs && *t->structs && t->types && *t->types && t->ints && *t->ints && t->s_stride && t->s_type
            && t->s_field && t->s_static && t->s_offset && t->s_address && t->t_stride && t->t_name && t->t_size
            && t->i_stride && t->i_name && t->i_value;
}

/* A field's offset (instance field) or address (static field); -1 / 0 when not published. */
static int64_t vm_field(const vm_tables *t, const char *type, const char *field, int want_static) {
    for (char *e = *t->structs;; e += *t->s_stride) {
        const char *ty = *(const char **) (e + *t->s_type);
        if (ty == NULL) {
            return want_static ? 0 : -1;
        }
        const char *f = *(const char **) (e + *t->s_field);
        if (f != NULL && strcmp(ty, type) == 0 && strcmp(f, field) == 0) {
            int is_static = *(int32_t *) (e + *t->s_static);
            if (is_static != want_static) {
                return want_static ? 0 : -1;
            }
            return want_static ? (int64_t) (uintptr_t) *(void **) (e + *t->s_address)
                               : (int64_t) *(uint64_t *) (e + *t->s_offset);
        }
    }
}

static int64_t vm_type_size(const vm_tables *t, const char *type) {
    for (char *e = *t->types;; e += *t->t_stride) {
        const char *ty = *(const char **) (e + *t->t_name);
        if (ty == NULL) {
            return -1;
        }
        if (strcmp(ty, type) == 0) {
            return (int64_t) *(uint64_t *) (e + *t->t_size);
        }
    }
}

static int vm_int(const vm_tables *t, const char *name, int missing) {
    for (char *e = *t->ints;; e += *t->i_stride) {
        const char *n = *(const char **) (e + *t->i_name);
        if (n == NULL) {
            return missing;
        }
        if (strcmp(n, name) == 0) {
            return *(int32_t *) (e + *t->i_value);
        }
    }
}

/*
 * JNIEnv's place in the JavaThread (JNIEnv* minus JavaThread*), read on a platform thread in Java code's native method:
 * its Thread.eetop holds its JavaThread*. -1 when it cannot be read.
 */
static intptr_t java_thread_env_offset(JNIEnv *jni, jclass thread_class) {
    jfieldID eetop = (*jni)->GetFieldID(jni, thread_class, "eetop", "J");
    if (eetop == NULL) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || self == NULL) {
        return -1;
    }
    char *java_thread = (char *) (intptr_t) (*jni)->GetLongField(jni, self, eetop);
    (*jni)->DeleteLocalRef(jni, self);
    if (java_thread == NULL || (char *) jni <= java_thread || (char *) jni - java_thread > 65536) {
        return -1;
    }
    return (char *) jni - java_thread;
}

#define FIELD(var, type, field) \
    if ((var = (int) vm_field(&t, type, field, 0)) < 0) return 0

/*
 * Reads the layout (once per JVM), on a platform thread in Java code's native method (start0): its Thread.eetop
 * gives the distance between a JavaThread and its JNIEnv. Returns 1 when every piece the walk needs was found and
 * checked against this thread.
 *
 * About 100 lines: a list of layout reads, each checked where it is made; a split would only move the list.
 */
static int walker_init(JNIEnv *jni, jclass thread_class) {
    vm_tables t;
    if (!vm_tables_find(&t)) {
        return 0;
    }
    FIELD(hs.thread_anchor, "JavaThread", "_anchor");
    FIELD(hs.thread_stack_base, "JavaThread", "_stack_base");
    FIELD(hs.anchor_sp, "JavaFrameAnchor", "_last_Java_sp");
    FIELD(hs.anchor_pc, "JavaFrameAnchor", "_last_Java_pc");
    FIELD(hs.anchor_fp, "JavaFrameAnchor", "_last_Java_fp");
    FIELD(hs.wrapper_anchor, "JavaCallWrapper", "_anchor");
    FIELD(hs.heap_memory, "CodeHeap", "_memory");
    FIELD(hs.heap_segmap, "CodeHeap", "_segmap");
    FIELD(hs.heap_log2_segment, "CodeHeap", "_log2_segment_size");
    FIELD(hs.vs_low, "VirtualSpace", "_low");
    FIELD(hs.vs_high, "VirtualSpace", "_high");
    FIELD(hs.heap_block_used, "HeapBlock::Header", "_used");
    FIELD(hs.blob_name, "CodeBlob", "_name");
    FIELD(hs.blob_size, "CodeBlob", "_size");
    FIELD(hs.blob_frame_size, "CodeBlob", "_frame_size");
    FIELD(hs.nm_compile_id, "nmethod", "_compile_id");
    FIELD(hs.nm_stub_offset, "nmethod", "_stub_offset");
    FIELD(hs.method_const, "Method", "_constMethod");
    FIELD(hs.const_constants, "ConstMethod", "_constants");
    FIELD(hs.const_idnum, "ConstMethod", "_method_idnum");
    FIELD(hs.const_code_size, "ConstMethod", "_code_size");
    FIELD(hs.pool_holder, "ConstantPool", "_pool_holder");
    FIELD(hs.klass_jmethod_ids, "InstanceKlass", "_methods_jmethod_ids");
    /* Up to JDK 22 a blob holds its code's address; later, an offset and its kind. */
    hs.blob_code_begin = (int) vm_field(&t, "CodeBlob", "_code_begin", 0);
    hs.blob_code_offset = (int) vm_field(&t, "CodeBlob", "_code_offset", 0);
    hs.blob_kind = (int) vm_field(&t, "CodeBlob", "_kind", 0);
    if (hs.blob_code_begin < 0 && hs.blob_code_offset < 0) {
        return 0;
    }
    if (hs.blob_kind >= 0) {
        hs.kind_nmethod = vm_int(&t, "CodeBlobKind::Nmethod", -1);
        hs.kind_runtime_stub = vm_int(&t, "CodeBlobKind::RuntimeStub", -1);
        hs.kind_deoptimization = vm_int(&t, "CodeBlobKind::Deoptimization", -1);
        hs.kind_safepoint = vm_int(&t, "CodeBlobKind::Safepoint", -1);
        hs.kind_exception = vm_int(&t, "CodeBlobKind::Exception", -1);
        hs.kind_uncommon_trap = vm_int(&t, "CodeBlobKind::UncommonTrap", -1);
        if (hs.kind_nmethod < 0 || hs.kind_runtime_stub < 0) {
            return 0;
        }
    }
    int64_t block = vm_type_size(&t, "HeapBlock");
    int64_t const_method = vm_type_size(&t, "ConstMethod");
    if (block <= 0 || const_method <= 0) {
        return 0;
    }
    hs.heap_block_size = (size_t) block;
    hs.const_method_size = (size_t) const_method;
    /* The frame layout this file assumes, where the JVM publishes it. */
    if (vm_int(&t, "frame::entry_frame_call_wrapper_offset", -6) != -6
            || vm_int(&t, "frame::interpreter_frame_sender_sp_offset", -1) != -1
            || vm_int(&t, "frame::interpreter_frame_last_sp_offset", -2) != -2) {
        return 0;
    }
    uintptr_t *call_stub_return = (uintptr_t *) (uintptr_t) vm_field(&t, "StubRoutines",
                                                                       "_call_stub_return_address", 1);
    void **interpreter = (void **) (uintptr_t) vm_field(&t, "AbstractInterpreter", "_code", 1);
    void **heaps = (void **) (uintptr_t) vm_field(&t, "CodeCache", "_heaps", 1);
    int stub_buffer = (int) vm_field(&t, "StubQueue", "_stub_buffer", 0);
    int buffer_limit = (int) vm_field(&t, "StubQueue", "_buffer_limit", 0);
    int array_len = (int) vm_field(&t, "GrowableArrayBase", "_len", 0);
    int array_data = (int) vm_field(&t, "GrowableArray<int>", "_data", 0);
    if (call_stub_return == NULL || *call_stub_return == 0 || interpreter == NULL || *interpreter == NULL
            || heaps == NULL || *heaps == NULL || stub_buffer < 0 || buffer_limit < 0 || array_len < 0
            || array_data < 0) {
        return 0;
    }
    hs.call_stub_return = *call_stub_return;
    char *queue = (char *) *interpreter;
    hs.interpreter_begin = *(uintptr_t *) (queue + stub_buffer);
    hs.interpreter_end = hs.interpreter_begin + (uintptr_t) *(int32_t *) (queue + buffer_limit);
    /* The code heaps are made at start-up and never change. */
    char *array = (char *) *heaps;
    int n = *(int32_t *) (array + array_len);
    void **data = *(void ***) (array + array_data);
    if (n <= 0 || n > MAX_CODE_HEAPS || data == NULL) {
        return 0;
    }
    hs.heaps = n;
    for (int i = 0; i < n; i++) {
        hs.heap[i] = (uintptr_t) data[i];
        if (hs.heap[i] == 0) {
            return 0;
        }
    }
    hs.env_offset = java_thread_env_offset(jni, thread_class);
    if (hs.env_offset <= 0) {
        return 0;
    }
    char *java_thread = (char *) jni - hs.env_offset;
    /* The stack base must lie above this very frame, within the thread's stack. */
    char here;
    uintptr_t base = *(uintptr_t *) (java_thread + hs.thread_stack_base);
    if (base <= (uintptr_t) &here || base - (uintptr_t) &here > (UINT64_C(1) << 32)) {
        return 0;
    }
    return 1;
}

#undef FIELD

/* ------------------------------------------------------------------------------------------ the walk */

/* The code blob holding pc, found through its code heap's segment map (CodeHeap::find_start), or 0. */
static inline uintptr_t blob_at(uintptr_t pc) {
    for (int i = 0; i < hs.heaps; i++) {
        char *heap = (char *) hs.heap[i];
        uintptr_t low = *(uintptr_t *) (heap + hs.heap_memory + hs.vs_low);
        uintptr_t high = __atomic_load_n((uintptr_t *) (heap + hs.heap_memory + hs.vs_high), __ATOMIC_ACQUIRE);
        if (pc < low || pc >= high) {
            continue;
        }
        int log2 = *(int32_t *) (heap + hs.heap_log2_segment);
        uintptr_t map = *(uintptr_t *) (heap + hs.heap_segmap + hs.vs_low);
        uintptr_t map_high = __atomic_load_n((uintptr_t *) (heap + hs.heap_segmap + hs.vs_high), __ATOMIC_ACQUIRE);
        uintptr_t index = (pc - low) >> log2;
        if (log2 <= 0 || log2 > 20 || index >= map_high - map) {
            return 0;
        }
        const uint8_t *segments = (const uint8_t *) map;
        if (segments[index] == 0xFF) {
            return 0; /* unused segment */
        }
        for (int hops = 0; segments[index] > 0; hops++) {
            if (hops > 65536 || segments[index] > index) {
                return 0;
            }
            index -= segments[index];
        }
        char *block = (char *) (low + (index << log2));
        if (!*(volatile uint8_t *) (block + hs.heap_block_used)) {
            return 0;
        }
        uintptr_t blob = (uintptr_t) block + hs.heap_block_size;
        int32_t size = *(int32_t *) (blob + hs.blob_size);
        return size > 0 && pc < blob + (uintptr_t) size ? blob : 0;
    }
    return 0;
}

static inline uintptr_t blob_code_begin(uintptr_t blob) {
    return hs.blob_code_begin >= 0 ? *(uintptr_t *) (blob + hs.blob_code_begin)
                                   : blob + (uintptr_t) *(int32_t *) (blob + hs.blob_code_offset);
}

#define BLOB_NMETHOD 1
#define BLOB_FRAME 2
#define BLOB_OTHER 0

/* nmethod; another blob whose frame the JVM walks by its size (runtime stubs, the deoptimization and safepoint
 * blobs, ...); or anything else. */
static inline int blob_kind(uintptr_t blob) {
    if (hs.blob_kind >= 0) {
        int kind = *(uint8_t *) (blob + hs.blob_kind);
        if (kind == hs.kind_nmethod) {
            return BLOB_NMETHOD;
        }
        return kind == hs.kind_runtime_stub || kind == hs.kind_deoptimization || kind == hs.kind_safepoint
                       || kind == hs.kind_exception || kind == hs.kind_uncommon_trap ? BLOB_FRAME : BLOB_OTHER;
    }
    /* Before kinds were published: nmethods by name; every other blob with a frame (buffers, adapters and
     * vtable stubs have none) is walked by its size, as frame::sender does. */
    const char *name = *(const char **) (blob + hs.blob_name);
    if (name != NULL && name[0] == 'n' && strcmp(name, "nmethod") == 0) {
        return BLOB_NMETHOD;
    }
    if (name != NULL && name[0] == 'n' && strcmp(name, "native nmethod") == 0) {
        return BLOB_NMETHOD;
    }
    return BLOB_FRAME;
}

/* The jmethodID JVMTI gives an interpreted frame's method (InstanceKlass::get_jmethod_id's cache), or NULL. */
static inline uintptr_t interpreted_method_id(uintptr_t method, uintptr_t bcp, int64_t *bci) {
    if (method == 0 || (method & 7) != 0) {
        return 0;
    }
    uintptr_t cm = *(uintptr_t *) (method + hs.method_const);
    if (cm == 0 || (cm & 7) != 0) {
        return 0;
    }
    uintptr_t code = cm + hs.const_method_size;
    uint16_t code_size = *(uint16_t *) (cm + hs.const_code_size);
    if (bcp == 0) {
        *bci = -1; /* a native method's frame */
    } else if (bcp >= code && bcp < code + code_size) {
        *bci = (int64_t) (bcp - code);
    } else {
        return 0;
    }
    uintptr_t pool = *(uintptr_t *) (cm + hs.const_constants);
    if (pool == 0 || (pool & 7) != 0) {
        return 0;
    }
    uintptr_t holder = *(uintptr_t *) (pool + hs.pool_holder);
    if (holder == 0 || (holder & 7) != 0) {
        return 0;
    }
    uintptr_t *ids = __atomic_load_n((uintptr_t **) (holder + hs.klass_jmethod_ids), __ATOMIC_ACQUIRE);
    uint16_t idnum = *(uint16_t *) (cm + hs.const_idnum);
    if (ids == NULL || idnum >= ids[0]) {
        return 0;
    }
    return __atomic_load_n(&ids[idnum + 1], __ATOMIC_ACQUIRE);
}

#define STACK_WORD(p) (*(uintptr_t *) (p))

/*
 * The key of the calling thread's stack, as deep as `wanted` Java frames, or 0 when the walk cannot name every frame
 * exactly. Called from the sampling callback only (the thread is in native code, its frames walkable).
 *
 * About 100 lines: the frame walk is one loop on the sampling thread, kept in one function for the compiler.
 */
static uint64_t stack_key(JNIEnv *jni, jint wanted) {
    char *thread = (char *) jni - hs.env_offset;
    char here;
    uintptr_t low = (uintptr_t) &here;
    uintptr_t high = *(uintptr_t *) (thread + hs.thread_stack_base);
    char *anchor = thread + hs.thread_anchor;
    uintptr_t sp = *(volatile uintptr_t *) (anchor + hs.anchor_sp);
    uintptr_t pc = *(volatile uintptr_t *) (anchor + hs.anchor_pc);
    uintptr_t fp = *(volatile uintptr_t *) (anchor + hs.anchor_fp);
    uintptr_t unextended = sp;
    uint64_t key = UINT64_C(0x6A09E667F3BCC908);
    jint java_frames = 0;
    if (sp <= low || sp >= high || (sp & 7) != 0) {
        return 0;
    }
    if (pc == 0) {
        pc = STACK_WORD(sp - 8);
    }
    for (int physical = 0; physical < MAX_PHYSICAL_FRAMES; physical++) {
        if (java_frames >= wanted) {
            key = mix(key, 0x7472756E63617465ULL); /* truncated here */
            return key == 0 ? 1 : key;
        }
        if (pc >= hs.interpreter_begin && pc < hs.interpreter_end) {
            if (fp <= sp || fp - 8 * 8 <= low || fp + 16 >= high || (fp & 7) != 0) {
                return 0;
            }
            int64_t bci = 0;
            uintptr_t id = interpreted_method_id(STACK_WORD(fp - 3 * 8), STACK_WORD(fp - 8 * 8), &bci);
            if (id == 0) {
                return 0;
            }
            key = mix(mix(key, id), (uint64_t) bci);
            java_frames++;
            uintptr_t sender_sp = fp + 16;
            unextended = STACK_WORD(fp - 8);
            pc = STACK_WORD(fp + 8);
            fp = STACK_WORD(fp);
            sp = sender_sp;
        } else if (pc == hs.call_stub_return) {
            /* An entry frame: Java called from the VM or from native code. Its caller's Java frames, if any, are
             * where the JavaCallWrapper's anchor says. */
            if (fp <= sp || fp - 6 * 8 <= low || fp >= high || (fp & 7) != 0) {
                return 0;
            }
            /* The JavaCallWrapper is a local of the VM's JavaCalls::call_helper: on this stack, above the frame. */
            char *wrapper = (char *) STACK_WORD(fp - 6 * 8);
            if ((uintptr_t) wrapper <= fp || (uintptr_t) wrapper >= high - 64 || ((uintptr_t) wrapper & 7) != 0) {
                return 0;
            }
            char *a = wrapper + hs.wrapper_anchor;
            uintptr_t next_sp = *(volatile uintptr_t *) (a + hs.anchor_sp);
            if (next_sp == 0) {
                key = mix(key, 0x626F74746F6DULL); /* the thread's first frame */
                return key == 0 ? 1 : key;
            }
            if (next_sp <= sp || next_sp >= high || (next_sp & 7) != 0) {
                return 0;
            }
            pc = *(volatile uintptr_t *) (a + hs.anchor_pc);
            fp = *(volatile uintptr_t *) (a + hs.anchor_fp);
            sp = unextended = next_sp;
            if (pc == 0) {
                pc = STACK_WORD(sp - 8);
            }
            continue;
        } else {
            uintptr_t blob = blob_at(pc);
            if (blob == 0) {
                return 0;
            }
            int kind = blob_kind(blob);
            int32_t frame_words = *(int32_t *) (blob + hs.blob_frame_size);
            if (kind == BLOB_OTHER || frame_words < 2 || frame_words > (1 << 20)) {
                return 0;
            }
            if (kind == BLOB_NMETHOD) {
                uintptr_t stubs = blob + (uintptr_t) *(int32_t *) (blob + hs.nm_stub_offset);
                if (pc < blob_code_begin(blob) || pc >= stubs) {
                    return 0; /* a deoptimized frame, or not a call site */
                }
                key = mix(mix(key, pc), (uint64_t) (uint32_t) *(int32_t *) (blob + hs.nm_compile_id));
                java_frames++;
            } else {
                /* No Java frame; named anyway, so that an nmethod a JDK's blob names were not recognized by still
                 * names its frame (by address). */
                key = mix(key, pc);
            }
            uintptr_t sender_sp = unextended + (uintptr_t) frame_words * 8;
            if (sender_sp <= sp || sender_sp >= high) {
                return 0;
            }
            pc = STACK_WORD(sender_sp - 8);
            fp = STACK_WORD(sender_sp - 16);
            sp = unextended = sender_sp;
        }
        if (sp <= low || sp >= high || unextended <= low || unextended >= high) {
            return 0;
        }
    }
    return 0;
}

#undef STACK_WORD

/* ----------------------------------------------------------------------------------------- the table */

static uint64_t key_lookup(uint64_t key) {
    uint32_t i = (uint32_t) (key ^ (key >> 29));
    for (int p = 0; p < KEY_PROBES; p++) {
        key_slot *s = &key_table[(i + p) & (KEY_SLOTS - 1)];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == key) {
            return __atomic_load_n(&s->stack, __ATOMIC_ACQUIRE);
        }
        if (k == 0) {
            return 0;
        }
    }
    return 0;
}

static void key_remember(uint64_t key, uint64_t stack) {
    if (__atomic_load_n(&key_count, __ATOMIC_RELAXED) >= KEY_LIMIT) {
        return;
    }
    uint32_t i = (uint32_t) (key ^ (key >> 29));
    for (int p = 0; p < KEY_PROBES; p++) {
        key_slot *s = &key_table[(i + p) & (KEY_SLOTS - 1)];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == key) {
            return;
        }
        if (k == 0) {
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&s->key, &expected, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&s->stack, stack, __ATOMIC_RELEASE);
                __atomic_add_fetch(&key_count, 1, __ATOMIC_RELAXED);
                return;
            }
            if (expected == key) {
                return;
            }
        }
    }
}

/* Whether this answer from the table is one to compare with GetStackTrace's. */
static __thread uint32_t answers_since_check;

static inline int check_due(void) {
    if (stack_walk_mode == STACK_WALK_CHECK) {
        return 1;
    }
    return ++answers_since_check % CHECK_EVERY == 0;
}

/* Called with GetStackTrace's answer for a key: remembers it, or finds the table wrong and turns it off. */
static void key_answered(uint64_t key, uint64_t cached, uint64_t stack) {
    if (cached != 0) {
        __atomic_add_fetch(&stacks_checked, 1, __ATOMIC_RELAXED);
        if (cached != stack) {
            __atomic_add_fetch(&stacks_mismatched, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&stack_walk_mode, STACK_WALK_OFF, __ATOMIC_RELEASE);
            walker_usable = WALKER_DISTRUSTED;
        }
        return;
    }
    key_remember(key, stack);
}
