package io.memscope.agent.instrument;

import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Hooks for {@code jdk.internal.misc.Unsafe}'s memory methods (which back {@code sun.misc.Unsafe}, direct
 * {@code ByteBuffer}s and their Cleaners, and FFM arenas):
 *
 * <pre>
 *   allocateMemory(J)J      before each lreturn: dup2; lload 1; invokestatic nativeAllocate(JJ)V
 *   reallocateMemory(JJ)J   before each lreturn: dup2; lload 1; lload 3; invokestatic nativeReallocate(JJJ)V
 *   freeMemory(J)V          at entry: lload 1; invokestatic nativeFree(J)Z; ifeq L; return; L: [frame same]
 * </pre>
 *
 * The free hook's branch skips a double free. Its frame is {@code F_SAME}: at method entry the locals are the
 * parameters and the stack is empty, which is exactly the implicit initial frame.
 */
final class UnsafeMethodVisitor extends MethodVisitor {
    static final String HOOKS = io.memscope.agent.boot.BootHooks.INTERNAL_NAME;

    enum Kind { ALLOCATE, REALLOCATE, FREE }

    private final Kind kind;

    UnsafeMethodVisitor(MethodVisitor mv, Kind kind) {
        super(Opcodes.ASM9, mv);
        this.kind = kind;
    }

    static Kind kindOf(String name, String desc) {
        if (name.equals("allocateMemory") && desc.equals("(J)J")) {
            return Kind.ALLOCATE;
        }
        if (name.equals("reallocateMemory") && desc.equals("(JJ)J")) {
            return Kind.REALLOCATE;
        }
        if (name.equals("freeMemory") && desc.equals("(J)V")) {
            return Kind.FREE;
        }
        return null;
    }

    @Override
    public void visitCode() {
        super.visitCode();
        if (kind == Kind.FREE) {
            Label go = new Label();
            super.visitVarInsn(Opcodes.LLOAD, 1);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "nativeFree", "(J)Z", false);
            super.visitJumpInsn(Opcodes.IFEQ, go);
            super.visitInsn(Opcodes.RETURN);
            super.visitLabel(go);
            super.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        }
    }

    @Override
    public void visitInsn(int opcode) {
        if (opcode == Opcodes.LRETURN) {
            if (kind == Kind.ALLOCATE) {
                super.visitInsn(Opcodes.DUP2);
                super.visitVarInsn(Opcodes.LLOAD, 1);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "nativeAllocate", "(JJ)V", false);
            } else if (kind == Kind.REALLOCATE) {
                super.visitInsn(Opcodes.DUP2);
                super.visitVarInsn(Opcodes.LLOAD, 1);
                super.visitVarInsn(Opcodes.LLOAD, 3);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "nativeReallocate", "(JJJ)V", false);
            }
        }
        super.visitInsn(opcode);
    }
}
