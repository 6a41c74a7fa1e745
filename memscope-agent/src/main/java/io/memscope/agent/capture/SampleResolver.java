package io.memscope.agent.capture;

import io.memscope.internal.store.StringTable;

/**
 * What the JVM sampler's records refer to, resolved once each on the drain thread: stacks by the hash of their raw
 * frames (resolved when a record brings the frames, into the capture's {@link StackTable}), classes by the library's class
 * id (their JVM signatures as type names), threads by their Java id (their names, from the Thread a record announces),
 * and the stacks' methods by jmethodID.
 * Single-threaded (the drain thread).
 *
 * <p>Memory, bounded: stacks by raw hash, the first {@value #PINNED_STACKS} for the capture (the sampler library
 * sends a stack's frames once for at most 32,768 hashes and later only the hash, so those must stay resolvable),
 * the later ones (whose records always bring their frames) in a {@link LongCache} of {@code maxStacks}, the
 * evicted counted in {@link #stacksEvicted}; methods by jmethodID in a {@link LongCache} of {@code maxStacks} too
 * (an evicted method is described again through JVMTI when met again), counted in {@link #methodsEvicted}; threads
 * by id, those found dead at two sweeps in a row forgotten (a dead thread allocates no more), counted in
 * {@link #threadsForgotten}; one type name per class the library numbered (bounded by its class table).
 */
final class SampleResolver {
    /** A thread that allocated, as the drain thread knows it. */
    static final class ThreadInfo {
        final int nameId;
        /** The JVM's notification thread (builds the GC notifications memscope's GC listener asked for). */
        final boolean notifications;
        /** A JMX connector's RMI thread (connections, accept, scheduler, reaper, connection timeout). */
        final boolean jmxConnector;
        /** The thread, to tell when it is gone (null: not known, never forgotten). */
        private final java.lang.ref.WeakReference<Thread> thread;
        /** Found dead at the last sweep. */
        private boolean deadAtSweep;

        /** @return whether the thread was found dead at two sweeps in a row (this one marks it when first dead) */
        boolean gone() {
            if (thread == null) {
                return false;
            }
            Thread t = thread.get();
            boolean dead = t == null || t.getState() == Thread.State.TERMINATED;
            boolean gone = dead && deadAtSweep;
            deadAtSweep = dead;
            return gone;
        }

        ThreadInfo(int nameId, boolean notifications, boolean jmxConnector) {
            this(nameId, notifications, jmxConnector, null);
        }

        ThreadInfo(int nameId, boolean notifications, boolean jmxConnector, Thread thread) {
            this.thread = thread == null ? null : new java.lang.ref.WeakReference<>(thread);
            this.nameId = nameId;
            this.notifications = notifications;
            this.jmxConnector = jmxConnector;
        }
    }

    private final int depth;
    private final boolean includeJdk;
    private final StringTable strings;
    /** The capture's stack table: resolved stacks' ids and frame text go there. */
    private final StackTable stackTable;
    /** Hashes the sampler library may send without frames are among the first this many (see the class comment). */
    static final int PINNED_STACKS = 32_768 + 4_096;
    private final LongMap<StackTable.JvmStack> stacks = new LongMap<>(1024);
    /** Stacks past {@link #PINNED_STACKS}: their records bring their frames, so this table may be emptied. */
    private final LongCache<StackTable.JvmStack> laterStacks;
    private long threadsForgotten;
    /** Threads known when the dead ones are looked for next. */
    private int threadSweepAt = 4096;
    private final LongMap<ThreadInfo> threads = new LongMap<>(64);
    /** The stacks' methods by jmethodID. */
    private final LongCache<SampledMethod> methods;
    private final StackTable.JvmStack noFrames = StackTable.noFrames();
    private String[] typeNames = new String[256];
    private int[] typeNameIds = new int[256];

    SampleResolver(StackTable stackTable, int depth, boolean includeJdk, StringTable strings) {
        this.stackTable = stackTable;
        int maxStacks = stackTable.bounded().limit();
        this.laterStacks = new LongCache<>(maxStacks);
        this.methods = new LongCache<>(maxStacks);
        this.depth = depth;
        this.includeJdk = includeJdk;
        this.strings = strings;
    }

    /**
     * @param frames (jmethodID, bytecode index) pairs of the drained batch
     * @return the stack of a record: resolved now when its frames came with it, else the one seen before; null when
     *         neither (it cannot be resolved)
     */
    StackTable.JvmStack stack(long hash, long[] frames, int frameCount, int frameOffset) {
        if (hash == 0) {
            return noFrames;
        }
        StackTable.JvmStack js = stacks.get(hash);
        if (js == null) {
            js = laterStacks.get(hash);
        }
        if (js != null && frameCount > 0 && js.id != 0 && !stackTable.bounded().contains(js.id)) {
            // frames again for a stack whose text was dropped (sent again for a new chunk): its text again
            resolve(frames, frameOffset, frameCount);
        }
        if (js == null && frameCount > 0) {
            js = resolve(frames, frameOffset, frameCount);
            if (stacks.size() < PINNED_STACKS) {
                stacks.put(hash, js);
            } else {
                laterStacks.put(hash, js);
            }
        }
        return js;
    }

