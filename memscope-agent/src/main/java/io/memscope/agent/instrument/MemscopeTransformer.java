package io.memscope.agent.instrument;

import io.memscope.internal.error.Failures;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassTooLargeException;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

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
    private final Set<String> transformed = ConcurrentHashMap.newKeySet();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong tooLarge = new AtomicLong();
    private final ClassLoader platform = ClassLoader.getPlatformClassLoader();
    /** The function profile ({@code functions=...}); application classes only. */
    private final FunctionPatterns functions;
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
        this.functionHooks = new FunctionInstrumenter(functions, tooLarge);
    }

    /** @return methods instrumented as profiled functions */
    public long profiledMethods() {
        return functionHooks.profiledMethods();
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
        return heapHooks || jmxHook || !functions.isEmpty();
    }

    /** @return whether this transformer would change the class (for retransforming loaded classes) */
    public boolean wants(Class<?> c) {
        if (c.isArray() || c.isPrimitive() || !inst.isModifiableClass(c) || c.isHidden()) {
            return false;
        }
        String name = c.getName().replace('.', '/');
        if (io.memscope.agent.boot.BootHooks.jdkClassHooked0(name)) {
            return false; // hooked by an earlier capture: its hooks wake up with this one
        }
        if (nativeMemory && name.equals(UNSAFE) || jmxHook && name.equals(MANAGEMENT_FACTORY)) {
            return true;
        }
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
            if (out != null) {
                transformed.add(className);
            }
            return out;
        } catch (Throwable t) {
            skipped.incrementAndGet();
            Failures.report("agent.transform " + className, t);
            return null;
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
        byte[] out = name.equals(UNSAFE) ? instrumentUnsafe(module, classfileBuffer)
                : instrumentManagementFactory(classfileBuffer);
        if (out != null && c != null) {
            c.put(name, classfileBuffer, out);
        }
        return out;
    }

    private byte[] instrumentUnsafe(Module module, byte[] buffer) {
        ClassReader reader = new ClassReader(buffer);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        boolean[] changed = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
                UnsafeMethodVisitor.Kind kind = UnsafeMethodVisitor.kindOf(name, desc);
                if (kind == null || (access & Opcodes.ACC_STATIC) != 0) {
                    return mv;
                }
                changed[0] = true;
                return new UnsafeMethodVisitor(mv, kind);
            }
        }, 0);
        if (!changed[0]) {
            return null;
        }
        transformed.add(UNSAFE);
        io.memscope.agent.boot.BootHooks.jdkClassHooked(UNSAFE);
        return writer.toByteArray();
    }

    /**
     * {@code getPlatformMBeanServer()}, before each {@code areturn}: {@code dup; invokestatic
     * java/lang/MemscopeHooks.platformServer(Ljava/lang/Object;)V}. Stack-neutral: frames stay valid.
     */
    private byte[] instrumentManagementFactory(byte[] buffer) {
        ClassReader reader = new ClassReader(buffer);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        boolean[] changed = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
                if (!name.equals("getPlatformMBeanServer") || !desc.equals("()Ljavax/management/MBeanServer;")) {
                    return mv;
                }
                changed[0] = true;
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitInsn(int opcode) {
                        if (opcode == Opcodes.ARETURN) {
                            super.visitInsn(Opcodes.DUP);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, UnsafeMethodVisitor.HOOKS, "platformServer",
                                    "(Ljava/lang/Object;)V", false);
                        }
                        super.visitInsn(opcode);
                    }
                };
            }
        }, 0);
        if (!changed[0]) {
            return null;
        }
        transformed.add(MANAGEMENT_FACTORY);
        io.memscope.agent.boot.BootHooks.jdkClassHooked(MANAGEMENT_FACTORY);
        return writer.toByteArray();
    }

    /** @return the instrumented class, or null when nothing was inserted */
    byte[] instrumentAllocations(String className, byte[] buffer) {
        Set<String> excludedMethods = new HashSet<>();
        for (int attempt = 0; attempt < 16; attempt++) {
            ClassReader reader = new ClassReader(buffer);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            AllocationClassVisitor cv = new AllocationClassVisitor(writer, excludedMethods);
            reader.accept(cv, 0);
            if (cv.inserted() == 0) {
                return null;
            }
            try {
                return writer.toByteArray();
            } catch (MethodTooLargeException e) {
                // The hooks pushed a method past 64 KiB: leave that one method uninstrumented and try again.
                tooLarge.incrementAndGet();
                excludedMethods.add(e.getMethodName() + e.getDescriptor());
            } catch (ClassTooLargeException e) {
                tooLarge.incrementAndGet();
                return null;
            }
        }
        return null;
    }

    /** Class visitor that remembers the source file and wraps every method with code. */
    private static final class AllocationClassVisitor extends ClassVisitor {
        private final Set<String> excludedMethods;
        private String owner;
        private String file;
        private boolean isInterface;
        private final java.util.List<AllocationMethodVisitor> methods = new java.util.ArrayList<>();

        AllocationClassVisitor(ClassVisitor cv, Set<String> excludedMethods) {
            super(Opcodes.ASM9, cv);
            this.excludedMethods = excludedMethods;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            owner = name;
            isInterface = (access & Opcodes.ACC_INTERFACE) != 0;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public void visitSource(String source, String debug) {
            file = source;
            super.visitSource(source, debug);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
            MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0 || excludedMethods.contains(name + desc)) {
                return mv;
            }
            AllocationMethodVisitor amv = new AllocationMethodVisitor(mv, owner, name, desc, file);
            methods.add(amv);
            return amv;
        }

        int inserted() {
            int n = 0;
            for (AllocationMethodVisitor m : methods) {
                n += m.inserted;
            }
            return n;
        }
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
