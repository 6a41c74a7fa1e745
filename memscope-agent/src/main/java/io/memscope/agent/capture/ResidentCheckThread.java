package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import io.memscope.recording.Recording.ProcessMemorySamples;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The resident check ({@link SmapsResidentCheck}) on a daemon thread of its own, {@code memscope-resident}. A pass
 * reads the whole of {@code /proc/self/smaps}, which the kernel writes by walking the page tables of every mapping:
 * about 150 ms of CPU at an 8 GiB resident heap, up to a second of wall time on a loaded machine. On the capture's
 * background thread that time delayed the process samples, the sampler's drains and the recording's flushes; here it
 * delays nothing but this thread's next pass. The process sampler copies the latest pass's figures into each of its
 * samples ({@link #figures}).
 *
 * <p><b>What it allocates.</b> Once, at its first pass, the heap's reserved range and the code heaps' bounds from
 * the JVM's diagnostic commands {@code GC.heap_info} and {@code Compiler.codecache} (about 0.5 MB of short-lived text
 * and the JDK's command bean); after that nothing: each pass rereads the file it keeps open through one 8 KiB buffer.
 * Its allocations are memscope's own (the thread is marked busy for the bytecode sampler; the JVM sampler knows its
 * frames as memscope's).
 *
 * <p><b>When it does not run, or runs less.</b> It is off, with the reason in {@code processMemory.rssDetailOff}:
 * when the heap is smaller than {@value #MIN_HEAP_MIB} MiB (a program that lives in a heap that small lives near its
 * limit: the set-up's half megabyte, or the 8 KiB buffer kept, could be the allocation that fails it; the committed
 * figures are close to the resident ones there anyway), when the file cannot be read, or when the set-up failed. It
 * runs less often when a pass costs much: the next pass is at least {@value #WALL_BUDGET} times the last one's wall
 * time and {@value #CPU_BUDGET} times its CPU time later (at most 1% of a core, and the kernel's hold of the memory
 * map's lock for reading at most 5% of the time); each pass spaced out beyond the interval is counted
 * ({@code processMemory.rssDetailStretched}) and the latest reason kept ({@code processMemory.rssDetailStretch}).
 *
 * <p><b>Passes on request.</b> Figures as old as the interval are stale where the resident set grows fast (a short
 * run's peak, a burst of direct buffers): the process sampler asks for a pass when the resident set changed since the
 * latest one ({@link #request}); it runs without waiting for the interval, {@value #REQUEST_CPU_BUDGET} times the last
 * pass's CPU time after it and at least {@value #MIN_REQUEST_SPACING_MILLIS} ms (at most 4% of a core, and only while
 * the resident set keeps changing: the sampler asks once per pass, when the resident set changed by a few percent
 * since it). Its wall time does not space requested passes out: on a loaded machine it is mostly time spent waiting
 * for a core (a pass of 6 ms of CPU took 560 ms at a load of 17 on 2 cores), which would keep the figures at a peak
 * seconds old; its CPU time is the kernel's walk of the page tables, while the memory map's lock is held. The
 * capture's end asks for one more and waits for it a bounded time ({@link #passNow}), so that the run's last figures
 * are fresh.
 * Each pass's time is kept beside its figures ({@link #figures}), so that a report says how old they are.
 *
 * <p>Thread-safe: the thread writes its figures and counters under this object's lock; the process sampler reads
 * the figures at each sample and the counters at the capture's end. {@link #stop} never waits: a pass under way
 * ends on its own and the thread then closes the file (a daemon thread: the JVM's exit does not wait for it).
 */
final class ResidentCheckThread implements Runnable {
    /** Below this maximum heap ({@code -Xmx}) the check is off. */
    static final long MIN_HEAP_MIB = 32;
    /** The next pass waits at least this many times the last one's wall time, and its CPU time. */
    static final long WALL_BUDGET = 20, CPU_BUDGET = 100;
    /** A requested pass runs at least this long after the previous one... */
    static final long MIN_REQUEST_SPACING_MILLIS = 50;
    /** ...and this many times its CPU time. */
    static final long REQUEST_CPU_BUDGET = 25;
    /**
     * The capture's end does not ask for a pass when the last one took more CPU time than this (an 8 GiB resident heap
     * takes about 150 ms), or this wall time when the JVM does not measure CPU time.
     */
    static final long END_PASS_MAX_MILLIS = 50;

    private final long intervalNanos;
    private final long[] stackSizes;
    private final java.lang.instrument.Instrumentation inst;
    private final String smaps;
    private volatile boolean running = true;
    private volatile Thread thread;
    /** A pass was asked for ({@link #request}) and has not started yet. */
    private volatile boolean requested;
    /** The latest pass's wall and CPU time (the thread's own). */
    private long passWall, passCpu;
    /** The thread's clock (the pass's CPU time), or null when the JVM has none. */
    private volatile ThreadMXBean threadBean;

    // the latest figures and the counters: under this object's lock
    private long heapResident = ProcessMemorySamples.UNKNOWN;
    private long codeResident = ProcessMemorySamples.UNKNOWN;
    private long stacksResident = ProcessMemorySamples.UNKNOWN;
    private long stacksMatched = ProcessMemorySamples.UNKNOWN;
    /** When the latest pass's figures were measured ({@code System.nanoTime()} at the pass's middle). */
    private long passNanos;
    private long lastWallNanos;
    private long lastCpuNanos;
    private long passes;
    private long requestedPasses;
    private String endPass;
    private long failures;
    private long cpuNanos;
    private long setUpCpuNanos;
    private long maxCpuNanos;
    private long maxWallNanos;
    private long stretched;
    private long stretchWallNanos;
    private long stretchCpuNanos;
    private long stretchSpacingNanos;
    private String off;
    private String firstFailure;

    /**
     * @param intervalMillis how often to run a pass ({@code rssDetail}), at least
     * @param stackSizes     the configured stack sizes in bytes ({@code ThreadStackSize}, {@code CompilerThreadStackSize},
     *                       {@code VMThreadStackSize}; 0 entries ignored)
     * @param inst           to open the JDK's diagnostic command bean to the agent (else the heap's and code cache's
     *                       ranges are unknown and stay committed figures)
     * @param smaps          the file ({@code /proc/self/smaps})
     */
    ResidentCheckThread(long intervalMillis, long[] stackSizes, java.lang.instrument.Instrumentation inst,
                        String smaps) {
        this.intervalNanos = intervalMillis * 1_000_000L;
        this.stackSizes = stackSizes.clone();
        this.inst = inst;
        this.smaps = smaps;
    }

    /**
     * Starts the thread, or says why not ({@link #metadata}).
     *
     * @param maxHeapBytes the heap's maximum ({@link Runtime#maxMemory()})
     */
    ResidentCheckThread start(long maxHeapBytes) {
        if (maxHeapBytes < MIN_HEAP_MIB << 20) {
            synchronized (this) {
                off = "the heap is too small (at most " + (maxHeapBytes >> 20) + " MiB, below " + MIN_HEAP_MIB
                        + " MiB): the heap, the code cache and the stacks stay committed figures";
            }
            return this;
        }
        try {
            ThreadMXBean b = ManagementFactory.getThreadMXBean();
            threadBean = b.isCurrentThreadCpuTimeSupported() && b.isThreadCpuTimeEnabled() ? b : null;
            Thread t = new Thread(this, "memscope-resident");
            t.setDaemon(true);
            thread = t;
            t.start();
        } catch (Throwable t) {
            turnOff("cannot start its thread: " + t, t);
        }
        return this;
    }

    /** Ends the thread after its pass under way, if any; never waits. */
    void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void run() {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true; // its allocations are memscope's
        }
        SmapsResidentCheck check = null;
        try {
            long cpu0 = cpu();
            check = setUp();
            synchronized (this) {
                setUpCpuNanos = cpu() - cpu0;
                cpuNanos += setUpCpuNanos;
            }
            long next = System.nanoTime(); // the next pass of the interval
            long earliest = next; // the next pass the cost budget allows, requested or not
            while (running) {
                boolean asked = requested;
                long wait = (asked ? earliest : next) - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(this, wait); // a request unparks it to wait for the budget only
                    continue;
                }
                requested = false; // a request during the pass asks for the next one
                pass(check, asked && next - System.nanoTime() > 0);
                long now = System.nanoTime();
                earliest = now + Math.max(MIN_REQUEST_SPACING_MILLIS * 1_000_000L, REQUEST_CPU_BUDGET * passCpu);
                next = now + Math.max(intervalNanos, Math.max(WALL_BUDGET * passWall, CPU_BUDGET * passCpu));
            }
        } catch (Throwable t) {
            turnOff("failed: " + t, t);
        } finally {
            if (check != null) {
                check.close();
            }
        }
    }

    /** The JVM's ranges of the heap and the code heaps, asked once. */
    private SmapsResidentCheck setUp() {
        java.lang.invoke.MethodHandle dcmd = diagnosticCommands(inst);
        return new SmapsResidentCheck(diagnosticCommand(dcmd, "GC.heap_info"),
                diagnosticCommand(dcmd, "Compiler.codecache"), stackSizes, smaps);
    }

    /**
     * One pass; a failed one is counted, and the check is turned off after the first pass failed to read the file at
     * all (no /proc, or no smaps in it). Its wall and CPU time are left in {@link #passWall} and {@link #passCpu}.
     *
     * @param requested whether the pass runs on request, before the interval's next
     */
    private void pass(SmapsResidentCheck check, boolean requested) {
        long wall0 = System.nanoTime();
        long cpu0 = cpu();
        boolean ok;
        try {
            check.run();
            ok = true;
        } catch (Throwable t) {
            ok = false;
            check.close(); // the next pass opens the file afresh
            synchronized (this) {
                failures++;
                if (firstFailure == null) {
                    firstFailure = String.valueOf(t);
                }
            }
            if (passes == 0) {
                running = false;
                turnOff("cannot read " + smaps + ": " + t, null);
            }
            Failures.report("agent.processMemory.resident", t); // last: in strict mode (tests) it throws
        }
        long cpu = cpu() - cpu0;
        long wall = System.nanoTime() - wall0;
        long spacing = Math.max(WALL_BUDGET * wall, CPU_BUDGET * cpu);
        synchronized (this) {
            if (ok) {
                heapResident = check.knowsHeap() ? check.heapResident : ProcessMemorySamples.UNKNOWN;
                codeResident = check.knowsCode() ? check.codeResident : ProcessMemorySamples.UNKNOWN;
                stacksResident = check.stacksResident;
                stacksMatched = check.stacksMatched;
                passNanos = wall0 + wall / 2;
                passes++;
                if (requested) {
                    requestedPasses++;
                }
            }
            lastWallNanos = wall;
            lastCpuNanos = cpu;
            cpuNanos += cpu;
            maxCpuNanos = Math.max(maxCpuNanos, cpu);
            maxWallNanos = Math.max(maxWallNanos, wall);
            if (spacing > intervalNanos) {
                stretched++;
                stretchWallNanos = wall;
                stretchCpuNanos = cpu;
                stretchSpacingNanos = spacing;
            }
            notifyAll(); // passNow
        }
        passWall = wall;
        passCpu = cpu;
    }

    /**
     * Asks for a pass as soon as the cost budget allows, before the interval's next (never blocks: a volatile write
     * and an unpark; a pass under way or already asked for is not asked again).
     */
    void request() {
        if (requested) {
            return;
        }
        requested = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Asks for a pass now and waits for it at most {@code timeoutNanos}: the capture's end, so that the run's last
     * figures are fresh. Skipped when the check is off, has not made its first pass yet (its set-up, tens of ms, would
     * hold a short program's exit) or a pass costs much (the last one took more than {@value #END_PASS_MAX_MILLIS} ms
     * of CPU): a JVM's exit does no heavy work. What happened is kept
     * ({@code processMemory.rssDetailEndPass}).
     *
     * @return whether a pass ended meanwhile
     */
    boolean passNow(long timeoutNanos) {
        long start = System.nanoTime();
        synchronized (this) {
            if (thread == null || !running || off != null) {
                endPass = "skipped: the check is off";
                return false;
            }
            if (passes + failures == 0) { // still setting up: waiting would hold a short program's exit
                endPass = "skipped: the check had not made its first pass";
                return false;
            }
            long cost = threadBean != null ? lastCpuNanos : lastWallNanos;
            if (cost > END_PASS_MAX_MILLIS * 1_000_000L) {
                endPass = "skipped: the last pass took " + millis(cost) + " ms" + (threadBean != null ? " of CPU" : "");
                return false;
            }
        }
        long before;
        synchronized (this) {
            before = passes + failures;
        }
        requested = true;
        LockSupport.unpark(thread);
        synchronized (this) {
            long left = timeoutNanos;
            while (passes + failures == before && left > 0 && running) {
                try {
                    wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // kept for the caller
                    break;
                }
                left = timeoutNanos - (System.nanoTime() - start);
            }
            boolean done = passes + failures > before;
            endPass = done ? "done in " + millis(System.nanoTime() - start) + " ms"
                    : "not done: no pass ended within " + millis(timeoutNanos) + " ms";
            return done;
        }
    }

    private long cpu() {
        ThreadMXBean b = threadBean;
        return b == null ? 0 : b.getCurrentThreadCpuTime();
    }

    /**
     * Copies the latest pass's figures into {@code into} from {@code at}: heap, code cache and stacks resident, and
     * the stacks recognised; unknown before the first pass and when off.
     *
     * @return when that pass measured them ({@code System.nanoTime()}), or {@link Long#MIN_VALUE} before the first
     */
    synchronized long figures(long[] into, int at) {
        into[at] = heapResident;
        into[at + 1] = codeResident;
        into[at + 2] = stacksResident;
        into[at + 3] = stacksMatched;
        return passes > 0 ? passNanos : Long.MIN_VALUE;
    }

    /** @return whether a pass gave figures (the parts are then resident ones) */
    synchronized boolean passed() {
        return passes > 0;
    }

    /** @return the thread's CPU time so far (its set-up and its passes), 0 when the JVM does not measure it */
    synchronized long cpuNanos() {
        return cpuNanos;
    }

    /** @return whether the CPU times are measured (or none was spent: the thread never started) */
    boolean cpuMeasured() {
        return threadBean != null || thread == null;
    }

    /** The check's figures for the recording's metadata at the end. */
    synchronized void metadata(Map<String, String> into) {
        into.put("processMemory.rssDetailPasses", Long.toString(passes));
        into.put("processMemory.rssDetailRequestedPasses", Long.toString(requestedPasses));
        if (endPass != null) {
            into.put("processMemory.rssDetailEndPass", endPass);
        }
        into.put("processMemory.rssDetailFailures", Long.toString(failures));
        boolean measured = cpuMeasured();
        into.put("processMemory.rssDetailCpuNanos", measured ? Long.toString(cpuNanos) : "unknown");
        into.put("processMemory.rssDetailSetUpCpuNanos", measured ? Long.toString(setUpCpuNanos) : "unknown");
        into.put("processMemory.rssDetailMaxCpuNanos", measured ? Long.toString(maxCpuNanos) : "unknown");
        into.put("processMemory.rssDetailMaxWallNanos", Long.toString(maxWallNanos));
        into.put("processMemory.rssDetailStretched", Long.toString(stretched));
        if (stretched > 0) {
            into.put("processMemory.rssDetailStretch", "the last pass spaced out took " + millis(stretchWallNanos)
                    + " ms (wall), " + (measured ? millis(stretchCpuNanos) + " ms of CPU" : "CPU unknown")
                    + ": the next waited " + millis(stretchSpacingNanos) + " ms instead of " + millis(intervalNanos)
                    + " (" + WALL_BUDGET + " times its wall time, " + CPU_BUDGET + " times its CPU time)");
        }
        if (off != null) {
            into.put("processMemory.rssDetailOff", off);
        }
        if (firstFailure != null) {
            into.put("processMemory.rssDetailFirstFailure", firstFailure);
        }
    }

    private static String millis(long nanos) {
        return Long.toString(nanos / 1_000_000L);
    }

    private void turnOff(String why, Throwable t) {
        try {
            synchronized (this) {
                if (off == null) {
                    off = why;
                }
            }
            if (t != null) {
                Failures.report("agent.processMemory.resident", t);
            }
        } catch (Throwable ignored) {
            // out of memory: the reason is lost, the thread ends all the same
        }
    }

    /**
     * The JVM's diagnostic commands, run as a command line ({@code executeDiagnosticCommand} of the JDK's diagnostic
     * command MBean, bound to it), taken from the JDK directly: the platform MBean server would register every
     * platform bean, the buffer pools' among them, and the MBean's own operations would first describe every command
     * (JFR's among them, which read their configuration files): both load the file channel classes into every JVM.
     * Null when the JDK does not have it where expected (then the heap's and code cache's figures stay committed).
     */
    private static java.lang.invoke.MethodHandle diagnosticCommands(java.lang.instrument.Instrumentation inst) {
        try {
            Class<?> impl = Class.forName("com.sun.management.internal.DiagnosticCommandImpl");
            if (inst != null) {
                inst.redefineModule(impl.getModule(), java.util.Set.of(), Map.of(),
                        Map.of("com.sun.management.internal", java.util.Set.of(ResidentCheckThread.class.getModule())),
                        java.util.Set.of(), Map.of());
            }
            java.lang.reflect.Method get = impl.getDeclaredMethod("getDiagnosticCommandMBean");
            get.setAccessible(true);
            Object bean = get.invoke(null);
            if (bean == null) {
                return null;
            }
            java.lang.reflect.Method run = impl.getDeclaredMethod("executeDiagnosticCommand", String.class);
            run.setAccessible(true);
            return java.lang.invoke.MethodHandles.lookup().unreflect(run).bindTo(bean);
        } catch (Throwable t) {
            Failures.report("agent.processMemory.resident", t);
            return null;
        }
    }

    /** The text of a diagnostic command ({@code GC.heap_info}, {@code Compiler.codecache}), or null. */
    private static String diagnosticCommand(java.lang.invoke.MethodHandle dcmd, String command) {
        if (dcmd == null) {
            return null;
        }
        try {
            return (String) dcmd.invoke(command);
        } catch (Throwable t) {
            Failures.report("agent.processMemory.resident", t);
            return null;
        }
    }
}
