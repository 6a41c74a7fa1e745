package io.memscope.agent;

import io.memscope.agent.boot.BootHooks;
import io.memscope.agent.capture.CaptureSession;
import io.memscope.agent.capture.CaptureSettings;
import io.memscope.agent.instrument.MemscopeTransformer;
import io.memscope.agent.capture.PlatformServerGate;
import io.memscope.agent.capture.ProfilePusher;
import io.memscope.agent.jmx.AgentJmxRegistrar;
import io.memscope.internal.error.Failures;
import io.memscope.launch.AgentOptions;
import io.memscope.launch.AgentPropertyNames;
import io.memscope.launch.FileErrors;
import io.memscope.launch.OutputFolders;
import io.memscope.launch.FunctionPatterns;
import io.memscope.launch.MetadataKeys;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent's life cycle in one JVM: parse options, install the transformer, retransform classes already
 * loaded, start the capture streaming into {@code <out>/<pid>/recording.msrec}; at JVM exit (or after
 * {@code duration}, or on {@code command=detach}) finish the capture, close the recording and restore classes when
 * attached. The agent writes the recording and nothing else: no analysis runs in the application's JVM; the
 * {@code memscope} command builds the report from the recording ({@code run}, {@code attach --duration},
 * {@code detach} after the JVM or the capture ended; {@code report} on demand).
 *
 * <p>Entry points are called by {@code io.memscope.agent.launch.AgentLaunch}. Before anything is instrumented,
 * {@link BootHooks} defines the hook class that instrumented code calls inside {@code java.base}.
 *
 * <p>The two statics are the JVM's: its entry points are static, so the running agent ({@code current}) and the
 * one shutdown hook a JVM gets are found through them; everything else lives in the {@code Agent} object, and an
 * agent stopped by a detach leaves room for the next attach. Classes loaded before the transformer are
 * {@link LoadedClasses}' job.
 */
public final class Agent {
    /** The recording of the capture in the per-JVM output directory (docs/formats/recording.md). */
    public static final String RECORDING = "recording.msrec";
    private static Agent current;
    private static boolean shutdownHookAdded;

    static {
        // The entry point for io.memscope.agent.launch.AgentLaunch (another class loader's class): handed over, not
        // looked up by reflection, which on JDK 18 and later spins method-handle classes at every start.
        Object slot = System.getProperties().get(io.memscope.agent.launch.AgentLaunch.ENTRY_HANDOFF);
        if (slot instanceof Object[] && ((Object[]) slot).length == 1) {
            ((Object[]) slot)[0] = new java.util.function.BiConsumer<String, Object[]>() {
                @Override
                public void accept(String entry, Object[] a) {
                    if (entry.equals("agentmain")) {
                        agentmain((String) a[0], (Instrumentation) a[1]);
                    } else {
                        premain((String) a[0], (Instrumentation) a[1]);
                    }
                }
            };
        }
    }

    private final Instrumentation inst;
    private final AgentOptions options;
    private final boolean attached;
    /** The classes loaded before the transformer, retransformed and restored. */
    private final LoadedClasses loadedClasses;
    private final long pid = io.memscope.agent.capture.ProcessInfo.pid();
    private MemscopeTransformer transformer;
    /** This agent's capture; null once it ended. */
    private CaptureSession session;
    /** Ends the capture after {@code duration} seconds, or null. */
    private Thread durationThread;
    /** Sample mode's heap samples come from the JVM (JVMTI) instead of bytecode hooks. */
    private boolean jvmtiSampler;
    /** Why the JVMTI sampler was not used although asked for (auto or jvmti), or null. */
    private String samplerFallback;
    private Path dir;
    private boolean stopped;

