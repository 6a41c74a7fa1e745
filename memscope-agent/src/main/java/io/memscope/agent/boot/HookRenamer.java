package io.memscope.agent.boot;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Renames the hook class templates to their names in {@code java.lang} with ASM: at build time ({@link #main}, whose
 * output the agent loads as is), and at start-up only for a build without that output. A class of its own, so that
 * loading {@link BootHooks} at every start does not load ASM's classes (the verifier would, for these methods).
 */
public final class HookRenamer {
    private HookRenamer() {
    }

    /**
     * Build step (memscope-agent/pom.xml, process-classes): writes the renamed templates next to this class as
     * {@code MemscopeHooks.bytes} and its siblings' ({@link BootHooks}), so that the agent does not load ASM to rename them at start,
     * and makes {@link SamplerNatives} call {@code java.lang.MemscopeHooks} instead of the template.
     *
     * @param args the directory of this package's class files
     */
    public static void main(String[] args) throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of(args[0]);
        String[][] outputs = {{BootHooks.TEMPLATE, BootHooks.PREBUILT},
            {BootHooks.API_TEMPLATE, BootHooks.API_PREBUILT}, {BootHooks.FUNCTION_TEMPLATE, BootHooks.FUNCTION_PREBUILT},
            {BootHooks.HEAP_TEMPLATE, BootHooks.HEAP_PREBUILT}};
        for (String[] o : outputs) {
            String simple = o[0].substring(o[0].lastIndexOf('/') + 1);
            java.nio.file.Files.write(dir.resolve(o[1]), renamed(java.nio.file.Files.readAllBytes(
                    dir.resolve(simple + ".class")), o[0]));
        }
        // SamplerNatives calls the hook class's natives directly (again: an incremental build may keep it rewritten)
        java.nio.file.Path natives = dir.resolve("SamplerNatives.class");
        byte[] callers = java.nio.file.Files.readAllBytes(natives);
        byte[] rewritten = callsRenamed(callers, BootHooks.TEMPLATE, BootHooks.INTERNAL_NAME);
        if (new String(rewritten, java.nio.charset.StandardCharsets.ISO_8859_1).contains(BootHooks.TEMPLATE)
                || !new String(rewritten, java.nio.charset.StandardCharsets.ISO_8859_1).contains(BootHooks.INTERNAL_NAME)) {
            throw new IllegalStateException(natives + " does not call " + BootHooks.INTERNAL_NAME + " after rewriting");
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

    /**
     * @return the template {@code from} under its name in {@code java.lang}, with every reference to itself and to
     *         the other templates in field and method instructions renamed the same way
     */
    static byte[] renamed(byte[] template, String from) {
        String to = BootHooks.RENAMES.get(from);
        ClassReader reader = new ClassReader(template);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                super.visit(version, access, to, signature, superName, interfaces);
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
                        super.visitFieldInsn(opcode, BootHooks.RENAMES.getOrDefault(owner, owner), fieldName, desc);
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String methodName, String desc,
                                                boolean isInterface) {
                        super.visitMethodInsn(opcode, BootHooks.RENAMES.getOrDefault(owner, owner), methodName, desc,
                                isInterface);
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
