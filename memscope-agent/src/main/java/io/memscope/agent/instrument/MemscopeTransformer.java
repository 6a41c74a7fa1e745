package io.memscope.agent.instrument;

import io.memscope.internal.error.Failures;
import io.memscope.launch.FunctionPatterns;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's class file transformer: allocation sites in accepted classes ({@link ClassFilter}), and the memory
 * methods of {@code jdk.internal.misc.Unsafe} when native tracking is on.
 *
 * <p>Never fails a class load: any problem (a class file newer than ASM knows, a method that would exceed 64 KiB)
 * is counted and the class (or that one method) is left as it was. The inserted calls go to
 * {@code java.lang.MemscopeHooks} (see {@code BootHooks}), which every class of every loader and module can see.
 */
public final class MemscopeTransformer implements ClassFileTransformer {
    private static final String UNSAFE = "jdk/internal/misc/Unsafe";
    /** Its {@code getPlatformMBeanServer()} announces the platform MBean server to the agent (see jmxHook). */
    public static final String MANAGEMENT_FACTORY = "java/lang/management/ManagementFactory";

    private final Instrumentation inst;
    private final ClassFilter filter;
    /** Application classes, with no include/exclude: what the function profile may instrument. */
    private static final ClassFilter APPLICATION_CLASSES = new ClassFilter(List.of(), List.of(), false);
    private final boolean nativeMemory;
    /** false when the JVM samples the heap (JVMTI sampler): then only Unsafe is instrumented. */
    private final boolean heapHooks;
    /** Hook {@link #MANAGEMENT_FACTORY} (the agent's MXBean is registered when the platform server exists). */
    private final boolean jmxHook;
    /** Hook OpenTelemetry's context storage ({@link #isOtelContextStorage}): the push labels samples with spans. */
    private volatile boolean otelHook;
    private final Set<String> transformed = ConcurrentHashMap.newKeySet();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong tooLarge = new AtomicLong();
    private final ClassLoader platform = ClassLoader.getPlatformClassLoader();
    /** The function profile ({@code functions=...}); application classes only. */
    private final FunctionPatterns functions;
    /** Made only with a function profile: its class (and ASM's, which its verification loads) stay unloaded. */
    private final FunctionInstrumenter functionHooks;

    /**
     * @param heapHooks insert the allocation hooks (bytecode sampler, exact mode); false when the JVM's own sampler
     *                  (JVMTI) takes the heap samples, and only {@code Unsafe} is instrumented (native memory)
     */
    public MemscopeTransformer(Instrumentation inst, List<String> include, List<String> exclude, boolean includeJdk,
                               boolean nativeMemory, boolean heapHooks, boolean jmxHook) {
        this(inst, include, exclude, includeJdk, nativeMemory, heapHooks, jmxHook, FunctionPatterns.NONE);
    }

    /**
     * @param functions the function profile's patterns: their methods get entry and exit hooks, and calls to them
     *                  from any application class a call-site hook ({@link FunctionInstrumenter})
     */
    public MemscopeTransformer(Instrumentation inst, List<String> include, List<String> exclude, boolean includeJdk,
                               boolean nativeMemory, boolean heapHooks, boolean jmxHook, FunctionPatterns functions) {
        this.inst = inst;
        this.filter = new ClassFilter(include, exclude, includeJdk);
        this.nativeMemory = nativeMemory;
        this.heapHooks = heapHooks;
        this.functions = functions;
        this.jmxHook = jmxHook;
        this.functionHooks = functions.isEmpty() ? null : new FunctionInstrumenter(functions, tooLarge);
    }

    /**
     * Hooks OpenTelemetry's default context storage from now on (classes loaded later; {@link #wants} the loaded
     * ones), so that the push knows each thread's span. Before {@code addTransformer}.
     */
    public void hookOpenTelemetryContext() {
        otelHook = true;
    }

    /**
     * @return whether the class is OpenTelemetry's {@code ThreadLocalContextStorage} or its scope, under any package
     *         prefix (a relocated copy, as an agent's)
     */
    static boolean isOtelContextStorage(String internalName) {
        return internalName.endsWith(OTEL_STORAGE) || internalName.endsWith(OTEL_STORAGE + "$ScopeImpl");
    }

    private static final String OTEL_STORAGE = "io/opentelemetry/context/ThreadLocalContextStorage";

    /** @return methods instrumented as profiled functions */
    public long profiledMethods() {
        return functionHooks == null ? 0 : functionHooks.profiledMethods();
    }

    /** @return whether the function profile looks at this class: application classes, not memscope's */
    private boolean functionClass(String internalName, boolean jdkLoader) {
        return !functions.isEmpty() && !jdkLoader && !ClassFilter.isJdkName(internalName)
                && APPLICATION_CLASSES.accepts(internalName, false);
    }


    private TransformCache cache;
    private boolean cacheOpened;

    /** @return the cache of instrumented JDK classes, or null (opened on first use) */
    private synchronized TransformCache cache() {
        if (!cacheOpened) {
            cacheOpened = true;
            try {
                java.security.CodeSource cs = MemscopeTransformer.class.getProtectionDomain().getCodeSource();
                cache = cs == null ? null : TransformCache.open(new java.io.File(cs.getLocation().toURI()));
            } catch (Throwable t) {
                cache = null;
            }
        }
        return cache;
    }

