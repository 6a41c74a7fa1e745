package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.jmx.AgentClient.HeldGroup;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a test is not blamed for, judged from the allocation's site and stack. */
class HeldFilterTest {
    private static HeldGroup group(String site, String... stack) {
        return new HeldGroup(site, "byte[]", 1 << 20, 1, 1, List.of(stack));
    }

    @Test
    void theJvmsFirstUseWorkIsWarmUp() {
        HeldFilter f = new HeldFilter(new String[0]);
        assertThat(f.excuse(group("com.acme.Codec.<clinit>(Codec.java:12)", "java.util.HashMap.resize(HashMap.java:1)",
                "com.acme.Codec.<clinit>(Codec.java:12)", "com.acme.CodecTest.encodes(CodecTest.java:9)")))
                .isEqualTo(HeldFilter.Excuse.WARM_UP);
        assertThat(f.excuse(group("com.acme.Parser.parse(Parser.java:3)",
                "java.lang.invoke.InnerClassLambdaMetafactory.spinInnerClass(InnerClassLambdaMetafactory.java:300)",
                "java.lang.invoke.MethodHandleNatives.linkCallSite(MethodHandleNatives.java:275)",
                "com.acme.Parser.parse(Parser.java:3)"))).isEqualTo(HeldFilter.Excuse.WARM_UP);
        assertThat(f.excuse(group("com.acme.Beans.read(Beans.java:7)", "java.lang.Class.privateGetDeclaredMethods(Class.java:3)",
                "com.acme.Beans.read(Beans.java:7)"))).isEqualTo(HeldFilter.Excuse.WARM_UP);
    }

    /** Stacks of what stays held after the names of every locale were shown (JDK 17, soft references cleared). */
    @Test
    void theJdksLocaleDataIsNotTheTests() {
        HeldFilter f = new HeldFilter(new String[0]);
        // a locale class's string literal: resolved on first use, kept by the class
        assertThat(f.excuse(group("com.acme.Names.all(Names.java:30)",
                "sun.util.resources.cldr.ext.LocaleNames_tk.getContents(LocaleNames_tk.java:77)",
                "sun.util.resources.OpenListResourceBundle.loadLookup(OpenListResourceBundle.java:137)",
                "sun.util.locale.provider.LocaleResources.getLocaleName(LocaleResources.java:263)",
                "java.util.Locale.getDisplayName(Locale.java:2037)", "com.acme.Names.all(Names.java:30)")))
                .isEqualTo(HeldFilter.Excuse.LOCALE_DATA);
        assertThat(f.excuse(group("com.acme.Names.all(Names.java:30)",
                "java.util.concurrent.ConcurrentHashMap.putVal(ConcurrentHashMap.java:1075)",
                "sun.util.locale.provider.LocaleResources.getLocaleName(LocaleResources.java:265)",
                "java.util.Locale.getDisplayName(Locale.java:2037)", "com.acme.Names.all(Names.java:30)")))
                .isEqualTo(HeldFilter.Excuse.LOCALE_DATA);
        // an application's own resource bundle is not the JDK's locale data
        assertThat(f.excuse(group("com.acme.Messages.load(Messages.java:9)",
                "java.util.Properties.load(Properties.java:1)", "java.util.PropertyResourceBundle.<init>(PropertyResourceBundle.java:1)",
                "java.util.ResourceBundle.getBundle(ResourceBundle.java:1)", "com.acme.Messages.load(Messages.java:9)")))
                .isNull();
    }

    @Test
    void theFrameworksOwnSitesAreNotTheTests() {
        HeldFilter f = new HeldFilter(new String[0]);
        assertThat(f.excuse(group("org.junit.platform.commons.util.ReflectionUtils.invokeMethod(ReflectionUtils.java:767)",
                "java.util.ArrayList.grow(ArrayList.java:1)"))).isEqualTo(HeldFilter.Excuse.FRAMEWORK);
    }

    @Test
    void aLeakInApplicationCodeIsBlamedUnlessOutsideTheIncludes() {
        HeldGroup leak = group("com.acme.Cache.put(Cache.java:5)", "java.util.Arrays.copyOf(Arrays.java:1)",
                "com.acme.Cache.put(Cache.java:5)", "com.acme.CacheTest.fills(CacheTest.java:9)");
        assertThat(new HeldFilter(new String[0]).excuse(leak)).isNull();
        assertThat(new HeldFilter(new String[] {"com.acme."}).excuse(leak)).isNull();
        assertThat(new HeldFilter(new String[] {"org.example."}).excuse(leak)).isEqualTo(HeldFilter.Excuse.NOT_INCLUDED);
        // a thread the test leaks is a leak (Thread construction is not warm-up)
        assertThat(new HeldFilter(new String[0]).excuse(group("com.acme.Pool.start(Pool.java:8)",
                "java.lang.Thread.<init>(Thread.java:1)", "com.acme.Pool.start(Pool.java:8)"))).isNull();
    }
}
