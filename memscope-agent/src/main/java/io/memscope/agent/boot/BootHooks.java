package io.memscope.agent.boot;

import io.memscope.agent.capture.Hooks;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Defines {@code java.lang.MemscopeHooks} (from {@link MemscopeHooksTemplate}) inside {@code java.base}, the class
 * that instrumented code calls.
 *
 * <p>Why: instrumented classes of every class loader (including strictly isolated ones, which still delegate
 * {@code java.*} to the bootstrap loader) and instrumented JDK classes must all see one hook class. Appending the
 * agent jar to the bootstrap class path would do it, but makes the JVM print "Sharing is only supported for boot
 * loader classes because bootstrap classpath has been appended" and turns class data sharing off for application
 * classes (slower start-up). Instead: {@link Instrumentation#redefineModule} opens {@code java.lang} to the agent's
 * module, {@link MethodHandles#privateLookupIn} gives a lookup in {@code java.lang}, and
 * {@link MethodHandles.Lookup#defineClass} defines the renamed templates there (bootstrap loader, {@code java.base}):
 * the hook class, the interface through which it calls the native memory hooks
 * ({@code java.lang.MemscopeHookTarget}), and the two classes its API and function-profile hooks forward through
 * (initialized at their first call). The hook class's static initializer, run here before anything is
 * instrumented, binds it to {@link io.memscope.agent.capture.NativeHookTarget} and
 * {@link io.memscope.agent.capture.Hooks}.
 */
public final class BootHooks {
    /** Binary name of the hook class instrumented JDK classes call (and that declares the sampler's natives). */
    public static final String NAME = "java.lang.MemscopeHooks";
    /** Internal name of {@link #NAME}. */
    public static final String INTERNAL_NAME = "java/lang/MemscopeHooks";
    /** Binary name of the class the bytecode heap hooks call. */
    public static final String HEAP_NAME = "java.lang.MemscopeHeapHooks";
    /** Internal name of {@link #HEAP_NAME}. */
    public static final String HEAP_INTERNAL_NAME = "java/lang/MemscopeHeapHooks";
    /** Binary name of the class the API hooks forward through (initialized at the first API call). */
    public static final String API_NAME = "java.lang.MemscopeApiHooks";
    /** Binary name of the class the function profile's hooks forward through (initialized at the first call). */
    public static final String FUNCTION_NAME = "java.lang.MemscopeFunctionHooks";
    /**
     * Prefix of the binary names of every class the agent defines in {@code java.lang} (the hook class, its
     * siblings, the heap hook class): their frames are memscope's, never the application's.
     */
    public static final String HOOK_CLASS_PREFIX = "java.lang.Memscope";
    /** Internal name of the interface the hook class calls the native memory hooks through. */
    public static final String TARGET_INTERNAL_NAME = "java/lang/MemscopeHookTarget";
    /** The package of {@code java.base} that holds the JVM's agent properties, exported with {@code java.lang}. */
    public static final String AGENT_PROPERTIES_PACKAGE = "jdk.internal.vm";
    static final String TEMPLATE = "io/memscope/agent/boot/MemscopeHooksTemplate";
    static final String TARGET_TEMPLATE = "io/memscope/agent/boot/MemscopeHookTargetTemplate";
    static final String API_TEMPLATE = "io/memscope/agent/boot/MemscopeApiHooksTemplate";
    static final String FUNCTION_TEMPLATE = "io/memscope/agent/boot/MemscopeFunctionHooksTemplate";
    static final String HEAP_TEMPLATE = "io/memscope/agent/boot/MemscopeHeapHooksTemplate";
    /** Template internal name to the internal name it is defined under. */
    static final Map<String, String> RENAMES = Map.of(TEMPLATE, INTERNAL_NAME, TARGET_TEMPLATE, TARGET_INTERNAL_NAME,
            API_TEMPLATE, "java/lang/MemscopeApiHooks", FUNCTION_TEMPLATE, "java/lang/MemscopeFunctionHooks",
            HEAP_TEMPLATE, HEAP_INTERNAL_NAME);

    /**
     * JDK classes instrumented with the agent's hooks in this JVM ({@code jdk/internal/misc/Unsafe},
     * {@code java/lang/management/ManagementFactory}): they keep their hooks, dormant between captures (each hook
     * returns at once without one), until the JVM exits. Retransforming them at every attach and detach would leave
     * a copy of their metadata behind each time (the JVM keeps previous versions of methods that may still run), and
     * costs a class redefinition of {@code Unsafe} at each start.
     */
    private static final java.util.Set<String> JDK_HOOKED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private BootHooks() {
    }

    /** A JDK class now carries the agent's hooks (internal name). */
    public static void jdkClassHooked(String internalName) {
        JDK_HOOKED.add(internalName);
    }

    /** @return whether a JDK class carries the agent's hooks already (internal name) */
    public static boolean jdkClassHooked0(String internalName) {
        return JDK_HOOKED.contains(internalName);
    }

    /**
     * Defines and initializes the hook class unless it exists already (an earlier attach).
     *
     * @param inst the agent's instrumentation, or null when {@code java.lang} is already open to this module
     *             (tests run with {@code --add-opens java.base/java.lang=ALL-UNNAMED})
     * @throws Exception when the class cannot be defined; the agent must then not instrument anything
     */
    public static synchronized void install(Instrumentation inst) throws Exception {
        define(inst, NAME, List.of(TEMPLATE, TARGET_TEMPLATE, API_TEMPLATE, FUNCTION_TEMPLATE),
                List.of(PREBUILT, TARGET_PREBUILT, API_PREBUILT, FUNCTION_PREBUILT));
    }

    /**
     * Defines and initializes {@link #HEAP_NAME}, the class the bytecode heap hooks call, unless it exists already;
     * before anything is instrumented with them. Same rules as {@link #install}.
     */
    public static synchronized void installHeapHooks(Instrumentation inst) throws Exception {
        define(inst, HEAP_NAME, List.of(HEAP_TEMPLATE), List.of(HEAP_PREBUILT));
    }

    /**
     * Defines the renamed templates (the first is {@code name}, the others its siblings, which it calls and which are
     * initialized at their first call), then initializes the first.
     */
    private static void define(Instrumentation inst, String name, List<String> templates, List<String> prebuilt)
            throws Exception {
        try {
            Class.forName(name, true, null);
            return;
        } catch (ClassNotFoundException notYet) {
            // define it below
        }
        Module base = Object.class.getModule();
        Module self = BootHooks.class.getModule();
        if (inst != null && !base.isOpen("java.lang", self)) {
            // With it, jdk.internal.vm for the agent properties (io.memscope.agent.AgentProperties): each
            // redefineModule call runs the JDK's own lambdas, milliseconds at start-up.
            inst.redefineModule(base, Set.of(), Map.of(AGENT_PROPERTIES_PACKAGE, Set.of(self)),
                    Map.of("java.lang", Set.of(self)), Set.of(), Map.of());
        }
        byte[][] bytes = new byte[templates.size()][];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = prebuilt(prebuilt.get(i));
            if (bytes[i] == null) {
                bytes[i] = HookRenamer.renamed(template(templates.get(i)), templates.get(i)); // a build without prebuilt classes
            }
        }
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Object.class, MethodHandles.lookup());
        Properties p = System.getProperties();
        p.put(MemscopeHooksTemplate.HANDOFF, Hooks.class);
        try {
            Class<?> first = null;
            for (byte[] b : bytes) {
                Class<?> c = lookup.defineClass(b);
                first = first == null ? c : first;
            }
            if (name.equals(NAME)) {
                // loadable only now: it implements java.lang.MemscopeHookTarget, defined just above
                p.put(MemscopeHooksTemplate.TARGET_HANDOFF, new io.memscope.agent.capture.NativeHookTarget());
            }
            lookup.ensureInitialized(first);
        } finally {
            p.remove(MemscopeHooksTemplate.HANDOFF);
            p.remove(MemscopeHooksTemplate.TARGET_HANDOFF);
        }
    }

    /** Resources holding the renamed classes, written at build time by {@link HookRenamer#main} (no ASM at agent start-up). */
    static final String PREBUILT = "MemscopeHooks.bytes";
    static final String TARGET_PREBUILT = "MemscopeHookTarget.bytes";
    static final String API_PREBUILT = "MemscopeApiHooks.bytes";
    static final String FUNCTION_PREBUILT = "MemscopeFunctionHooks.bytes";
    static final String HEAP_PREBUILT = "MemscopeHeapHooks.bytes";

    /** @return the renamed class as the build wrote it, or null */
    private static byte[] prebuilt(String resource) throws java.io.IOException {
        return AgentJar.read("io/memscope/agent/boot/" + resource);
    }

    private static byte[] template(String template) throws Exception {
        try (InputStream in = BootHooks.class.getResourceAsStream("/" + template + ".class")) {
            if (in == null) {
                throw new IllegalStateException(template + ".class missing from the agent jar");
            }
            return in.readAllBytes();
        }
    }

}
