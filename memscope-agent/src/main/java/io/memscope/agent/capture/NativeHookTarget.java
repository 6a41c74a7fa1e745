package io.memscope.agent.capture;

import io.memscope.agent.boot.MemscopeHookTargetTemplate;

/**
 * The receiver of {@code java.lang.MemscopeHooks}' native memory and MBean server hooks: forwards to {@link Hooks}.
 * Built to implement {@code java.lang.MemscopeHookTarget} (the renamed {@link MemscopeHookTargetTemplate}, see
 * {@code HookRenamer}): load it only after {@code BootHooks.install} defined that interface.
 */
public final class NativeHookTarget implements MemscopeHookTargetTemplate {
    @Override
    public void nativeAllocate(long address, long bytes) {
        Hooks.nativeAllocate(address, bytes);
    }

    @Override
    public void nativeReallocate(long newAddress, long oldAddress, long bytes) {
        Hooks.nativeReallocate(newAddress, oldAddress, bytes);
    }

    @Override
    public boolean nativeFree(long address) {
        return Hooks.nativeFree(address);
    }

    @Override
    public void platformServer(Object server) {
        Hooks.platformServer(server);
    }

    @Override
    public void nativeArenaEnter() {
        Hooks.nativeArenaEnter();
    }

    @Override
    public void nativeArenaExit() {
        Hooks.nativeArenaExit();
    }

    @Override
    public void otelContext(Object context) {
        Hooks.otelContext(context);
    }
}
