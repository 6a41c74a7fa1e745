package io.memscope.agent.boot;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
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
     * Build step (memscope-agent/pom.xml, process-classes): writes the renamed templates next to {@link BootHooks}
     * ({@code MemscopeHooks.bytes} and its siblings'), so that the agent does not load ASM to rename them at start;
     * makes {@link SamplerNatives} call {@code java.lang.MemscopeHooks} instead of the template, and
     * {@code io.memscope.agent.capture.NativeHookTarget} implement {@code java.lang.MemscopeHookTarget} instead of its
     * template. Idempotent (an incremental build may keep those two rewritten).
     *
     * @param args the directory of this package's class files
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String[][] outputs = {{BootHooks.TEMPLATE, BootHooks.PREBUILT},
            {BootHooks.TARGET_TEMPLATE, BootHooks.TARGET_PREBUILT},
            {BootHooks.API_TEMPLATE, BootHooks.API_PREBUILT},
            {BootHooks.FUNCTION_TEMPLATE, BootHooks.FUNCTION_PREBUILT},
            {BootHooks.HEAP_TEMPLATE, BootHooks.HEAP_PREBUILT}};
        for (String[] o : outputs) {
            String simple = o[0].substring(o[0].lastIndexOf('/') + 1);
            Files.write(dir.resolve(o[1]), renamed(Files.readAllBytes(dir.resolve(simple + ".class")), o[0]));
        }
        rewrite(dir.resolve("SamplerNatives.class"), BootHooks.TEMPLATE, BootHooks.INTERNAL_NAME);
        rewrite(dir.resolve("../capture/NativeHookTarget.class").normalize(), BootHooks.TARGET_TEMPLATE,
                BootHooks.TARGET_INTERNAL_NAME);
    }

    /** Rewrites the class file so that it refers to {@code to} wherever it referred to the template {@code from}. */
    private static void rewrite(Path file, String from, String to) throws Exception {
        byte[] rewritten = references(Files.readAllBytes(file), BootHooks.RENAMES);
        String text = new String(rewritten, StandardCharsets.ISO_8859_1);
        if (text.contains(from) || !text.contains(to)) {
            throw new IllegalStateException(file + " does not refer to " + to + " after rewriting");
        }
        Files.write(file, rewritten);
    }

    /**
     * @return the template {@code from} under its name in {@code java.lang}, with every reference to the templates
     *         renamed the same way
     */
    static byte[] renamed(byte[] template, String from) {
        byte[] out = references(template, BootHooks.RENAMES);
        String to = BootHooks.RENAMES.get(from);
        String simple = to.substring(to.lastIndexOf('/') + 1) + ".java";
        ClassReader reader = new ClassReader(out);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visitSource(String source, String debug) {
                super.visitSource(simple, debug);
            }
        }, 0);
        return writer.toByteArray();
    }

    /**
     * @return the class with every reference to a key of {@code names} (internal names: the class's own name, its
     *         interfaces, descriptors, field, method and type instructions, stack map frames) replaced by its value
     */
    static byte[] references(byte[] classFile, Map<String, String> names) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                String[] renamedInterfaces = interfaces == null ? null : new String[interfaces.length];
                for (int i = 0; renamedInterfaces != null && i < interfaces.length; i++) {
                    renamedInterfaces[i] = internal(interfaces[i], names);
                }
                super.visit(version, access, internal(name, names), signature, internal(superName, names),
                        renamedInterfaces);
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature,
                                           Object value) {
                return super.visitField(access, name, descriptor(descriptor, names), signature, value);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor(descriptor, names), signature,
                        exceptions);
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitFieldInsn(int opcode, String owner, String fieldName, String desc) {
                        super.visitFieldInsn(opcode, internal(owner, names), fieldName, descriptor(desc, names));
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String methodName, String desc,
                                                boolean isInterface) {
                        super.visitMethodInsn(opcode, internal(owner, names), methodName, descriptor(desc, names),
                                isInterface);
                    }

                    @Override
                    public void visitTypeInsn(int opcode, String type) {
                        super.visitTypeInsn(opcode, internal(type, names));
                    }

                    @Override
                    public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
                        super.visitFrame(type, numLocal, frameTypes(local, names), numStack,
                                frameTypes(stack, names));
                    }

                    @Override
                    public void visitLocalVariable(String name, String desc, String signature, Label start,
                                                   Label end, int index) {
                        super.visitLocalVariable(name, descriptor(desc, names), signature, start, end, index);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    /** @return the stack map frame's types with the class types among them (internal names) renamed */
    private static Object[] frameTypes(Object[] types, Map<String, String> names) {
        if (types == null) {
            return null;
        }
        Object[] out = types.clone();
        for (int i = 0; i < out.length; i++) {
            if (out[i] instanceof String) {
                out[i] = internal((String) out[i], names);
            }
        }
        return out;
    }

    private static String internal(String name, Map<String, String> names) {
        return name == null ? null : names.getOrDefault(name, name);
    }

    private static String descriptor(String desc, Map<String, String> names) {
        String d = desc;
        for (Map.Entry<String, String> e : names.entrySet()) {
            d = d.replace("L" + e.getKey() + ";", "L" + e.getValue() + ";");
        }
        return d;
    }
}