    private Agent(Instrumentation inst, AgentOptions options, boolean attached) {
        this.inst = inst;
        this.options = options;
        this.attached = attached;
        this.loadedClasses = new LoadedClasses(inst, options.jmx());
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        AgentOptions o = AgentOptions.parse(args, System.getenv());
        if (o.errors().isEmpty() && o.command().equals("detach")) {
            Agent a;
            synchronized (Agent.class) {
                a = current;
            }
            if (a == null) {
                System.err.println("memscope agent: detach: not running in this JVM");
            } else {
                a.stop(true);
            }
            return;
        }
        if (o.errors().isEmpty() && o.command().equals("paths")) {
            Agent a;
            synchronized (Agent.class) {
                a = current;
            }
            CaptureSession s = a == null ? null : a.session;
            String what = s == null ? "no heap walk: not running in this JVM"
                    : s.walkHeap(o.pathsMillis(), o.pathsMemory());
            AgentProperties.publish(inst, AgentPropertyNames.PATHS, what);
            return;
        }
        start(args, inst, true);
    }

    private static void start(String args, Instrumentation inst, boolean attached) {
        AgentOptions o = AgentOptions.parse(args, System.getenv());
        if (!o.errors().isEmpty()) {
            String msg = "memscope agent: " + String.join("; ", o.errors()) + ". "
                    + (o.strict() ? "strict=true: the JVM does not start." : "Tracking is OFF for this JVM.")
                    + " (Valid options: see `memscope run --help` or docs/agent.md.)";
            System.err.println(msg);
            if (o.strict()) {
                throw new IllegalArgumentException(msg);
            }
            return;
        }
        if (o.strict() != Failures.isStrict()) {
            Failures.setStrict(o.strict()); // only then: its caller check walks the stack (StackWalker at start-up)
        }
        try {
            BootHooks.install(inst);
        } catch (Exception | LinkageError e) {
            String msg = "memscope agent: cannot define the hook class in java.base (" + e
                    + "); the application runs without memscope";
            System.err.println(msg);
            if (o.strict()) {
                throw new IllegalStateException(msg, e);
            }
            return;
        }
        synchronized (Agent.class) {
            if (current != null && !current.stopped) {
                System.err.println("memscope agent: already running in this JVM (pid " + current.pid + ")");
                return;
            }
            Agent a = new Agent(inst, o, attached);
            try {
                a.begin();
            } catch (Throwable t) {
                // never out of premain/agentmain (that would stop the JVM or the attach) and never half-started
                a.abandon();
                io.memscope.agent.boot.AgentJar.release();
                Failures.report("agent.start", t);
                String msg = "memscope agent: could not start (" + t + "); the application runs without memscope";
                System.err.println(msg);
                printFrames(t.getStackTrace(), 12);
                if (o.strict()) {
                    throw new IllegalStateException(msg, t);
                }
                return;
            }
            current = a;
            io.memscope.agent.boot.AgentJar.release();
            if (o.events()) {
                startRuntimeEvents();
            }
            if (!shutdownHookAdded) {
                shutdownHookAdded = true;
                // Both threads made now: an exit out of memory has no room for a Thread or a class to load.
                Thread end = new Thread(new Runnable() { // no lambda: nothing of java.lang.invoke at the exit
                    @Override
                    public void run() {
                        Agent ending;
                        synchronized (Agent.class) {
                            ending = current;
                        }
                        if (ending != null) {
                            ending.stop(false);
                        }
                    }
                }, "memscope-exit");
                end.setDaemon(true);
                Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
                    @Override
                    public void run() {
                        atExit(end);
                    }
                }, "memscope-shutdown"));
            }
        }
    }

    private void begin() {
        boolean jvmtiWanted = options.sampler() != AgentOptions.Sampler.BYTECODE
                && options.mode() == AgentOptions.Mode.SAMPLE;
        if (options.mode() == AgentOptions.Mode.EXACT && options.sampler() == AgentOptions.Sampler.JVMTI) {
            samplerFallback = "exact mode counts and samples with the bytecode hooks";
        }
        dir = outputDir();
        AgentProperties.publish(inst, AgentPropertyNames.RECORDING, dir.resolve(RECORDING).toString());
        AgentProperties.publish(inst, AgentPropertyNames.RECORDING_ERROR, outputError);
        CaptureSettings settings = new CaptureSettings(options.mode() == AgentOptions.Mode.EXACT,
                options.intervalBytes(), options.stackDepth(), options.nativeMemory(), options.gc(),
                dir.resolve(RECORDING), options.flushMillis(), options.debug(), jvmtiWanted, options.include(),
                options.exclude(), options.includeJdk(), QUEUE_BYTES, options.liveSamples(), options.stackWalk(),
                options.oversample(), options.ownDistances());
        CaptureSession s = new CaptureSession(settings, inst);
        s.extras(!options.functions().isEmpty(), options.gcAtEdges());
        s.seenFromJvmStart(!attached);
        s.endCheck(options.endCheck(), options.endCheckMaxHeap());
        s.paths(options.paths(), options.pathsMillis(), options.pathsMemory());
        s.processMemory(options.processMemoryMillis());
        s.rssDetail(options.rssDetailMillis());
        s.malloc(options.malloc(), options.mallocInterval());
        s.bounds(new io.memscope.agent.capture.TableBounds(options.maxStacks(), options.maxSites(),
                options.maxStrings()));
        s.chunks(chunkPolicy(options, attached));
        session = s;
        if (options.sampler() == AgentOptions.Sampler.BYTECODE || options.mode() == AgentOptions.Mode.EXACT) {
            try {
                BootHooks.installHeapHooks(inst);
            } catch (Exception e) {
                throw new IllegalStateException("cannot define the heap hook class in java.base: " + e, e);
            }
        }
        // Before the application's main, also with the JVM's sampler: a native block the application allocates or
        // frees before Unsafe is instrumented would be missed, and a double free of it not stopped. Before the
        // capture starts: the JVM's sampler would sample this start-up's own allocations.
        instrument(!jvmtiWanted);
        // Anonymous classes, not lambdas, on the start-up path: the first lambda bootstraps java.lang.invoke.
        s.start(new java.util.function.Supplier<Map<String, String>>() {
            @Override
            public Map<String, String> get() {
                if (jvmtiWanted) {
                    samplerChosen(s.samplerFallback());
                }
                return startMetadata();
            }
        });
        // The application's memscope API (scopes, pools...) loaded before the agent: connect it now.
        io.memscope.agent.capture.ApiHooks.connectAll(inst);
        if (!jvmtiSampler && jvmtiWanted) {
            // the JVM's sampler could not start: the bytecode hooks sample instead
            try {
                BootHooks.installHeapHooks(inst);
            } catch (Exception e) {
                throw new IllegalStateException("cannot define the heap hook class in java.base: " + e, e);
            }
            retransformHeapHooks();
        }
        startPush(s);
        if (options.durationSeconds() > 0) {
            Thread t = new Thread(new Runnable() {
                @Override
                public void run() {
                    try {
                        Thread.sleep(options.durationSeconds() * 1000);
                        stop(true);
                    } catch (InterruptedException e) {
                        // stopped before: nothing to do
                    }
                }
            }, "memscope-duration");
            t.setDaemon(true);
            durationThread = t;
            t.start();
        }
        if (!options.quiet()) {
            System.err.println("memscope agent: tracking pid " + pid + " (" + options.mode().name().toLowerCase()
                    + " mode, " + (jvmtiSampler ? "jvmti" : "bytecode") + " sampler, interval " + options.intervalBytes()
                    + " bytes), recording " + dir.resolve(RECORDING));
        }
    }

    /**
     * Starts the push to a Pyroscope server (option {@code push}). A push that cannot start (its authorization file
     * cannot be used) says why on stderr, never with the secret, and the capture runs without it.
     */
    private void startPush(CaptureSession s) {
        if (options.push() == null) {
            return;
        }
        String authorization;
        try {
            authorization = io.memscope.launch.PushAuth.header(System.getenv(), options.pushAuthFile());
        } catch (IllegalArgumentException e) {
            pushError = e.getMessage();
            System.err.println("memscope agent: no push: " + e.getMessage());
            return;
        }
        String name = options.pushName() != null ? options.pushName()
                : pushName(System.getProperty("sun.java.command"));
        pusher = s.startPush(new ProfilePusher.Settings(options.push(), options.pushIntervalMillis(), name,
                options.pushLabels(), options.pushTenant(), authorization));
        if (pusher != null && !options.quiet()) {
            System.err.println("memscope agent: pushing a profile every " + options.pushIntervalMillis() / 1000.0
                    + " s to " + options.push() + "/ingest as " + name);
        }
    }

    /** The push's default application name: the main class, or the jar's name without {@code .jar}; sanitized. */
    static String pushName(String command) {
        String first = command == null || command.isBlank() ? "" : command.trim().split("\\s+")[0];
        if (first.endsWith(".jar")) {
            first = Path.of(first).getFileName().toString();
            first = first.substring(0, first.length() - 4);
        }
        String n = first.replaceAll("[^A-Za-z0-9._-]", "_");
        return n.isEmpty() ? "java" : n;
    }

    /** The running push, or null. */
    private volatile ProfilePusher pusher;
    /** Why the push could not start, or null. */
    private volatile String pushError;

    /** Undoes what a failed {@link #begin} did: heap sampling, hooks and the transformer off, the capture ended. */
    private void abandon() {
        try {
            if (transformer != null) {
                inst.removeTransformer(transformer);
            }
        } catch (Throwable t) {
            Failures.report("agent.start.undo", t);
        }
        try {
            CaptureSession s = session;
            if (s != null) {
                s.finish(Map.of(), false); // stops the JVMTI sampler and the hooks even when the capture never ran
            }
        } catch (Throwable t) {
            Failures.report("agent.start.undo", t);
        }
    }

    /** The JVM sampler's queue (bytes): about 14 000 samples whose stacks were seen before. */
    static final long QUEUE_BYTES = 1 << 20;

    /**
     * Sample mode with {@code sampler=auto|jvmti}: the JVM's own heap sampler (JVMTI) replaces the allocation hooks
     * unless it could not start (no library for this platform, no JVMTI 11, a JVMTI error); then the bytecode sampler
     * runs instead and the reason goes into the report's metadata ({@code samplerFallback}). A failure of the library
     * on Linux x86_64, or any fallback from an explicit {@code sampler=jvmti}, is also counted as a failure (thrown
     * with {@code strict=true}). Exact mode counts with the bytecode hooks and samples with them too.
     *
     * @param why null when the JVM's sampler runs
     */
    private void samplerChosen(String why) {
        jvmtiSampler = why == null;
        if (jvmtiSampler) {
            samplerFallback = null;
        }
        if (why == null) {
            return;
        }
        samplerFallback = why;
        // Not failures: a platform without the library, an interval the JVM cannot take.
        boolean unsupported = why.startsWith("no JVMTI sampler library for") || why.startsWith("interval ");
        if (options.sampler() == AgentOptions.Sampler.JVMTI || !unsupported) {
            Failures.report("agent.jvmti.start", new IllegalStateException(why));
        }
        if (!options.quiet() || options.sampler() == AgentOptions.Sampler.JVMTI) {
            System.err.println("memscope agent: " + why + "; using the bytecode sampler");
        }
    }

    /**
     * Starts runtime events and the JFR bridge ({@code events=true} or {@code MEMSCOPE_EVENTS_START=1}) in a daemon
     * thread: JFR's start-up takes a while and must not delay the application's main.
     */
    private static void startRuntimeEvents() {
        Thread t = new Thread(() -> {
            try {
                io.memscope.events.jvm.JvmRuntimeEvents.start();
            } catch (Throwable e) {
                Failures.report("agent.events", e);
            }
        }, "memscope-events-start");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Installs the transformer (native memory hooks, the bytecode heap hooks, the platform MBean server hook),
     * retransforms what was loaded before it, and arms the MXBean's registration. Skipped when the capture has ended
     * before it ran (a program shorter than the background thread's start).
     */
    private void instrument(boolean heapHooks) {
        MemscopeTransformer t;
        synchronized (this) {
            if (stopped) {
                return;
            }
            t = newTransformer(heapHooks);
            transformer = t;
            if (options.jmx()) {
                PlatformServerGate.arm(new AgentJmxRegistrar(session,
                        options.mode().name().toLowerCase(java.util.Locale.ROOT), options.intervalBytes(), attached),
                        null);
            }
            if (options.nativeMemory() || t.transformsNewClasses()) {
                inst.addTransformer(t, true);
            }
        }
        Object platformServer = loadedClasses.retransformLoaded(t);
        if (platformServer != null) {
            PlatformServerGate.ready(platformServer);
        }
    }

    /** @return a transformer as the options ask, with or without the bytecode heap hooks */
    private MemscopeTransformer newTransformer(boolean heapHooks) {
        MemscopeTransformer t = new MemscopeTransformer(inst, options.include(), options.exclude(),
                options.includeJdk(), options.nativeMemory(), heapHooks, options.jmx(),
                FunctionPatterns.parse(options.functions()));
        if (options.push() != null) {
            t.hookOpenTelemetryContext(); // the push's span labels
        }
        return t;
    }

    /** The JVM's sampler could not start: replaces the transformer by one with the heap hooks, for every class. */
    private void retransformHeapHooks() {
        MemscopeTransformer old;
        MemscopeTransformer t;
        synchronized (this) {
            if (stopped) {
                return;
            }
            old = transformer;
            t = newTransformer(true);
            transformer = t;
            inst.addTransformer(t, true);
            if (old != null) {
                inst.removeTransformer(old);
            }
        }
        loadedClasses.retransformForHeapHooks(t);
    }

    /**
     * How long the JVM's exit waits at most for the capture's end and the recording's close. Past it the JVM exits and
     * the recording stays readable up to its last complete block: the end must never hold the host's exit (a drain
     * thread stuck in long work once held it for hours).
     */
    static final long EXIT_DEADLINE_MILLIS = 30_000;

    /** The shutdown hook: {@code end} (made with the hook, not started) ends the capture, joined up to the deadline. */
    private static void atExit(Thread end) {
        Agent a;
        synchronized (Agent.class) {
            a = current;
        }
        if (a == null) {
            return;
        }
        CaptureSession s = a.session;
        if (s != null) {
            s.releaseReserve(); // before anything else allocates: the JVM may be out of memory
        }
        try {
            end.start();
        } catch (Throwable noThread) { // out of memory or of threads: the end on this thread, unbounded
            a.stop(false);
            return;
        }
        try {
            end.join(EXIT_DEADLINE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (end.isAlive()) {
            System.err.println("memscope agent: the recording was not finished within " + EXIT_DEADLINE_MILLIS / 1000
                    + " s of the JVM's exit; the JVM exits now, and the recording in " + a.dir
                    + " is readable up to its last complete block. The capture's end was at:");
            printFrames(end.getStackTrace(), 16);
        }
    }

    /**
     * Finishes the capture and closes its recording; with {@code restore}, also undoes the instrumentation. Builds no
     * report: that happens outside the JVM, from the recording.
     */
    void stop(boolean restore) {
        MemscopeTransformer transformer;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            transformer = this.transformer;
        }
        try {
            Map<String, String> meta = new LinkedHashMap<>();
            try {
                if (transformer != null) {
                    meta.put("instrumentedClasses", Integer.toString(transformer.transformedClasses().size()));
                    meta.put("classesSkippedOnError", Long.toString(transformer.skipped()));
                    meta.put("methodsTooLarge", Long.toString(transformer.tooLarge()));
                    meta.put("functions.methods", Long.toString(transformer.profiledMethods()));
                }
            } catch (Throwable t) {
                // out of memory at the end, most likely: the recording is closed without these figures
            }
            ProfilePusher p = pusher;
            if (p != null) {
                p.stop(); // no last push: nothing more at the JVM's exit
                meta.putAll(p.metadata());
            } else if (pushError != null) {
                meta.put("push.lastError", pushError);
            }
            if (transformer != null) {
                inst.removeTransformer(transformer);
            }
            PlatformServerGate.disarm();
            Thread duration = durationThread;
            if (duration != null && duration != Thread.currentThread()) {
                duration.interrupt(); // a detach before the duration ended: its thread ends now
            }
            CaptureSession ended = session;
            Path recording = ended == null ? null : ended.finish(meta, options.gcAtEnd());
            session = null; // the ended capture's state goes with it (this agent stays reachable from a static)
            if (restore) {
                loadedClasses.restore(transformer);
            }
            if (recording != null && (!options.quiet() || options.summary())) {
                System.err.println("memscope agent: recording closed: " + recording + " (the report: memscope report "
                        + dir + ")");
            }
        } catch (Throwable t) {
            try {
                System.err.println("memscope agent: could not finish the recording: " + t);
                printFrames(t.getStackTrace(), 8);
            } catch (Throwable noRoom) {
                try { // a constant: nothing to allocate for the text
                    System.err.println("memscope agent: could not finish the recording (no memory left to say why)");
                } catch (Throwable ignored) {
                    // not even that
                }
            }
        }
    }

    /** Prints the first {@code max} frames of {@code where} on stderr, one line each. */
    private static void printFrames(StackTraceElement[] where, int max) {
        for (int i = 0; i < Math.min(where.length, max); i++) {
            System.err.println("memscope agent:     at " + where[i]);
        }
    }

    /** A capture attached to a running JVM is bounded unless told otherwise: {@value}. */
    static final long ATTACH_MAX_SIZE = 1L << 30;
    /** ... and {@value} ms (24 h). */
    static final long ATTACH_MAX_AGE_MILLIS = 24 * 3_600_000L;

    /**
     * The recording's chunks and bounds: as the options say; a capture attached to a running JVM (which may run for
     * weeks) gets {@code maxSize=1g,maxAge=24h} when no bound is given; a capture from the JVM's start without any
     * chunk option writes one file.
     */
    static io.memscope.internal.recording.ChunkPolicy chunkPolicy(AgentOptions options, boolean attached) {
        long maxSize = options.maxSizeBytes();
        long maxAge = options.maxAgeMillis();
        if (attached && maxSize == 0 && maxAge == 0) {
            maxSize = ATTACH_MAX_SIZE;
            maxAge = ATTACH_MAX_AGE_MILLIS;
        } else if (!options.chunked()) {
            return null;
        }
        return io.memscope.internal.recording.ChunkPolicy.of(maxSize, maxAge * 1_000_000L, options.chunkSizeBytes(),
                options.chunkAgeMillis() * 1_000_000L);
    }

    /** Metadata known when the capture starts (written at the head of the recording). */
    private Map<String, String> startMetadata() {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(MetadataKeys.PID, Long.toString(pid));
        meta.put(MetadataKeys.JAVA_VERSION, System.getProperty("java.version"));
        String cmd = options.recordedCommandLine(System.getProperty("sun.java.command"));
        if (cmd != null) {
            meta.put(MetadataKeys.COMMAND, cmd);
        }
        meta.put("attached", Boolean.toString(attached));
        meta.put("sampler", jvmtiSampler ? "jvmti" : "bytecode");
        if (samplerFallback != null) {
            meta.put("samplerFallback", samplerFallback);
        }
        for (Map.Entry<String, String> e : options.raw().entrySet()) {
            meta.put(MetadataKeys.OPTION_PREFIX + e.getKey(), e.getValue());
        }
        return meta;
    }

    /**
     * This capture's folder, {@code <out>/<pid>}, created now, exclusively and private (mode 0700): a folder that
     * exists already under that name (an earlier capture's, or one someone else made in advance) is never reused,
     * {@code <pid>-2} is taken instead. When it cannot be made (an output folder that cannot be created, another
     * user's, or writable by others), the capture runs anyway: the recording then cannot be opened and says why.
     */
    private Path outputDir() {
        Path base = options.out().toAbsolutePath();
        try {
            outputError = null;
            return OutputFolders.newFolder(OutputFolders.outputFolder(base), Long.toString(pid));
        } catch (Exception e) {
            outputError = FileErrors.reason(e) + " (this JVM runs as "
                    + System.getProperty("user.name") + ")";
            return base.resolve(Long.toString(pid));
        }
    }

    /** Why {@link #outputDir} could not make this capture's folder, or null. */
    private String outputError;
}
