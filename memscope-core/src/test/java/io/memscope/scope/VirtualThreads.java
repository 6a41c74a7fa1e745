package io.memscope.scope;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Virtual threads for tests compiled for Java 17: found reflectively, null before JDK 21. */
public final class VirtualThreads {
    private VirtualThreads() {
    }

    /** @return {@code Executors.newVirtualThreadPerTaskExecutor()}, or null when the JDK has none */
    public static ExecutorService perTaskExecutor() {
        try {
            return (ExecutorService) MethodHandles.publicLookup()
                    .findStatic(Executors.class, "newVirtualThreadPerTaskExecutor",
                            MethodType.methodType(ExecutorService.class))
                    .invoke();
        } catch (Throwable t) {
            return null;
        }
    }
}
