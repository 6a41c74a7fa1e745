package io.memscope.agent.boot;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Template of {@code java.lang.MemscopeFunctionHooks}: the forwarding of {@code java.lang.MemscopeHooks}'
 * {@code fn*} methods (the function profile's entries, exits and call sites) to the agent's
 * {@code io.memscope.agent.capture.FunctionHooks}, through {@code static final} method handles looked up when this
 * class is initialized, at the first call (a capture with a function profile makes it when it starts). {@link BootHooks}
 * renames it and defines it beside the hook class (same rules as {@link MemscopeHooksTemplate}).
 */
public final class MemscopeFunctionHooksTemplate {
    private static final String FUNCTIONS = "io.memscope.agent.capture.FunctionHooks";

    private static final MethodHandle ENTER;
    private static final MethodHandle EXIT;
    private static final MethodHandle CALL_SITE;

    static {
        Class<?> c = MemscopeHooksTemplate.sibling(MemscopeHooksTemplate.hooks(), FUNCTIONS);
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        ENTER = MemscopeHooksTemplate.find(l, c, "enter", MethodType.methodType(void.class, int.class));
        EXIT = MemscopeHooksTemplate.find(l, c, "exit", MethodType.methodType(void.class, int.class));
        CALL_SITE = MemscopeHooksTemplate.find(l, c, "callSite", MethodType.methodType(void.class, int.class));
    }

    private MemscopeFunctionHooksTemplate() {
    }

    static void enter(int function) {
        try {
            ENTER.invokeExact(function);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void exit(int function) {
        try {
            EXIT.invokeExact(function);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }

    static void callSite(int site) {
        try {
            CALL_SITE.invokeExact(site);
        } catch (Throwable t) {
            // the agent's hooks never throw; nothing may reach the application
        }
    }
}
