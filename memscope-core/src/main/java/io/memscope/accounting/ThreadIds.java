package io.memscope.accounting;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Thread ids that can identify the current thread on the hot path.
 *
 * <p>On JDK 19 and later {@code Thread.threadId()} is final and returns the id the JVM gave the thread, unique
 * among all threads of the process, so comparing ids is an identity check ({@link #GENUINE}). Before JDK 19 only
 * {@code Thread.getId()} exists, which a Thread subclass may override (two live threads could then report the
 * same id); identity is then checked on the Thread object itself. Called through a constant method handle, so the
 * JIT compiles {@link #of} to the method's field read.
 */
final class ThreadIds {
    /** True when {@link #of} returns the JVM's own thread id (JDK 19+: {@code Thread.threadId()}, final). */
    static final boolean GENUINE;
    private static final MethodHandle ID;

    static {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodType type = MethodType.methodType(long.class);
        MethodHandle h;
        boolean genuine;
        try {
            h = lookup.findVirtual(Thread.class, "threadId", type);
            genuine = true;
        } catch (ReflectiveOperationException e) {
            try {
                h = lookup.findVirtual(Thread.class, "getId", type);
            } catch (ReflectiveOperationException impossible) {
                throw new ExceptionInInitializerError(impossible);
            }
            genuine = false;
        }
        ID = h;
        GENUINE = genuine;
    }

    private ThreadIds() {
    }

    /** @return the thread's id ({@code threadId()} where it exists, else {@code getId()}) */
    static long of(Thread t) {
        try {
            return (long) ID.invokeExact(t);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
