package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenTelemetry span each application thread had current over the recent past, so that the push labels a heap
 * sample with the trace and local root span it was allocated in ({@code trace_id}, {@code span_id},
 * {@code span_name}: {@link PushTable}), without any OpenTelemetry class in the agent.
 *
 * <p>Fed by the agent's hook in OpenTelemetry's default context storage ({@code ThreadLocalContextStorage}: every
 * change of a thread's current context, attach and scope close alike, goes through its {@code ThreadLocal.set},
 * which the agent's transformer precedes with a call to {@code MemscopeHooks.otelContext}). The hook runs on the
 * application's thread before the new context is current, so a thread's history is complete up to now when the
 * recording drain hands a sample over: a sample is labelled at once with the span current on its thread at its time.
 *
 * <p>What a label says, following Grafana Pyroscope's OpenTelemetry integration (its span processor labels samples
 * with the <em>local root</em> span, a span whose parent is absent or remote): {@code span_id} is the local root
 * span's id (16 hex digits), {@code span_name} its name when it was made current, {@code trace_id} the trace's id
 * (32 hex digits). A child span's local root is found through its parent's id, which must have been made current
 * before on some thread (the usual case: a child is started under the current context); when it was not, the sample
 * gets {@code trace_id} alone (counted: {@link #rootUnknown}). Only spans of the OpenTelemetry SDK
 * ({@code io.opentelemetry.sdk.trace.ReadableSpan}) give a name and a parent; another implementation gives
 * {@code trace_id} alone.
 *
 * <p>The span is read through the context's own {@code Span.fromContextOrNull} and {@code SpanContext} methods,
 * found by name in the class loader of the context's class (any relocated prefix included, as an agent's shaded
 * copy of OpenTelemetry has), with public method handles: no OpenTelemetry dependency.
 *
 * <p>Bounds: a thread keeps at most {@value #MAX_EDGES} span changes (12 bytes each, from 8 as it needs; the oldest
 * go first: a sample older than every kept change gets {@link SpanLabel#UNKNOWN}); at most {@value #MAX_THREADS}
 * threads are followed (further threads' samples: unknown); span ids are remembered to find children's roots in a
 * table of {@value #MAX_SPANS} slots by the id's hash (a span takes the slot of an older one), after each thread's
 * {@value History#RECENT} recent spans, which answer most changes without a lookup (a scope's close restores the
 * parent's context, whose span is among them). Histories of threads that ended
 * are dropped once no sample of theirs can still arrive ({@link #prune}).
 */
final class OtelSpans {
    static final int MAX_EDGES = 2048;
    static final int MAX_THREADS = 4096;
    /**
     * Slots of the span-id table. Small on purpose: what a slot holds survives young collections (the table is old),
     * so a large table would have every span's ids copied and promoted (a profile showed the collector's threads
     * doubling their time with 65 536 slots).
     */
    static final int MAX_SPANS = 4096;
    /** How long after a thread changed its span one of its samples may still arrive (drains' delay, generously). */
    static final long LATE_SAMPLE_NANOS = PushTable.LATE_SAMPLE_NANOS;

    /**
     * A label: the trace, the local root span's id and name ({@code spanId} and {@code name} null when not known).
     * {@link #UNKNOWN}: the span at the sample's time is no longer known (a bound dropped it).
     */
    record SpanLabel(String traceId, String spanId, String name) {
        static final SpanLabel UNKNOWN = new SpanLabel(null, null, "(unknown)");
    }

    /** One thread's span changes, in time order; written by the thread, read by the drain: one lock each. */
    static final class History {
        final OtelSpans owner;
        final long threadId;
        final WeakReference<Thread> thread;
        long[] times = new long[8];
        SpanLabel[] labels = new SpanLabel[8];
        int first;
        int count;
        /** A change was overwritten: lookups before the oldest kept one are unknown. */
        boolean lost;
        /** The thread's recent spans (identity), their ids and labels: a ring of {@link #RECENT}. */
        static final int RECENT = 8;
        final Object[] recentSpans = new Object[RECENT];
        final String[] recentIds = new String[RECENT];
        final SpanLabel[] recentLabels = new SpanLabel[RECENT];
        int recentNext;
        /** Context changes on the thread (written by it only). */
        long changes;
        /** The span current after the last change (a change to the same span adds nothing). */
        SpanLabel last;
        long lastNanos;

        History(OtelSpans owner, Thread t) {
            this.owner = owner;
            this.threadId = threadIdOf(t);
            this.thread = new WeakReference<>(t);
        }

        synchronized void add(long nanos, SpanLabel label) {
            if (label == last && count > 0) {
                return;
            }
            if (count == times.length) {
                if (count < MAX_EDGES) {
                    grow();
                } else {
                    first = (first + 1) % times.length;
                    count--;
                    lost = true;
                }
            }
            int i = (first + count) % times.length;
            times[i] = nanos;
            labels[i] = label;
            count++;
            last = label;
            lastNanos = nanos;
        }

        private void grow() {
            long before = OwnBytes.before(); // memscope's memory, not the application's scope's
            try {
                long[] t = new long[times.length * 2];
                SpanLabel[] l = new SpanLabel[t.length];
                for (int k = 0; k < count; k++) {
                    int i = (first + k) % times.length;
                    t[k] = times[i];
                    l[k] = labels[i];
                }
                times = t;
                labels = l;
                first = 0;
            } finally {
                OwnBytes.after(ThreadState.existing(), before);
            }
        }

        /** @return the span current at {@code nanos}: null for none, {@link SpanLabel#UNKNOWN} when not known */
        synchronized SpanLabel at(long nanos) {
            int found = PushScopes.lastAtOrBefore(times, first, count, nanos);
            if (found >= 0) {
                return labels[(first + found) % times.length];
            }
            return lost ? SpanLabel.UNKNOWN : null;
        }

        /** Drops the changes before the last one at or before {@code nanos} (no sample older than it will come). */
        synchronized void forgetBefore(long nanos) {
            while (count > 1 && times[(first + 1) % times.length] <= nanos) {
                first = (first + 1) % times.length;
                count--;
            }
        }
    }

    /** How to read spans from the contexts of one OpenTelemetry copy (one class loader, one package prefix). */
    private static final class Access {
        final Class<?> contextClass;
        final MethodHandle fromContextOrNull; // (Object context) Object span
        final MethodHandle getSpanContext; // (Object span) Object spanContext
        final MethodHandle getSpanId; // (Object spanContext) String
        final MethodHandle getTraceId;
        final MethodHandle isValid; // (Object spanContext) boolean
        final MethodHandle isRemote;
        final Class<?> readableSpan; // null when the SDK is not visible
        final MethodHandle getName; // (Object span) String
        final MethodHandle getParentSpanContext; // (Object span) Object

        /** Contexts of this class give no span: the API is not visible from their loader ({@code why}). */
        Access(Class<?> contextClass, Throwable why) {
            this.contextClass = contextClass;
            fromContextOrNull = null;
            getSpanContext = null;
            getSpanId = null;
            getTraceId = null;
            isValid = null;
            isRemote = null;
            readableSpan = null;
            getName = null;
            getParentSpanContext = null;
        }

        Access(Class<?> contextClass) throws ReflectiveOperationException {
            this.contextClass = contextClass;
            Class<?> context = contextInterface(contextClass);
            if (context == null) {
                throw new ClassNotFoundException("io.opentelemetry.context.Context of " + contextClass.getName());
            }
            String prefix = context.getName().substring(0, context.getName().length() - CONTEXT.length());
            ClassLoader loader = context.getClassLoader();
            Class<?> span = Class.forName(prefix + "io.opentelemetry.api.trace.Span", false, loader);
            Class<?> spanContext = Class.forName(prefix + "io.opentelemetry.api.trace.SpanContext", false, loader);
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            MethodType oo = MethodType.methodType(Object.class, Object.class);
            fromContextOrNull = l.findStatic(span, "fromContextOrNull", MethodType.methodType(span, context))
                    .asType(oo);
            getSpanContext = l.findVirtual(span, "getSpanContext", MethodType.methodType(spanContext)).asType(oo);
            MethodType so = MethodType.methodType(String.class, Object.class);
            getSpanId = l.findVirtual(spanContext, "getSpanId", MethodType.methodType(String.class)).asType(so);
            getTraceId = l.findVirtual(spanContext, "getTraceId", MethodType.methodType(String.class)).asType(so);
            MethodType bo = MethodType.methodType(boolean.class, Object.class);
            isValid = l.findVirtual(spanContext, "isValid", MethodType.methodType(boolean.class)).asType(bo);
            isRemote = l.findVirtual(spanContext, "isRemote", MethodType.methodType(boolean.class)).asType(bo);
            Class<?> readable = null;
            MethodHandle name = null;
            MethodHandle parent = null;
            try {
                readable = Class.forName(prefix + "io.opentelemetry.sdk.trace.ReadableSpan", false, loader);
                name = l.findVirtual(readable, "getName", MethodType.methodType(String.class)).asType(so);
                parent = l.findVirtual(readable, "getParentSpanContext", MethodType.methodType(spanContext))
                        .asType(oo);
            } catch (ReflectiveOperationException | LinkageError e) {
                readable = null; // the API without the SDK (or the SDK in another loader): trace ids only
            }
            readableSpan = readable;
            getName = name;
            getParentSpanContext = parent;
        }
    }

    private static final String CONTEXT = "io.opentelemetry.context.Context";

    private final Map<Long, History> threads = new ConcurrentHashMap<>();
    /** Span id (any span made current) to the label of its local root. */
    private final Known[] spans = new Known[MAX_SPANS];
    private final Map<Class<?>, Access> access = new ConcurrentHashMap<>();
    private volatile Access lastAccess;
    private final AtomicLong rootUnknown = new AtomicLong();
    private final AtomicLong threadsRefused = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong noApi = new AtomicLong();
    private volatile boolean stopped;
    /** A context changed on some thread (before, no sample can have a span; set once, by the first). */
    private volatile boolean anyChange;
    /** Changes counted by the histories of threads that ended and were dropped. */
    private long endedChanges;

    /** A span id seen, and its label (its local root's): one slot of {@link #spans}, immutable. */
    private record Known(String spanId, SpanLabel label) {
    }

    /**
     * The application's thread, whose state is {@code ts}: its current context becomes {@code context} (null:
     * none). Never throws.
     */
    void contextChanged(ThreadState ts, Object context) {
        if (stopped) {
            return;
        }
        long nanos = System.nanoTime();
        try {
            History h = ts.otelSpans;
            if (h == null || h.owner != this) {
                h = history(ts.thread);
                if (h == null) {
                    return;
                }
                ts.otelSpans = h;
            }
            h.add(nanos, context == null ? null : labelOf(h, context));
            h.changes++;
        } catch (Throwable t) {
            if (errors.getAndIncrement() == 0) {
                Failures.report("agent.otel", t);
            }
        }
    }

    /** Thread {@code t}'s span is {@code label} from {@code nanos} on (its own thread; tests). */
    void changed(Thread t, long nanos, SpanLabel label) {
        History h = history(t);
        if (h != null) {
            h.add(nanos, label);
            h.changes++;
        }
    }

    private History history(Thread t) {
        long id = threadIdOf(t);
        History h = threads.get(id);
        if (h != null && h.thread.get() == t) {
            return h;
        }
        if (threads.size() >= MAX_THREADS) {
            threadsRefused.incrementAndGet();
            return null;
        }
        long before = OwnBytes.before();
        try {
            h = new History(this, t);
            threads.put(id, h);
            anyChange = true;
            return h;
        } finally {
            OwnBytes.after(ThreadState.existing(), before);
        }
    }

    private SpanLabel labelOf(History h, Object context) throws Throwable {
        Access a = lastAccess;
        Class<?> c = context.getClass();
        if (a == null || a.contextClass != c) {
            a = access.get(c);
            if (a == null) {
                long before = OwnBytes.before();
                try {
                    a = new Access(c);
                } catch (ReflectiveOperationException | LinkageError e) {
                    a = new Access(c, e); // no API visible from the context's loader: no labels, counted
                } finally {
                    OwnBytes.after(ThreadState.existing(), before);
                }
                if (access.size() < 64) {
                    access.put(c, a);
                }
            }
            lastAccess = a;
        }
        if (a.fromContextOrNull == null) {
            noApi.incrementAndGet();
            return null;
        }
        Object span = a.fromContextOrNull.invokeExact(context);
        if (span == null) {
            return null;
        }
        // contexts nest: the thread's recent spans answer most changes (a scope's close restores its parent's)
        for (int i = 0; i < History.RECENT; i++) {
            if (h.recentSpans[i] == span) {
                return h.recentLabels[i];
            }
        }
        Object sc = a.getSpanContext.invokeExact(span);
        if (sc == null || !(boolean) a.isValid.invokeExact(sc)) {
            return null;
        }
        String spanId = (String) a.getSpanId.invokeExact(sc);
        SpanLabel label = label(h, a, span, sc, spanId);
        int i = h.recentNext;
        h.recentSpans[i] = span;
        h.recentIds[i] = spanId;
        h.recentLabels[i] = label;
        h.recentNext = (i + 1) % History.RECENT;
        return label;
    }

    /** The label of a span not among the thread's recent ones: its own (a local root) or its root's. */
    private SpanLabel label(History h, Access a, Object span, Object sc, String spanId) throws Throwable {
        Known known = spans[slot(spanId)];
        if (known != null && known.spanId.equals(spanId)) {
            return known.label;
        }
        long before = OwnBytes.before();
        try {
            String traceId = (String) a.getTraceId.invokeExact(sc);
            SpanLabel label;
            if (a.readableSpan == null || !a.readableSpan.isInstance(span)) {
                label = new SpanLabel(traceId, null, null);
            } else {
                Object parent = a.getParentSpanContext.invokeExact(span);
                if (parent == null || !(boolean) a.isValid.invokeExact(parent)
                        || (boolean) a.isRemote.invokeExact(parent)) {
                    label = new SpanLabel(traceId, spanId, (String) a.getName.invokeExact(span));
                } else {
                    String parentId = (String) a.getSpanId.invokeExact(parent);
                    SpanLabel root = null;
                    for (int i = 0; i < History.RECENT && root == null; i++) {
                        if (parentId.equals(h.recentIds[i])) {
                            root = h.recentLabels[i];
                        }
                    }
                    if (root == null) {
                        Known p = spans[slot(parentId)];
                        root = p != null && p.spanId.equals(parentId) ? p.label : null;
                    }
                    if (root == null) {
                        rootUnknown.incrementAndGet();
                        label = new SpanLabel(traceId, null, null);
                    } else {
                        label = root;
                    }
                }
            }
            spans[slot(spanId)] = new Known(spanId, label); // may take another's place
            return label;
        } finally {
            OwnBytes.after(ThreadState.existing(), before);
        }
    }

    /** The drain: @return the span current on the thread at {@code nanos} (null: none) */
    SpanLabel at(long threadId, long nanos) {
        History h = threads.get(threadId);
        if (h == null) {
            return threadsRefused.get() > 0 ? SpanLabel.UNKNOWN : null;
        }
        return h.at(nanos);
    }

    /**
     * The push thread, once an interval: drops what no sample can still ask (changes older than the late-sample
     * margin, kept the one in force then; threads that ended).
     */
    void prune() {
        long horizon = System.nanoTime() - LATE_SAMPLE_NANOS;
        for (Iterator<History> i = threads.values().iterator(); i.hasNext(); ) {
            History h = i.next();
            Thread t = h.thread.get();
            if ((t == null || !t.isAlive()) && h.lastNanos - horizon < 0) {
                endedChanges += h.changes;
                i.remove();
            } else {
                h.forgetBefore(horizon);
            }
        }
    }

    /** No more changes are followed (the push stopped). */
    void stop() {
        stopped = true;
    }

    /** @return whether no context change was seen yet (no sample can have a span) */
    boolean none() {
        return !anyChange;
    }

    void metadata(Map<String, String> into) {
        long changes = 0;
        for (History h : threads.values()) {
            changes += h.changes; // a racy read of each thread's own count: a figure for the metadata
        }
        into.put("push.otel.contextChanges", Long.toString(changes + endedChanges));
        into.put("push.otel.rootUnknown", Long.toString(rootUnknown.get()));
        into.put("push.otel.threadsRefused", Long.toString(threadsRefused.get()));
        into.put("push.otel.errors", Long.toString(errors.get()));
        into.put("push.otel.noApi", Long.toString(noApi.get()));
    }

    private static Class<?> contextInterface(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Class<?> i : k.getInterfaces()) {
                if (i.getName().endsWith(CONTEXT)) {
                    return i;
                }
                Class<?> deeper = contextInterface(i);
                if (deeper != null) {
                    return deeper;
                }
            }
        }
        return null;
    }

    /** @return the slot of a span id in {@link #spans} */
    private static int slot(String spanId) {
        int h = spanId.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (MAX_SPANS - 1);
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
    private static long threadIdOf(Thread t) {
        return t.getId();
    }
}
