package io.memscope.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.agent.capture.SiteTable;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Instruments a class in-process (hooks disabled, so they return at once), loads it in its own loader so the JVM
 * verifies it, runs it, and checks the sites it registered.
 */
class AllocationInstrumentationTest {

    /** The class under instrumentation: one of each allocation kind. */
    public static final class Sample implements Supplier<Object> {
        @Override
        public Object get() {
            List<Object> out = new ArrayList<>();
            out.add(new StringBuilder("x"));                  // new + dup + <init>
            out.add(new int[3]);                              // newarray
            out.add(new String[2]);                           // anewarray
            out.add(new long[2][3]);                          // multianewarray
            out.add(new int[] {1, 2}.clone());                // array clone
            out.add(java.lang.reflect.Array.newInstance(Integer.class, 4));
            out.add("a" + out.size());                        // invokedynamic string concat
            out.add(new Object());                            // plain object
            return out;
        }
    }

    private static byte[] bytes(Class<?> c) throws Exception {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName().replace('.', '$') + ".class")) {
            if (in != null) {
                return in.readAllBytes();
            }
        }
        String name = c.getName();
        try (InputStream in = c.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void instrumentedClassVerifiesRunsAndRegistersEverySite() throws Exception {
        io.memscope.agent.boot.BootHooks.install(null); // java.lang is opened to the tests by the surefire argLine
        io.memscope.agent.boot.BootHooks.installHeapHooks(null);
        MemscopeTransformer t = new MemscopeTransformer(null, List.of(), List.of(), false, false, true, false);
        String internal = Sample.class.getName().replace('.', '/');
        int before = SiteTable.size();
        byte[] out = t.instrumentAllocations(internal, bytes(Sample.class));
        assertThat(out).isNotNull();
        int after = SiteTable.size();
        List<String> sites = new ArrayList<>();
        for (int i = before; i < after; i++) {
            SiteTable.Info s = SiteTable.get(i);
            sites.add(s.type + "@" + s.method + ":" + s.line);
        }
        assertThat(sites).anyMatch(s -> s.startsWith("java.lang.StringBuilder@get:"))
                .anyMatch(s -> s.startsWith("int[]@get:"))
                .anyMatch(s -> s.startsWith("java.lang.String[]@get:"))
                .anyMatch(s -> s.startsWith("long[][]@get:"))
                .anyMatch(s -> s.startsWith("java.lang.String@get:"))
                .anyMatch(s -> s.startsWith("java.util.ArrayList@get:"));

        ClassLoader loader = new ClassLoader(getClass().getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals(Sample.class.getName())) {
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> c = findLoadedClass(name);
                        return c != null ? c : defineClass(name, out, 0, out.length);
                    }
                }
                return super.loadClass(name, resolve);
            }
        };
        Class<?> c = Class.forName(Sample.class.getName(), true, loader);
        assertThat(c.getClassLoader()).isSameAs(loader);
        Method get = c.getMethod("get");
        Object instance = c.getDeclaredConstructor().newInstance();
        List<Object> result = (List<Object>) get.invoke(instance);
        assertThat(result).hasSize(8);
        assertThat(result.get(6)).isEqualTo("a6");
    }

    @Test
    void classWithoutAllocationsIsLeftAlone() throws Exception {
        MemscopeTransformer t = new MemscopeTransformer(null, List.of(), List.of(), false, false, true, false);
        assertThat(t.instrumentAllocations("java/lang/Runnable", bytes(Runnable.class))).isNull();
    }

    @Test
    void filterKeepsMemscopeAndJdkOutByDefault() {
        ClassFilter f = new ClassFilter(List.of(), List.of("com/acme/internal/"), false);
        assertThat(f.accepts("com/acme/App", false)).isTrue();
        assertThat(f.accepts("com/acme/internal/X", false)).isFalse();
        assertThat(f.accepts("io/memscope/agent/capture/Hooks", false)).isFalse();
        assertThat(f.accepts("io/memscope/demo/LeakyCacheWorkload", false)).isTrue();
        assertThat(f.accepts("java/util/HashMap", true)).isFalse();
        assertThat(f.accepts("com/acme/App$$Lambda$14", false)).isFalse();
        ClassFilter jdk = new ClassFilter(List.of(), List.of(), true);
        assertThat(jdk.accepts("java/util/HashMap", true)).isTrue();
        assertThat(jdk.accepts("java/util/concurrent/ConcurrentHashMap", true)).isFalse();
        assertThat(jdk.accepts("java/lang/Thread", true)).isFalse();
    }
}
