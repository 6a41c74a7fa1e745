package io.memscope.agent.instrument;

import io.memscope.agent.capture.SiteTable;
import java.util.ArrayDeque;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Inserts a call to {@code java.lang.MemscopeHooks} (see {@code BootHooks}; it forwards to
 * {@code io.memscope.agent.capture.Hooks}) after every allocation instruction of a method, with
 * the instruction's static site id as a constant:
 *
 * <pre>
 *   new T; dup; ...args; invokespecial T.&lt;init&gt;   -&gt;  ... invokespecial T.&lt;init&gt;; dup; push site; invokestatic newObject
 *   newarray / anewarray / multianewarray         -&gt;  ...; dup; push site; invokestatic newArray / newMultiArray
 *   invokevirtual [X.clone, Array.newInstance     -&gt;  ...; dup; push site; invokestatic newArrayDynamic
 *   invokedynamic StringConcatFactory, StringBuilder.toString -&gt;  ...; dup; push site; invokestatic newString
 * </pre>
 *
 * <p>An object is handed over only after its constructor returned (an uninitialized reference may not be passed
 * to a method). {@code new} instructions are matched with their constructor call through a stack of pending
 * {@code new}s in code order; a {@code new} not followed by {@code dup} is counted at the {@code new} without its
 * object. The inserted code is stack-neutral and has no branches, so existing stack map frames stay valid and only
 * max stack grows (by at most 3 slots).
 */
final class AllocationMethodVisitor extends MethodVisitor {
    private static final String HOOKS = io.memscope.agent.boot.BootHooks.HEAP_INTERNAL_NAME;

    private static final class PendingNew {
        final String type;
        final int site;
        final boolean dup;

        PendingNew(String type, int site, boolean dup) {
            this.type = type;
            this.site = site;
            this.dup = dup;
        }
    }

    private final String owner;
    private final String method;
    private final String descriptor;
    private final String file;
    private final ArrayDeque<PendingNew> pending = new ArrayDeque<>();
    private String justNew;
    private int justNewSite;
    private int line;
    private int ordinal;
    int inserted;

    AllocationMethodVisitor(MethodVisitor mv, String owner, String method, String descriptor, String file) {
        super(Opcodes.ASM9, mv);
        this.owner = owner;
        this.method = method;
        this.descriptor = descriptor;
        this.file = file;
    }

    private int site(String type, boolean dynamic) {
        String key = owner + '#' + method + descriptor + '#' + (ordinal++);
        return SiteTable.register(key, owner.replace('/', '.'), method, file, line, type, dynamic);
    }

    /** Resolves a {@code new} that was not followed by {@code dup}. */
    private void flush() {
        if (justNew != null) {
            pending.push(new PendingNew(justNew, justNewSite, false));
            push(justNewSite);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "newObjectUntracked", "(I)V", false);
            inserted++;
            justNew = null;
        }
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

    private void hook(int site, String name, String desc) {
        super.visitInsn(Opcodes.DUP);
        push(site);
        super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, name, desc, false);
        inserted++;
    }

    @Override
    public void visitLineNumber(int lineNumber, Label start) {
        line = lineNumber;
        super.visitLineNumber(lineNumber, start);
    }

    @Override
    public void visitLabel(Label label) {
        flush();
        super.visitLabel(label);
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
        flush();
        super.visitTypeInsn(opcode, type);
        if (opcode == Opcodes.NEW) {
            justNew = type;
            justNewSite = site(type.replace('/', '.'), false);
        } else if (opcode == Opcodes.ANEWARRAY) {
            String element = type.startsWith("[") ? Type.getType(type).getClassName() : type.replace('/', '.');
            hook(site(element + "[]", false), "newArray", "([Ljava/lang/Object;I)V");
        }
    }

    @Override
    public void visitInsn(int opcode) {
        if (opcode == Opcodes.DUP && justNew != null) {
            pending.push(new PendingNew(justNew, justNewSite, true));
            justNew = null;
            super.visitInsn(opcode);
            return;
        }
        flush();
        super.visitInsn(opcode);
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
        flush();
        super.visitIntInsn(opcode, operand);
        if (opcode == Opcodes.NEWARRAY) {
            String[] t = primitive(operand);
            hook(site(t[0] + "[]", false), "newArray", "([" + t[1] + "I)V");
        }
    }

    private static String[] primitive(int operand) {
        switch (operand) {
            case Opcodes.T_BOOLEAN: return new String[] {"boolean", "Z"};
            case Opcodes.T_CHAR: return new String[] {"char", "C"};
            case Opcodes.T_FLOAT: return new String[] {"float", "F"};
            case Opcodes.T_DOUBLE: return new String[] {"double", "D"};
            case Opcodes.T_BYTE: return new String[] {"byte", "B"};
            case Opcodes.T_SHORT: return new String[] {"short", "S"};
            case Opcodes.T_INT: return new String[] {"int", "I"};
            case Opcodes.T_LONG: return new String[] {"long", "J"};
            default: throw new IllegalArgumentException("newarray operand " + operand);
        }
    }

    @Override
    public void visitMultiANewArrayInsn(String desc, int numDimensions) {
        flush();
        super.visitMultiANewArrayInsn(desc, numDimensions);
        hook(site(Type.getType(desc).getClassName(), false), "newMultiArray", "(Ljava/lang/Object;I)V");
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean isInterface) {
        flush();
        super.visitMethodInsn(opcode, owner, name, desc, isInterface);
        if (opcode == Opcodes.INVOKESPECIAL && name.equals("<init>")) {
            PendingNew p = pending.peek();
            if (p != null && p.type.equals(owner)) {
                pending.pop();
                if (p.dup) {
                    hook(p.site, "newObject", "(Ljava/lang/Object;I)V");
                }
            }
        } else if (opcode == Opcodes.INVOKEVIRTUAL && owner.startsWith("[") && name.equals("clone")
                && desc.equals("()Ljava/lang/Object;")) {
            hook(site(Type.getType(owner).getClassName(), true), "newArrayDynamic", "(Ljava/lang/Object;I)V");
        } else if (opcode == Opcodes.INVOKESTATIC && owner.equals("java/lang/reflect/Array")
                && name.equals("newInstance")) {
            hook(site("java.lang.Object", true), "newArrayDynamic", "(Ljava/lang/Object;I)V");
        } else if (opcode == Opcodes.INVOKEVIRTUAL && name.equals("toString")
                && desc.equals("()Ljava/lang/String;")
                && (owner.equals("java/lang/StringBuilder") || owner.equals("java/lang/StringBuffer"))) {
            hook(site("java.lang.String", false), "newString", "(Ljava/lang/String;I)V");
        }
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... bsmArgs) {
        flush();
        super.visitInvokeDynamicInsn(name, desc, bsm, bsmArgs);
        if (bsm.getOwner().equals("java/lang/invoke/StringConcatFactory")
                && desc.endsWith(")Ljava/lang/String;")) {
            hook(site("java.lang.String", false), "newString", "(Ljava/lang/String;I)V");
        }
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String desc) {
        flush();
        super.visitFieldInsn(opcode, owner, name, desc);
    }

    @Override
    public void visitVarInsn(int opcode, int varIndex) {
        flush();
        super.visitVarInsn(opcode, varIndex);
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
        flush();
        super.visitJumpInsn(opcode, label);
    }

    @Override
    public void visitLdcInsn(Object value) {
        flush();
        super.visitLdcInsn(value);
    }

    @Override
    public void visitIincInsn(int varIndex, int increment) {
        flush();
        super.visitIincInsn(varIndex, increment);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
        flush();
        super.visitTableSwitchInsn(min, max, dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
        flush();
        super.visitLookupSwitchInsn(dflt, keys, labels);
    }

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
        flush();
        super.visitMaxs(maxStack, maxLocals);
    }
}
