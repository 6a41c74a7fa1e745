package io.memscope.agent.boot;

import io.memscope.agent.capture.Hooks;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Defines {@code java.lang.MemscopeHooks} (from {@link MemscopeHooksTemplate}) inside {@code java.base}, the class
 * that instrumented code calls.
 *
 * <p>Why: instrumented classes of every class loader (including strictly isolated ones, which still delegate
 * {@code java.*} to the bootstrap loader) and instrumented JDK classes must all see one hook class. Appending the
 * agent jar to the bootstrap class path would do it, but makes the JVM print "Sharing is only supported for boot
 * loader classes because bootstrap classpath has been appended" and turns class data sharing off for application
 * classes (slower start-up). Instead: {@link Instrumentation#redefineModule} opens {@code java.lang} to the agent's
 * module, {@link MethodHandles#privateLookupIn} gives a lookup in {@code java.lang}, and
 * {@link MethodHandles.Lookup#defineClass} defines the renamed template there (bootstrap loader, {@code java.base}).
 * Its static initializer, run here before anything is instrumented, binds its methods to
 * {@link io.memscope.agent.capture.Hooks}.
 */
public final class BootHooks {
    /** Binary name of the hook class instrumented JDK classes call (and that declares the sampler's natives). */
    public static final String NAME = "java.lang.MemscopeHooks";
    /** Internal name of {@link #NAME}. */
    public static final String INTERNAL_NAME = "java/lang/MemscopeHooks";
    /** Binary name of the class the bytecode heap hooks call. */
    public static final String HEAP_NAME = "java.lang.MemscopeHeapHooks";
    /** Internal name of {@link #HEAP_NAME}. */
    public static final String HEAP_INTERNAL_NAME = "java/lang/MemscopeHeapHooks";
    private static final String TEMPLATE = "io/memscope/agent/boot/MemscopeHooksTemplate";
    private static final String HEAP_TEMPLATE = "io/memscope/agent/boot/MemscopeHeapHooksTemplate";

    /**
     * JDK classes instrumented with the agent's hooks in this JVM ({@code jdk/internal/misc/Unsafe},
     * {@code java/lang/management/ManagementFactory}): they keep their hooks, dormant between captures (each hook
     * returns at once without one), until the JVM exits. Retransforming them at every attach and detach would leave
     * a copy of their metadata behind each time (the JVM keeps previous versions of methods that may still run), and
     * costs a class redefinition of {@code Unsafe} at each start.
     */
    private static final java.util.Set<String> JDK_HOOKED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private BootHooks() {
    }

    /** A JDK class now carries the agent's hooks (internal name). */
    public static void jdkClassHooked(String internalName) {
        JDK_HOOKED.add(internalName);
    }

    /** @return whether a JDK class carries the agent's hooks already (internal name) */
    public static boolean jdkClassHooked0(String internalName) {
        return JDK_HOOKED.contains(internalName);
    }

    /**
     * Defines and initializes the hook class unless it exists already (an earlier attach).
     *
     * @param inst the agent's instrumentation, or null when {@code java.lang} is already open to this module
     *             (tests run with {@code --add-opens java.base/java.lang=ALL-UNNAMED})
     * @throws Exception when the class cannot be defined; the agent must then not instrument anything
     */
    public static synchronized void install(Instrumentation inst) throws Exception {
        define(inst, NAME, TEMPLATE, INTERNAL_NAME, PREBUILT);
    }

    /**
     * Defines and initializes {@link #HEAP_NAME}, the class the bytecode heap hooks call, unless it exists already;
     * before anything is instrumented with them. Same rules as {@link #install}.
     */
    public static synchronized void installHeapHooks(Instrumentation inst) throws Exception {
        define(inst, HEAP_NAME, HEAP_TEMPLATE, HEAP_INTERNAL_NAME, HEAP_PREBUILT);
    }

    private static void define(Instrumentation inst, String name, String template, String internalName,
                               String prebuilt) throws Exception {
        try {
            Class.forName(name, true, null);
            return;
        } catch (ClassNotFoundException notYet) {
            // define it below
        }
        Module base = Object.class.getModule();
        Module self = BootHooks.class.getModule();
        if (inst != null && !base.isOpen("java.lang", self)) {
            inst.redefineModule(base, Set.of(), Map.of(), Map.of("java.lang", Set.of(self)), Set.of(), Map.of());
        }
        byte[] bytes = prebuilt(prebuilt);
        if (bytes == null) {
            bytes = renamed(template(template), template, internalName); // a build without the prebuilt classes
        }
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Object.class, MethodHandles.lookup());
        Properties p = System.getProperties();
        p.put(MemscopeHooksTemplate.HANDOFF, Hooks.class);
        try {
            Class<?> c = lookup.defineClass(bytes);
            lookup.ensureInitialized(c);
        } finally {
            p.remove(MemscopeHooksTemplate.HANDOFF);
        }
    }

    /** Resources holding the renamed classes, written at build time by {@link #main} (no ASM at agent start-up). */
    static final String PREBUILT = "MemscopeHooks.bytes";
    static final String HEAP_PREBUILT = "MemscopeHeapHooks.bytes";

    /** @return the renamed class as the build wrote it, or null */
    private static byte[] prebuilt(String resource) throws java.io.IOException {
        return AgentJar.read("io/memscope/agent/boot/" + resource);
    }

    /**
     * Build step (memscope-agent/pom.xml, process-classes): writes the renamed templates next to this class as
     * {@value #PREBUILT} and {@value #HEAP_PREBUILT}, so that the agent does not load ASM to rename them at start,
     * and makes {@link SamplerNatives} call {@code java.lang.MemscopeHooks} instead of the template.
     *
     * @param args the directory of this package's class files
     */
    public static void main(String[] args) throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of(args[0]);
        java.nio.file.Files.write(dir.resolve(PREBUILT), renamed(java.nio.file.Files.readAllBytes(
                dir.resolve("MemscopeHooksTemplate.class")), TEMPLATE, INTERNAL_NAME));
        java.nio.file.Files.write(dir.resolve(HEAP_PREBUILT), renamed(java.nio.file.Files.readAllBytes(
                dir.resolve("MemscopeHeapHooksTemplate.class")), HEAP_TEMPLATE, HEAP_INTERNAL_NAME));
        // SamplerNatives calls the hook class's natives directly (again: an incremental build may keep it rewritten)
        java.nio.file.Path natives = dir.resolve("SamplerNatives.class");
        byte[] callers = java.nio.file.Files.readAllBytes(natives);
        byte[] rewritten = callsRenamed(callers, TEMPLATE, INTERNAL_NAME);
        if (new String(rewritten, java.nio.charset.StandardCharsets.ISO_8859_1).contains(TEMPLATE)
                || !new String(rewritten, java.nio.charset.StandardCharsets.ISO_8859_1).contains(INTERNAL_NAME)) {
            throw new IllegalStateException(natives + " does not call " + INTERNAL_NAME + " after rewriting");
        }
        java.nio.file.Files.write(natives, rewritten);
    }

    /** @return the class with every method call to {@code from} made a call to {@code to} (same name and type) */
    static byte[] callsRenamed(byte[] callers, String from, String to) {
        ClassReader reader = new ClassReader(callers);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String methodName, String desc,
                                                boolean isInterface) {
                        super.visitMethodInsn(opcode, rename(owner, from, to), methodName, desc, isInterface);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    private static byte[] template(String template) throws Exception {
        try (InputStream in = BootHooks.class.getResourceAsStream("/" + template + ".class")) {
            if (in == null) {
                throw new IllegalStateException(template + ".class missing from the agent jar");
            }
            return in.readAllBytes();
        }
    }

    /** @return the template with every reference to its own name {@code from} replaced by {@code to} */
    static byte[] renamed(byte[] template, String from, String to) {
        ClassReader reader = new ClassReader(template);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                super.visit(version, access, rename(name, from, to), signature, superName, interfaces);
            }

            @Override
            public void visitSource(String source, String debug) {
                super.visitSource(to.substring(to.lastIndexOf('/') + 1) + ".java", debug);
            }

            @Override
            public void visitInnerClass(String name, String outerName, String innerName, int access) {
                // java.lang.invoke.MethodHandles$Lookup: a JDK nested class, kept as is
                super.visitInnerClass(name, outerName, innerName, access);
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature,
                                           Object value) {
                return super.visitField(access, name, descriptor, signature, value);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitFieldInsn(int opcode, String owner, String fieldName, String desc) {
                        super.visitFieldInsn(opcode, rename(owner, from, to), fieldName, desc);
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String methodName, String desc,
                                                boolean isInterface) {
                        super.visitMethodInsn(opcode, rename(owner, from, to), methodName, desc, isInterface);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    private static String rename(String internalName, String from, String to) {
        return from.equals(internalName) ? to : internalName;
    }
}
