package io.memscope.agent.instrument;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassTooLargeException;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The class file rewrites of {@link MemscopeTransformer}, with ASM. A class of its own so that a start that
 * instruments nothing with ASM (the JVM's sampler, {@code Unsafe} from the cache of instrumented JDK classes) loads
 * neither this class nor ASM's.
 */
final class ClassRewriter {
    private ClassRewriter() {
    }

    static byte[] unsafe(byte[] buffer) {
        return rewriteMethods(buffer, new MethodRewrite() {
            @Override
            MethodVisitor rewrite(MethodVisitor mv, int access, String name, String desc) {
                UnsafeMethodVisitor.Kind kind = UnsafeMethodVisitor.kindOf(name, desc);
                return kind == null || (access & Opcodes.ACC_STATIC) != 0 ? null : new UnsafeMethodVisitor(mv, kind);
            }
        });
    }

    /**
     * {@code getPlatformMBeanServer()}, before each {@code areturn}: {@code dup; invokestatic
     * java/lang/MemscopeHooks.platformServer(Ljava/lang/Object;)V}. Stack-neutral: frames stay valid.
     */
    static byte[] managementFactory(byte[] buffer) {
        return rewriteMethods(buffer, new MethodRewrite() {
            @Override
            MethodVisitor rewrite(MethodVisitor mv, int access, String name, String desc) {
                if (!name.equals("getPlatformMBeanServer") || !desc.equals("()Ljavax/management/MBeanServer;")) {
                    return null;
                }
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
        });
    }

    /**
     * OpenTelemetry's {@code ThreadLocalContextStorage} (and its scope class): before every
     * {@code ThreadLocal.set(Object)} (a thread's current context changes: an attach, a scope's close), the value is
     * passed to {@code java/lang/MemscopeHooks.otelContext(Ljava/lang/Object;)V} too. Stack-neutral around the call
     * ({@code dup} of the value, consumed by the hook): frames stay valid.
     */
    static byte[] otelContextStorage(byte[] buffer) {
        return rewriteMethods(buffer, new MethodRewrite() {
            @Override
            MethodVisitor rewrite(MethodVisitor mv, int access, String name, String desc) {
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String d, boolean itf) {
                        if (opcode == Opcodes.INVOKEVIRTUAL && owner.equals("java/lang/ThreadLocal")
                                && method.equals("set") && d.equals("(Ljava/lang/Object;)V")) {
                            super.visitInsn(Opcodes.DUP);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, UnsafeMethodVisitor.HOOKS, "otelContext",
                                    "(Ljava/lang/Object;)V", false);
                        }
                        super.visitMethodInsn(opcode, owner, method, d, itf);
                    }
                };
            }
        });
    }

    /** The rewrite of some methods of a class: an abstract class, not a lambda (no bootstrap on the start path). */
    private abstract static class MethodRewrite {
        /** @return the visitor that rewrites this method into {@code mv}, or null to copy it unchanged */
        abstract MethodVisitor rewrite(MethodVisitor mv, int access, String name, String desc);
    }

    /** @return the class with the methods {@code rewrite} chose rewritten, or null when it chose none */
    private static byte[] rewriteMethods(byte[] buffer, MethodRewrite rewrite) {
        ClassReader reader = new ClassReader(buffer);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        boolean[] changed = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
                MethodVisitor rewritten = rewrite.rewrite(mv, access, name, desc);
                if (rewritten == null) {
                    return mv;
                }
                changed[0] = true;
                return rewritten;
            }
        }, 0);
        return changed[0] ? writer.toByteArray() : null;
    }

    /** @return the instrumented class, or null when nothing was inserted */
    static byte[] allocations(byte[] buffer, AtomicLong tooLarge) {
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

}
