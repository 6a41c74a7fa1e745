package io.memscope.agent.instrument;

import io.memscope.agent.capture.FunctionTable;
import io.memscope.launch.FunctionPatterns;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassTooLargeException;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The function profile's bytecode (agent option {@code functions=...}, see {@link FunctionPatterns}):
 *
 * <pre>
 *   profiled method:                      push fid; invokestatic fnEnter       (at entry)
 *                                         push fid; invokestatic fnExit        (before every xRETURN)
 *                                         catch-all handler over the whole body, last in the exception table:
 *                                           push fid; invokestatic fnExit; athrow
 *   any call to a profiled class's method: push site; invokestatic fnCallSite  (right before the invoke)
 * </pre>
 *
 * The calls go to {@code java.lang.MemscopeHooks}, which forwards to {@code FunctionHooks}. Every exit is covered:
 * a return runs fnExit before it, an exception thrown inside (and not caught inside) reaches the handler, which
 * runs fnExit and rethrows the same exception. The handler is appended after the method's own handlers, so they
 * keep catching what they caught. The inserted code is stack-neutral; the handler's stack map frame declares no
 * locals and the thrown {@code Throwable} (always compatible with every frame of the body), so the class needs no
 * frame recomputation and no class loading during the transformation. A method the hooks would push past 64 KiB
 * is left as it was.
 */
final class FunctionInstrumenter {
    private static final String HOOKS = io.memscope.agent.boot.BootHooks.INTERNAL_NAME;

    private final FunctionPatterns patterns;
    private final AtomicLong profiledMethods = new AtomicLong();
    private final AtomicLong tooLarge;

    FunctionInstrumenter(FunctionPatterns patterns, AtomicLong tooLarge) {
        this.patterns = patterns;
        this.tooLarge = tooLarge;
    }

    /** @return methods instrumented as profiled functions so far */
    long profiledMethods() {
        return profiledMethods.get();
    }

    /** @return the class with the function profile's hooks, or null when it has nothing to instrument */
    byte[] apply(String className, byte[] buffer) {
        boolean callee = patterns.coversClass(className);
        Set<String> excluded = new HashSet<>();
        for (int attempt = 0; attempt < 16; attempt++) {
            ClassReader reader = new ClassReader(buffer);
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            Visitor v = new Visitor(writer, excluded, callee);
            reader.accept(v, callee ? ClassReader.EXPAND_FRAMES : 0);
            if (v.inserted == 0) {
                return null;
            }
            try {
                byte[] out = writer.toByteArray();
                profiledMethods.addAndGet(v.profiled);
                return out;
            } catch (MethodTooLargeException e) {
                tooLarge.incrementAndGet();
                excluded.add(e.getMethodName() + e.getDescriptor());
            } catch (ClassTooLargeException e) {
                tooLarge.incrementAndGet();
                return null;
            }
        }
        return null;
    }

    private final class Visitor extends ClassVisitor {
        private final Set<String> excluded;
        private final boolean callee;
        private String owner;
        private String file;
        private boolean frames;
        int inserted;
        int profiled;

        Visitor(ClassVisitor cv, Set<String> excluded, boolean callee) {
            super(Opcodes.ASM9, cv);
            this.excluded = excluded;
            this.callee = callee;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            owner = name;
            frames = (version & 0xFFFF) >= Opcodes.V1_6;
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
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0 || excluded.contains(name + desc)) {
                return mv;
            }
            int fid = callee && profilable(access, name) && patterns.matchesInternal(owner, name)
                    ? FunctionTable.function(owner.replace('/', '.'), name, desc) : 0;
            if (fid != 0) {
                profiled++;
            }
            return new Method(mv, name, fid);
        }

        /** One method: call sites of profiled functions, and its own entry and exits when it is profiled. */
        private final class Method extends MethodVisitor {
            private final String method;
            private final int fid;
            private final Label start = new Label();
            private int line;

            Method(MethodVisitor mv, String method, int fid) {
                super(Opcodes.ASM9, mv);
                this.method = method;
                this.fid = fid;
            }

            private void push(int value) {
                if (value <= 5) {
                    super.visitInsn(Opcodes.ICONST_0 + value);
                } else if (value <= Byte.MAX_VALUE) {
                    super.visitIntInsn(Opcodes.BIPUSH, value);
                } else if (value <= Short.MAX_VALUE) {
                    super.visitIntInsn(Opcodes.SIPUSH, value);
                } else {
                    super.visitLdcInsn(value);
                }
            }

            private void hook(String name, int value) {
                push(value);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, name, "(I)V", false);
                inserted++;
            }

            @Override
            public void visitCode() {
                super.visitCode();
                if (fid != 0) {
                    hook("fnEnter", fid);
                    super.visitLabel(start);
                }
            }

            @Override
            public void visitLineNumber(int lineNumber, Label label) {
                line = lineNumber;
                super.visitLineNumber(lineNumber, label);
            }

            @Override
            public void visitInsn(int opcode) {
                if (fid != 0 && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
                    hook("fnExit", fid);
                }
                super.visitInsn(opcode);
            }

            @Override
            public void visitMethodInsn(int opcode, String calleeOwner, String name, String desc, boolean itf) {
                if (!name.startsWith("<") && patterns.matchesInternal(calleeOwner, name)) {
                    String frame = io.memscope.recording.Site.frame(owner.replace('/', '.'), method, file, line);
                    hook("fnCallSite", FunctionTable.callSite(frame, name + desc));
                }
                super.visitMethodInsn(opcode, calleeOwner, name, desc, itf);
            }

            @Override
            public void visitMaxs(int maxStack, int maxLocals) {
                if (fid != 0) {
                    Label end = new Label();
                    Label handler = new Label();
                    super.visitLabel(end);
                    super.visitLabel(handler);
                    if (frames) {
                        super.visitFrame(Opcodes.F_NEW, 0, new Object[0], 1, new Object[] {"java/lang/Throwable"});
                    }
                    hook("fnExit", fid);
                    super.visitInsn(Opcodes.ATHROW);
                    super.visitTryCatchBlock(start, end, handler, null);
                }
                super.visitMaxs(maxStack, maxLocals);
            }
        }
    }

    /** @return whether a method with these modifiers and name can be profiled at all */
    static boolean profilable(int access, String name) {
        int never = Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_BRIDGE | Opcodes.ACC_SYNTHETIC;
        return (access & never) == 0 && !name.startsWith("<");
    }
}
