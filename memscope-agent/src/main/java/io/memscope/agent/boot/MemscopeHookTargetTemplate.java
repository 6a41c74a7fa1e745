package io.memscope.agent.boot;

/**
 * Template of {@code java.lang.MemscopeHookTarget}: what {@code java.lang.MemscopeHooks} calls for the hooks every
 * capture uses (native memory, the platform MBean server). {@link BootHooks} defines it in {@code java.base} beside
 * the hook class; the agent's {@code io.memscope.agent.capture.NativeHookTarget} implements it (the build makes that
 * class implement the renamed interface, see {@link HookRenamer#main}), and the hook class holds one instance in a
 * {@code static final} field. An interface call on a constant receiver, where a method handle would cost the JVM a
 * spun class per handle and per call type at start-up; compiled, the JIT inlines it all the same.
 *
 * <p>Implementations never throw.
 */
public interface MemscopeHookTargetTemplate {
    void nativeAllocate(long address, long bytes);

    void nativeReallocate(long newAddress, long oldAddress, long bytes);

    boolean nativeFree(long address);

    void platformServer(Object server);

    void nativeArenaEnter();

    void nativeArenaExit();

    void otelContext(Object context);
}
