package io.memscope.junit;

import io.memscope.jmx.AgentClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The JUnit 5 extension behind {@link MaxAllocation}, {@link NoLeaks}, {@link MaxNativeMemory} and
 * {@link MemoryBudget}: each of them registers it ({@code @ExtendWith} on the annotation), and so does
 * {@code @ExtendWith(MemscopeExtension.class)}. A passing test prints nothing; a failing one fails with a message
 * that says by how much the limit was exceeded and names the top sites.
 *
 * <p>When: allocation and budgets are measured around the test method alone ({@code BeforeTestExecution} to
 * {@code AfterTestExecution}); leaks and native memory are judged after the {@code @AfterEach} methods (which may
 * release what the test made), for what was allocated while the test method ran.
 *
 * <p>Which threads: the test's own thread, always; threads created while it ran, when no other test runs at the
 * same time. With parallel execution on ({@code junit.jupiter.execution.parallel.enabled}) outside an
 * {@code @Isolated} class, or when another measured test overlaps, only the test's own thread is attributed: threads
 * cannot be told apart by test then.
 *
 * <p>Under {@code @RepeatedTest} and {@code @ParameterizedTest}, the first invocation's leftovers are its warm-up of
 * the code under test (caches filled on first use) and are not judged by {@link NoLeaks}; every later invocation is.
 * When invocations run concurrently, the first one to start is the warm-up, and the others wait for it to finish
 * before their test method runs (at most {@value #WARM_UP_WAIT_SECONDS} s; one that waited longer is not judged, and
 * says so): otherwise whichever touched the code first would be blamed for its warm-up.
 *
 * <p>{@link NoLeaks} and {@link MaxNativeMemory} need the memscope agent in the test JVM; without it the test fails
 * with a message saying how to add it, or is aborted (skipped) with the system property or JUnit configuration
 * parameter {@code memscope.junit.agentMissing=abort}.
 */
public final class MemscopeExtension implements BeforeTestExecutionCallback, AfterTestExecutionCallback,
        AfterEachCallback {
    /** Where the message sends a user who has no agent. */
    static final String HOW_TO_ADD_THE_AGENT = "with Maven, copy the agent jar into target/ with "
            + "maven-dependency-plugin (goal copy of io.memscope:memscope-agent) and give it to Surefire: "
            + "<argLine>-javaagent:${project.build.directory}/memscope-agent.jar</argLine> (the snippet: docs/api.md, "
            + "\"Adding the agent to Surefire\"); elsewhere, -javaagent:/path/to/memscope-agent.jar on the test JVM's "
            + "command line";
    /** System property / configuration parameter: {@code fail} (default) or {@code abort} without an agent. */
    public static final String AGENT_MISSING = "memscope.junit.agentMissing";

    static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(MemscopeExtension.class);
    private static final String WINDOW = "window";
    private static final String LIMITS = "limits";
    /** In a template's store: its {@link WarmUp}. In an invocation's: whether it is the warm-up, or why not judged. */
    private static final String WARM_UP = "warmUp";
    private static final String NOT_JUDGED = "notJudged";
    /** In the root context's store: this engine run's {@link BudgetCheck.Installed}. */
    static final String INSTALLED_BUDGETS = "installedBudgets";
    /** How long an invocation waits for its template's warm-up invocation. */
    static final int WARM_UP_WAIT_SECONDS = 60;

    /** A test template's warm-up invocation: the first to start; the others wait until it is done. */
    private static final class WarmUp {
        final java.util.concurrent.atomic.AtomicBoolean claimed = new java.util.concurrent.atomic.AtomicBoolean();
        final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    }

    @Override
    public void beforeTestExecution(ExtensionContext context) {
        Limits limits = Limits.of(context);
        if (!limits.any()) {
            return;
        }
        if (limits.noLeaks() != null) {
            awaitWarmUp(context);
        }
        boolean parallel = context.getConfigurationParameter("junit.jupiter.execution.parallel.enabled")
                .map(Boolean::parseBoolean).orElse(false) && !isolated(context);
        long[] sites = null;
        if (limits.maxAllocation() >= 0) {
            AgentClient agent = AgentClient.platform();
            if (agent.isPresent()) {
                sites = AllocationCheck.sites(agent);
            }
        }
        ExtensionContext.Store store = context.getStore(NS);
        store.put(LIMITS, limits);
        BudgetCheck.Installed installed = context.getRoot().getStore(NS).getOrComputeIfAbsent(INSTALLED_BUDGETS,
                k -> new BudgetCheck.Installed(), BudgetCheck.Installed.class);
        store.put(WINDOW, new Window(limits, parallel, sites, installed)); // last: the window starts here
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NS);
        Window w = store.get(WINDOW, Window.class);
        if (w == null) {
            return;
        }
        if (w.currentAtStart >= 0) {
            w.currentAtEnd = ThreadAllocations.current(); // first: the window ends here
        }
        Limits limits = store.get(LIMITS, Limits.class);
        List<String> failures = new ArrayList<>(w.budgets.finish());
        if (limits.maxAllocation() >= 0) {
            if (!ThreadAllocations.supported()) {
                failures.add("@MaxAllocation: this JVM does not count allocated bytes per thread "
                        + "(com.sun.management.ThreadMXBean); HotSpot-based JDKs do");
            } else {
                String m = AllocationCheck.verdict(AllocationCheck.measure(w), limits.maxAllocation(), w,
                        AgentClient.platform());
                if (m != null) {
                    failures.add(m);
                }
            }
        }
        if (!limits.needsAgent()) {
            w.overlaps.close();
        }
        fail(failures);
    }

    /**
     * Under a test template: the first invocation to get here is the warm-up; another waits until the warm-up is
     * done (its {@code afterEach}), so that its test method does not race the warm-up for the first use.
     */
    private static void awaitWarmUp(ExtensionContext context) {
        if (!context.getUniqueId().contains("[test-template-invocation:") || context.getParent().isEmpty()) {
            return;
        }
        WarmUp warmUp = context.getParent().get().getStore(NS).getOrComputeIfAbsent(WARM_UP, k -> new WarmUp(),
                WarmUp.class);
        ExtensionContext.Store store = context.getStore(NS);
        if (warmUp.claimed.compareAndSet(false, true)) {
            store.put(WARM_UP, warmUp);
            return;
        }
        try {
            if (!warmUp.done.await(WARM_UP_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                store.put(NOT_JUDGED, "@NoLeaks could not judge this invocation: the template's warm-up invocation "
                        + "(the first to start) ran for more than " + WARM_UP_WAIT_SECONDS + " s while this one waited "
                        + "for it (invocations that depend on each other, a barrier between repetitions?), so what "
                        + "this one allocated may be the code's warm-up");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            store.put(NOT_JUDGED, "@NoLeaks could not judge this invocation: interrupted while it waited for the "
                    + "template's warm-up invocation");
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        WarmUp warmUp = context.getStore(NS).remove(WARM_UP, WarmUp.class);
        try {
            judgeWhatIsLeft(context, warmUp != null);
        } finally {
            if (warmUp != null) {
                warmUp.done.countDown(); // the template's other invocations may run now
            }
        }
    }

    private void judgeWhatIsLeft(ExtensionContext context, boolean isWarmUp) {
        ExtensionContext.Store store = context.getStore(NS);
        String notJudged = store.remove(NOT_JUDGED, String.class);
        Window w = store.remove(WINDOW, Window.class);
        Limits limits = store.remove(LIMITS, Limits.class);
        if (w == null || !limits.needsAgent()) {
            return;
        }
        long toNanos = System.nanoTime();
        w.overlaps.close();
        AgentClient agent = AgentClient.platform();
        if (!agent.isPresent() || !agent.isRunning()) {
            String what = limits.noLeaks() != null ? "@NoLeaks" : "@MaxNativeMemory";
            String message = what + " needs the memscope agent in the test JVM, and "
                    + (agent.isPresent() ? "its capture has ended" : "none is running (or it runs with jmx=false)")
                    + ". W" + HOW_TO_ADD_THE_AGENT.substring(1) + ".";
            String policy = context.getConfigurationParameter(AGENT_MISSING)
                    .orElse(System.getProperty(AGENT_MISSING, "fail"));
            if (policy.equalsIgnoreCase("abort")) {
                throw new TestAbortedException(message);
            }
            throw new AssertionFailedError(message);
        }
        boolean judgeLeaks = limits.noLeaks() != null && !isWarmUp && notJudged == null;
        boolean judgeNative = limits.maxNative() >= 0;
        // What is held or outstanding before a GC bounds what is after it (a GC and its Cleaners only free): a test
        // within its limits already is not worth a full GC.
        if ((!judgeLeaks || LeakCheck.noLeaks(w, toNanos, limits.noLeaks(), limits.maxRetained(), agent, false) == null)
                && (!judgeNative || !LeakCheck.nativeOver(w, toNanos, limits.maxNative(), agent))) {
            abortUnjudged(notJudged);
            return;
        }
        if (!FullGc.run()) {
            throw new AssertionFailedError("memscope could not force a full GC to judge what the test left behind "
                    + "(System.gc() cleared no weak reference: is -XX:+DisableExplicitGC set, or a collector that never "
                    + "collects, like Epsilon?)");
        }
        List<String> failures = new ArrayList<>();
        if (judgeLeaks) {
            String m = LeakCheck.noLeaks(w, toNanos, limits.noLeaks(), limits.maxRetained(), agent, true);
            if (m != null && !limits.noLeaks().countSoftlyReachable()) {
                // soft-reference caches the test filled are memory the JVM gives back on demand: clear them, judge again
                boolean cleared = fullGcClearingSoftReferences(agent);
                m = LeakCheck.noLeaks(w, toNanos, limits.noLeaks(), limits.maxRetained(), agent, true);
                if (m != null) {
                    m += cleared ? "\nObjects only softly reachable (caches the JVM may drop) were cleared first and "
                            + "are not counted; @NoLeaks(countSoftlyReachable = true) counts them."
                            : "\nObjects only softly reachable could not be told apart (the agent cannot reach the "
                            + "JVM's soft-reference clock): soft-reference caches may be among them.";
                }
            }
            if (m != null) {
                failures.add(m);
            }
        }
        if (judgeNative) {
            String m = LeakCheck.maxNative(w, toNanos, limits.maxNative(), agent);
            if (m != null) {
                failures.add(m);
            }
        }
        fail(failures);
        abortUnjudged(notJudged);
    }

    /** @return whether the test's class (or an enclosing one) is {@code @Isolated}: no other test runs meanwhile */
    private static boolean isolated(ExtensionContext context) {
        for (Class<?> c = context.getTestClass().orElse(null); c != null; c = c.getEnclosingClass()) {
            if (org.junit.platform.commons.support.AnnotationSupport.isAnnotated(c,
                    org.junit.jupiter.api.parallel.Isolated.class)) {
                return true;
            }
        }
        return false;
    }

    /** A full GC that clears unused soft references ({@link AgentClient#fullGcClearingSoftReferences}). */
    private static boolean fullGcClearingSoftReferences(AgentClient agent) {
        try {
            return agent.fullGcClearingSoftReferences();
        } catch (AgentClient.AgentUnavailableException olderAgent) {
            return false;
        }
    }

    /** A leak check that could not judge (it waited too long for the warm-up) says so: the test is aborted. */
    private static void abortUnjudged(String notJudged) {
        if (notJudged != null) {
            throw new TestAbortedException(notJudged);
        }
    }

    private static void fail(List<String> failures) {
        if (!failures.isEmpty()) {
            throw new AssertionFailedError(String.join("\n", failures));
        }
    }
}