    private StackTable.JvmStack resolve(long[] frames, int frameOffset, int frameCount) {
        // room for every method of this stack: the table never holds more than its bound, even for a moment
        methods.makeRoom(frameCount);
        return stackTable.resolveRaw(frames, frameOffset, frameCount, depth, includeJdk, methods);
    }

    /** @return the thread of this id as known, or null */
    ThreadInfo thread(long tid) {
        return threads.get(tid);
    }

    /** A record announces its thread (the Thread object, or null when gone): @return what is known of it */
    ThreadInfo announce(long tid, Object o) {
        ThreadInfo known = threads.get(tid);
        if (known != null || !(o instanceof Thread)) {
            return known;
        }
        Thread t = (Thread) o;
        String name = t.getName();
        boolean notifications = "Notification Thread".equals(name);
        if (notifications) {
            try {
                notifications = t.isDaemon();
            } catch (RuntimeException halfConstructed) {
                // sampled inside the JVM's own construction of that Thread object (its fields not all set)
            }
        }
        boolean connector = name.startsWith("RMI ") || name.startsWith("JMX server connection timeout");
        ThreadInfo info = new ThreadInfo(strings.internName(name), notifications, connector, t);
        if (threads.size() >= threadSweepAt) {
            threadsForgotten += threads.removeIf(ThreadInfo::gone);
            threadSweepAt = Math.max(4096, 2 * threads.size());
        }
        threads.put(tid, info);
        return info;
    }

    /** @return raw stacks resolved now held (both tables) */
    int stacks() {
        return stacks.size() + laterStacks.size();
    }

    /** @return methods resolved now held */
    int methods() {
        return methods.size();
    }

    /** @return threads known now */
    int threads() {
        return threads.size();
    }

    /** @return resolved stacks dropped from the later table (resolved again from their frames when met again) */
    long stacksEvicted() {
        return laterStacks.evicted();
    }

    /** @return resolved methods dropped (described again when met again) */
    long methodsEvicted() {
        return methods.evicted();
    }

    /** @return dead threads forgotten */
    long threadsForgotten() {
        return threadsForgotten;
    }

    /** @return whether the type name of a class id is known already */
    boolean knows(int classId) {
        return classId < typeNames.length && typeNames[classId] != null;
    }

    /**
     * @param signature the class's JVM signature when {@link #knows} was false, else ignored
     * @return the type name of a class id ("java.lang.String", "int[]"), interned; "unknown" for id 0 or no signature
     */
    String typeName(int classId, String signature) {
        if (classId >= typeNames.length) {
            int n = Integer.highestOneBit(classId) << 1;
            typeNames = java.util.Arrays.copyOf(typeNames, n);
            typeNameIds = java.util.Arrays.copyOf(typeNameIds, n);
        }
        String name = typeNames[classId];
        if (name == null) {
            name = signature == null ? "unknown" : typeNameOf(signature);
            typeNames[classId] = name;
            typeNameIds[classId] = strings.internName(name);
        }
        return name;
    }

    /**
     * @param signature the class's JVM signature when {@link #knows} was false, else ignored
     * @return whether the class id is {@code java.lang.Class}'s (its name resolved and kept, as {@link #typeName})
     */
    boolean isClassMirror(int classId, String signature) {
        return "java.lang.Class".equals(typeName(classId, signature));
    }

    /** @return the string id of a class id's type name (after {@link #typeName}) */
    int typeNameId(int classId) {
        return typeNameIds[classId];
    }

    /**
     * @return the type name ({@link Class#getTypeName()} form) of a JVM type signature: {@code Ljava/lang/String;}
     *         is {@code java.lang.String}, {@code [[I} is {@code int[][]}
     */
    static String typeNameOf(String signature) {
        int dims = 0;
        while (dims < signature.length() && signature.charAt(dims) == '[') {
            dims++;
        }
        String element;
        char c = dims < signature.length() ? signature.charAt(dims) : '?';
        switch (c) {
            case 'Z': element = "boolean"; break;
            case 'B': element = "byte"; break;
            case 'C': element = "char"; break;
            case 'S': element = "short"; break;
            case 'I': element = "int"; break;
            case 'J': element = "long"; break;
            case 'F': element = "float"; break;
            case 'D': element = "double"; break;
            case 'L':
                int end = signature.endsWith(";") ? signature.length() - 1 : signature.length();
                element = signature.substring(dims + 1, end).replace('/', '.');
                break;
            default:
                element = signature.substring(dims);
        }
        if (dims == 0) {
            return element;
        }
        StringBuilder b = new StringBuilder(element.length() + 2 * dims).append(element);
        for (int i = 0; i < dims; i++) {
            b.append("[]");
        }
        return b.toString();
    }
}