    /** @return whether the transformer changes classes loaded later (not only classes loaded now) */
    public boolean transformsNewClasses() {
        return heapHooks || jmxHook || otelHook || !functions.isEmpty();
    }

    /**
     * @return whether only {@code Unsafe} and {@code ManagementFactory} can be among the loaded classes this
     *         transformer changes (no bytecode heap hooks, no function profile)
     */
    public boolean jdkClassesOnly() {
        return !heapHooks && !otelHook && functions.isEmpty();
    }

    /** @return whether this transformer would change the class (for retransforming loaded classes) */
    public boolean wants(Class<?> c) {
        if (c.isArray() || c.isPrimitive() || !inst.isModifiableClass(c) || c.isHidden()) {
            return false;
        }
        // Called for every loaded class at start: the internal name (a copy of the name) only when needed.
        String binary = c.getName();
        if (binary.equals("jdk.internal.misc.Unsafe") || binary.equals("java.lang.management.ManagementFactory")) {
            String jdkName = binary.replace('.', '/');
            if (io.memscope.agent.boot.BootHooks.jdkClassHooked0(jdkName)) {
                return false; // hooked by an earlier capture: its hooks wake up with this one
            }
            if (nativeMemory && jdkName.equals(UNSAFE) || jmxHook && jdkName.equals(MANAGEMENT_FACTORY)) {
                return true;
            }
        }
        if (otelHook && (binary.endsWith("ContextStorage") || binary.endsWith("ContextStorage$ScopeImpl"))
                && isOtelContextStorage(binary.replace('.', '/'))) {
            return true;
        }
        if (!heapHooks && functions.isEmpty()) {
            return false;
        }
        String name = binary.replace('.', '/');
        ClassLoader l = c.getClassLoader();
        boolean jdk = l == null || l == platform;
        if (functionClass(name, jdk)) {
            return true;
        }
        if (!heapHooks) {
            return false;
        }
        return filter.accepts(name, jdk);
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain pd, byte[] classfileBuffer) {
        if (className == null) {
            return null;
        }
        long own = io.memscope.agent.capture.Hooks.ownWorkBegins();
        try {
            if (className.equals(UNSAFE)) {
                return nativeMemory ? instrumentJdkClass(UNSAFE, module, classfileBuffer) : null;
            }
            if (className.equals(MANAGEMENT_FACTORY)) {
                return jmxHook ? instrumentJdkClass(MANAGEMENT_FACTORY, module, classfileBuffer) : null;
            }
            boolean jdk = loader == null || loader == platform;
            byte[] out = heapHooks && filter.accepts(className, jdk)
                    ? instrumentAllocations(className, classfileBuffer) : null;
            if (functionClass(className, jdk)) {
                byte[] f = functionHooks.apply(className, out != null ? out : classfileBuffer);
                if (f != null) {
                    out = f;
                }
            }
            if (otelHook && isOtelContextStorage(className)) {
                byte[] o = ClassRewriter.otelContextStorage(out != null ? out : classfileBuffer);
                if (o != null) {
                    out = o;
                }
            }
            if (out != null) {
                transformed.add(className);
            }
            return out;
        } catch (Throwable t) {
            skipped.incrementAndGet();
            Failures.report("agent.transform " + className, t);
            return null;
        } finally {
            io.memscope.agent.capture.Hooks.ownWorkEnds(own);
        }
    }

    /**
     * {@code Unsafe} or {@code ManagementFactory}, from the cache of instrumented JDK classes when this agent build
     * instrumented the same class file before (no ASM loaded at start-up), else with ASM (and then cached).
     */
    private byte[] instrumentJdkClass(String name, Module module, byte[] classfileBuffer) {
        TransformCache c = cache();
        byte[] cached = c == null ? null : c.get(name, classfileBuffer);
        if (cached != null) {
            transformed.add(name);
            io.memscope.agent.boot.BootHooks.jdkClassHooked(name);
            return cached;
        }
        byte[] out = name.equals(UNSAFE) ? ClassRewriter.unsafe(classfileBuffer)
                : ClassRewriter.managementFactory(classfileBuffer);
        if (out != null) {
            transformed.add(name);
            io.memscope.agent.boot.BootHooks.jdkClassHooked(name);
            if (c != null) {
                c.put(name, classfileBuffer, out);
            }
        }
        return out;
    }

    /** @return the instrumented class, or null when nothing was inserted */
    byte[] instrumentAllocations(String className, byte[] buffer) {
        return ClassRewriter.allocations(buffer, tooLarge);
    }

    /** @return internal names of the classes this transformer changed */
    public Set<String> transformedClasses() {
        return Set.copyOf(transformed);
    }

    /** @return classes left unchanged because of an error */
    public long skipped() {
        return skipped.get();
    }

    /** @return methods left uninstrumented because they would have grown past the JVM's size limits */
    public long tooLarge() {
        return tooLarge.get();
    }
}
