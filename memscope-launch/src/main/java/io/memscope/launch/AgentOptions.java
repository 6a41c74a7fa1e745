package io.memscope.launch;

import static io.memscope.launch.OptionValues.bool;
import static io.memscope.launch.OptionValues.labels;
import static io.memscope.launch.OptionValues.number;
import static io.memscope.launch.OptionValues.parseBytes;
import static io.memscope.launch.OptionValues.parseDurationMillis;
import static io.memscope.launch.OptionValues.prefixes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's options, from the agent argument string ({@code key=value,key=value}) and {@code MEMSCOPE_*}
 * environment variables; the argument string wins. Every option is listed in {@link #HELP} (which
 * {@code memscope run --help} prints) and in docs/agent.md.
 *
 * <p>Parsing never throws: problems are collected in {@link #errors()}; the agent then starts with tracking off
 * (or fails the JVM start when {@code strict=true}). Where the texts come from, and which wins, is
 * {@link OptionSources}'s job.
 *
 * <p>Long for a reason: it is the one table of the agent's options, each with its help line, its environment
 * variable, its field with the default, its case in {@link #apply} and its accessor, next to each other so that an
 * option is added or read in one place. How a value is parsed (sizes, durations, booleans, numbers, lists) is
 * {@link OptionValues}'s job.
 */
public final class AgentOptions {
    /** One line per option: name, environment variable, meaning, default. */
    public static final String[] HELP = {
        "mode=sample|exact      MEMSCOPE_MODE         sample: Poisson sampling by bytes per thread (default); exact: "
            + "also count every allocation per site",
        "sampler=KIND           MEMSCOPE_SAMPLER      sample mode's heap sampler, auto|jvmti|bytecode: jvmti = "
            + "the JVM's own allocation sampler (JVMTI SampledObjectAlloc; sees JDK-internal allocations, lowest "
            + "overhead; Linux x86_64), bytecode = hooks after each allocation instruction; auto = jvmti when its library loads (default auto)",
        "interval=BYTES         MEMSCOPE_INTERVAL     mean sampling interval, e.g. 524288, 512k, 1m (default 512k)",
        "include=P1;P2          MEMSCOPE_INCLUDE      only track allocations by classes whose name starts with one of "
            + "these package prefixes (jvmti: the sample's site class; bytecode: the instrumented classes) "
            + "(default: all application classes)",
        "exclude=P1;P2          MEMSCOPE_EXCLUDE      never track allocations by classes starting with these prefixes",
        "includeJdk=true|false  MEMSCOPE_INCLUDE_JDK  also instrument JDK classes (java.util, java.io, java.nio, "
            + "java.text, java.time, java.math, java.net, StringBuilder) (default false)",
        "native=true|false      MEMSCOPE_NATIVE       track direct ByteBuffers, Unsafe and FFM arena memory (default true)",
        "gc=true|false          MEMSCOPE_GC           record GC collections (default true)",
        "stackDepth=N           MEMSCOPE_STACK_DEPTH  frames kept per sampled stack, 0 = none (default 64)",
        "out=DIR                MEMSCOPE_OUT          output directory; each JVM writes DIR/<pid>/ (default "
            + "./memscope-out, or ~/memscope-out when others can write in the current directory)",
        "duration=SECONDS       MEMSCOPE_DURATION     stop and close the recording after this many seconds "
            + "(default: at JVM exit)",
        "summary=true|false     MEMSCOPE_SUMMARY      obsolete: reports are built outside the JVM (memscope run, "
            + "memscope report DIR); true prints where the recording is even when quiet (default false)",
        "quiet=true|false       MEMSCOPE_QUIET        no start-up line on stderr (default false)",
        "flush=MILLIS           MEMSCOPE_FLUSH        move captured events from memory into the recording this "
            + "often (default 1000; also whenever 65536 events are waiting)",
        "jmx=true|false         MEMSCOPE_JMX          register the io.memscope:type=Agent MXBean (live and "
            + "allocated bytes per site, read by `memscope live`) (default true)",
        "debug=true|false       MEMSCOPE_DEBUG        print one line per flush on stderr (events moved, events "
            + "and bytes held in memory) (default false)",
        "strict=true|false      MEMSCOPE_STRICT       invalid options and internal failures stop the JVM instead of "
            + "being reported (default false)",
        "events=true|false      MEMSCOPE_EVENTS_START runtime event rings: GC pauses, phases, heap, threads in "
            + "<pid>.events for memscope events/trace (1 = true; default false)",
        "functions=P1;P2        MEMSCOPE_FUNCTIONS    function profile: methods to time and measure per call site, "
            + "as pkg.Class.method, pkg.Class.* or pkg.** (default: none)",
        "gcAtEdges=true|false   MEMSCOPE_GC_AT_EDGES  a full GC when the capture starts and when it ends (implies "
            + "gcAtEnd; default false)",
        "endCheck=gc|off        MEMSCOPE_END_CHECK    at the end of the capture, confirm what is still reachable: "
            + "a collection of the whole heap (gc), so that held memory at the end is reachable memory; off: the "
            + "capture ends at once and memory no whole-heap collection judged stays unconfirmed (default gc)",
        "endCheckMaxHeap=SIZE   MEMSCOPE_END_CHECK_MAX_HEAP  skip the end check when more heap than this is in use "
            + "(its pause grows with the heap; the report says it was skipped) (default 8g)",
        "gcAtEnd=true|false     MEMSCOPE_GC_AT_END    obsolete: endCheck=gc (true) or endCheck=off (false)",
        "liveSamples=N          MEMSCOPE_LIVE_SAMPLES sampled objects watched for collection at most (JVM "
            + "sampler); beyond it samples count as allocated, never as held (default 262144)",
        "maxStacks=N            MEMSCOPE_MAX_STACKS   stacks whose frames the agent keeps in memory at most; "
            + "beyond it stacks already in the recording are evicted, counted as bounds.stacksEvicted (default 65536)",
        "maxSites=N             MEMSCOPE_MAX_SITES    allocation sites the JVM's site table holds at most; beyond it "
            + "new sites are recorded as one site '(sites beyond the bound)', counted as bounds.sitesRefused "
            + "(default 131072)",
        "maxStrings=N           MEMSCOPE_MAX_STRINGS  names (threads, types, frames) a capture holds at most; beyond "
            + "it new names read '(names beyond the bound)', counted as bounds.stringsRefused (default 262144)",
        "commandLine=masked|full|off MEMSCOPE_COMMAND_LINE the program's command line in the recording: values "
            + "of arguments that look like secrets masked (default), as given, or not recorded",
        "secrets=W1;W2          MEMSCOPE_SECRETS      words that make an argument a secret to mask (default "
            + "password;passwd;pwd;secret;token;key;credential;auth;private)",
        "stackWalk=on|off|check MEMSCOPE_STACK_WALK   JVM sampler: name a sample's stack by walking the thread's "
            + "frames and reuse an earlier JVMTI answer for it (on, checked against JVMTI every 1024th time), always "
            + "ask JVMTI (off), or compare every reused answer with JVMTI's (check) (default on)",
        "oversample=auto|N      MEMSCOPE_OVERSAMPLE   JVM sampler: ask the JVM for a sample every interval/N bytes "
            + "and keep each with the probability that leaves one per interval, so that its errors around "
            + "allocations outside TLABs shrink N-fold (auto: 16 on JDK 24 and older, whose sampler has them; 1 on "
            + "JDK 25 and newer; default auto)",
        "jvmDistances=own|jvm   MEMSCOPE_JVM_DISTANCES JVM sampler: memscope draws each thread's distance to its "
            + "next sample (own), or leaves it to the JVM, whose draws repeat for threads started at a reused "
            + "address (jvm) (default own)",
        "paths=true|false       MEMSCOPE_PATHS        JVM sampler: at the end of the capture, walk the heap from the "
            + "GC roots to find why each sampled object still tracked is held (one pause, within pathsTime and "
            + "pathsMemory) (default true)",
        "pathsTime=MILLIS       MEMSCOPE_PATHS_TIME   longest pause a heap walk may cause; past it the walk stops and "
            + "its paths cover what it reached (default 2000)",
        "pathsMemory=BYTES      MEMSCOPE_PATHS_MEMORY most memory a heap walk may take in the JVM, e.g. 256m; at most "
            + "half of the memory free on the machine and in its cgroup (default 256m)",
        "processMemory=MILLIS   MEMSCOPE_PROCESS_MEMORY sample the process's memory (RSS and its parts: heap, "
            + "metaspace, code cache, thread stacks, buffers, native memory, NMT's categories) this often; 0 = off "
            + "(default 100)",
        "rssDetail=MILLIS       MEMSCOPE_RSS_DETAIL   read /proc/self/smaps this often to replace the heap's, the "
            + "code cache's and the thread stacks' committed figures by their resident bytes; 0 = off (default 5000)",
        "malloc=true|false      MEMSCOPE_MALLOC       sample the process's malloc calls (native libraries, JNI, FFM) "
            + "by bytes, with native and Java stacks; Linux x86_64, glibc (default false)",
        "mallocInterval=BYTES   MEMSCOPE_MALLOC_INTERVAL mean bytes between malloc samples, e.g. 128k (default 128k)",
        "push=URL               MEMSCOPE_PUSH         send a pprof profile of every pushInterval to this Grafana "
            + "Pyroscope server (POST URL/ingest; http or https, no credentials in the URL) (default: no push)",
        "maxSize=BYTES          MEMSCOPE_MAX_SIZE     bound the recording: write it in chunks and delete the oldest "
            + "while all of them take more than this, e.g. 256m, 1g (default: no bound; memscope attach: 1g)",
        "maxAge=DURATION        MEMSCOPE_MAX_AGE      bound the recording: write it in chunks and delete the ones "
            + "that ended longer ago than this, e.g. 2h, 24h (default: no bound; memscope attach: 24h)",
        "chunkSize=BYTES        MEMSCOPE_CHUNK_SIZE   start a new chunk of the recording at this size; also turns "
            + "chunks on (default: maxSize/8 within 64k..16m, else 16m)",
        "chunkAge=DURATION      MEMSCOPE_CHUNK_AGE    start a new chunk of the recording at this age; also turns "
            + "chunks on (default: maxAge/4, at most 10m)",
        "pushInterval=DURATION  MEMSCOPE_PUSH_INTERVAL how often to push, e.g. 10s, 1m (default 10s)",
        "pushName=NAME          MEMSCOPE_PUSH_NAME    application name in the push (default: the main class or jar)",
        "pushLabels=k=v;k=v     MEMSCOPE_PUSH_LABELS  labels of every pushed profile (host and pid are added)",
        "pushTenant=ID          MEMSCOPE_PUSH_TENANT  the X-Scope-OrgID header (multi-tenant Pyroscope)",
        "pushAuthFile=PATH      MEMSCOPE_PUSH_AUTH_FILE the Authorization for the push, read from this file (readable "
            + "by its owner only); or the environment variable MEMSCOPE_PUSH_AUTH; never in the argument string",
    };

    public enum Mode { SAMPLE, EXACT }

    /** Sample mode's heap sampler: the JVM's (JVMTI), bytecode hooks, or JVMTI when available. */
    public enum Sampler { AUTO, JVMTI, BYTECODE }

    private final Map<String, String> raw = new LinkedHashMap<>();
    private final List<String> errors = new ArrayList<>();
    private Mode mode = Mode.SAMPLE;
    private Sampler sampler = Sampler.AUTO;
    private long intervalBytes = 512 * 1024;
    private List<String> include = List.of();
    private List<String> exclude = List.of();
    private boolean includeJdk;
    private boolean nativeMemory = true;
    private boolean gc = true;
    private int stackDepth = 64;
    /** null: the default ({@link OutputFolders#defaultOutputBase()}), decided when asked for. */
    private Path out;
    private long durationSeconds;
    private boolean summary;
    private boolean quiet;
    private boolean strict;
    private long flushMillis = 1000;
    private boolean jmx = true;
    private boolean debug;
    private boolean events;
    private List<String> functions = List.of();
    private boolean gcAtEdges;
    private int liveSamples = 1 << 18;
    private int maxStacks = 65_536;
    private int maxSites = 131_072;
    private int maxStrings = 262_144;
    private StackWalk stackWalk = StackWalk.ON;
    private Boolean gcAtEnd;
    private EndCheck endCheck;
    private long endCheckMaxHeap = 8L << 30;
    private int oversample;
    private boolean ownDistances = true;
    private boolean paths = true;
    private long pathsMillis = 2000;
    private long pathsMemory = 256L << 20;
    private long processMemoryMillis = 100;
    private long rssDetailMillis = 5000;
    private boolean malloc;
    private long mallocInterval = 128L << 10;
    private String command = "start";
    /** How the program's command line is recorded: masked, full or off. */
    private String commandLine = "masked";
    private List<String> secretWords = CommandLineMask.DEFAULT_WORDS;
    /** The push's base URL (no trailing '/'), or null: no push. */
    private String push;
    private long pushIntervalMillis = 10_000;
    private String pushName;
    private Map<String, String> pushLabels = Map.of();
    private String pushTenant;
    private Path pushAuthFile;
    /** The environment variable that may hold the push's Authorization (never an option of the argument string). */
    public static final String PUSH_AUTH_ENV = "MEMSCOPE_PUSH_AUTH";

    private static final String[][] KEYS = {
        {"mode", "MEMSCOPE_MODE"}, {"sampler", "MEMSCOPE_SAMPLER"}, {"interval", "MEMSCOPE_INTERVAL"}, {"include", "MEMSCOPE_INCLUDE"},
        {"exclude", "MEMSCOPE_EXCLUDE"}, {"includeJdk", "MEMSCOPE_INCLUDE_JDK"}, {"native", "MEMSCOPE_NATIVE"},
        {"gc", "MEMSCOPE_GC"}, {"stackDepth", "MEMSCOPE_STACK_DEPTH"}, {"out", "MEMSCOPE_OUT"},
        {"duration", "MEMSCOPE_DURATION"}, {"summary", "MEMSCOPE_SUMMARY"}, {"quiet", "MEMSCOPE_QUIET"},
        {"strict", "MEMSCOPE_STRICT"}, {"flush", "MEMSCOPE_FLUSH"}, {"jmx", "MEMSCOPE_JMX"},
        {"debug", "MEMSCOPE_DEBUG"}, {"events", "MEMSCOPE_EVENTS_START"}, {"functions", "MEMSCOPE_FUNCTIONS"},
        {"gcAtEdges", "MEMSCOPE_GC_AT_EDGES"}, {"liveSamples", "MEMSCOPE_LIVE_SAMPLES"},
        {"maxStacks", "MEMSCOPE_MAX_STACKS"}, {"maxSites", "MEMSCOPE_MAX_SITES"},
        {"maxStrings", "MEMSCOPE_MAX_STRINGS"},
        {"gcAtEnd", "MEMSCOPE_GC_AT_END"}, {"stackWalk", "MEMSCOPE_STACK_WALK"},
        {"oversample", "MEMSCOPE_OVERSAMPLE"}, {"jvmDistances", "MEMSCOPE_JVM_DISTANCES"}, {"paths", "MEMSCOPE_PATHS"},
        {"pathsTime", "MEMSCOPE_PATHS_TIME"}, {"pathsMemory", "MEMSCOPE_PATHS_MEMORY"}, {"command", null},
        {"commandLine", "MEMSCOPE_COMMAND_LINE"}, {"secrets", "MEMSCOPE_SECRETS"},
        {"endCheck", "MEMSCOPE_END_CHECK"}, {"endCheckMaxHeap", "MEMSCOPE_END_CHECK_MAX_HEAP"},
        {"processMemory", "MEMSCOPE_PROCESS_MEMORY"}, {"rssDetail", "MEMSCOPE_RSS_DETAIL"},
        {"processMemory", "MEMSCOPE_PROCESS_MEMORY"}, {"malloc", "MEMSCOPE_MALLOC"},
        {"mallocInterval", "MEMSCOPE_MALLOC_INTERVAL"},
        {"push", "MEMSCOPE_PUSH"}, {"pushInterval", "MEMSCOPE_PUSH_INTERVAL"}, {"pushName", "MEMSCOPE_PUSH_NAME"},
        {"pushLabels", "MEMSCOPE_PUSH_LABELS"}, {"pushTenant", "MEMSCOPE_PUSH_TENANT"},
        {"pushAuthFile", "MEMSCOPE_PUSH_AUTH_FILE"},
        {"maxSize", "MEMSCOPE_MAX_SIZE"}, {"maxAge", "MEMSCOPE_MAX_AGE"}, {"chunkSize", "MEMSCOPE_CHUNK_SIZE"},
        {"chunkAge", "MEMSCOPE_CHUNK_AGE"},
    };
    private long maxSizeBytes;
    private long maxAgeMillis;
    private long chunkSizeBytes;
    private long chunkAgeMillis;

    private AgentOptions() {
    }

    /** Parses the agent argument string (may be null) over the given environment. */
    public static AgentOptions parse(String args, Map<String, String> env) {
        AgentOptions o = new AgentOptions();
        OptionSources.read(args, env, KEYS, o.raw, o.errors);
        for (Map.Entry<String, String> e : o.raw.entrySet()) {
            try {
                o.apply(e.getKey(), e.getValue());
            } catch (IllegalArgumentException ex) {
                String shown = e.getKey().equals("push") ? PushUrls.withoutUserInfo(e.getValue()) : e.getValue();
                o.errors.add("invalid value '" + shown + "' for option '" + e.getKey() + "': " + ex.getMessage());
            }
        }
        String auth = env.get(PUSH_AUTH_ENV);
        if (auth != null && !auth.isBlank()) {
            o.raw.put("pushAuth", "(set)"); // recorded as set, never its value
        } else if (o.pushAuthFile != null) {
            o.raw.put("pushAuth", "(set: file)");
        }
        return o;
    }

    /**
     * Sets one option from its text. One case per option (45 of them), each a parse and a check: long because the
     * options are read in one place, next to each other.
     */
    private void apply(String key, String v) {
        switch (key) {
            case "mode":
                mode = switch (v.toLowerCase(Locale.ROOT)) {
                    case "sample" -> Mode.SAMPLE;
                    case "exact" -> Mode.EXACT;
                    default -> throw new IllegalArgumentException("expected sample or exact");
                };
                break;
            case "sampler":
                sampler = switch (v.toLowerCase(Locale.ROOT)) {
                    case "auto" -> Sampler.AUTO;
                    case "jvmti" -> Sampler.JVMTI;
                    case "bytecode" -> Sampler.BYTECODE;
                    default -> throw new IllegalArgumentException("expected auto, jvmti or bytecode");
                };
                break;
            case "interval":
                intervalBytes = parseBytes(v);
                if (intervalBytes < 1) {
                    throw new IllegalArgumentException("must be at least 1 byte");
                }
                break;
            case "include":
                include = prefixes(v);
                break;
            case "exclude":
                exclude = prefixes(v);
                break;
            case "includeJdk":
                includeJdk = bool(v);
                break;
            case "native":
                nativeMemory = bool(v);
                break;
            case "gc":
                gc = bool(v);
                break;
            case "stackDepth":
                stackDepth = (int) number(v, 0, 1024);
                break;
            case "out":
                if (v.isEmpty()) {
                    throw new IllegalArgumentException("expected a directory");
                }
                out = Path.of(v);
                break;
            case "duration":
                durationSeconds = number(v, 0, Long.MAX_VALUE / 1_000_000_000L);
                break;
            case "summary":
                summary = bool(v);
                break;
            case "quiet":
                quiet = bool(v);
                break;
            case "strict":
                strict = bool(v);
                break;
            case "flush":
                flushMillis = number(v, 10, 3_600_000);
                break;
            case "jmx":
                jmx = bool(v);
                break;
            case "debug":
                debug = bool(v);
                break;
            case "events":
                events = bool(v);
                break;
            case "functions":
                functions = List.of(v.split(";"));
                FunctionPatterns.parse(functions); // validates
                break;
            case "gcAtEdges":
                gcAtEdges = bool(v);
                break;
            case "gcAtEnd":
                gcAtEnd = bool(v);
                break;
            case "endCheck":
                endCheck = switch (v.toLowerCase(Locale.ROOT)) {
                    case "gc" -> EndCheck.GC;
                    case "off" -> EndCheck.OFF;
                    default -> throw new IllegalArgumentException("expected gc or off");
                };
                break;
            case "endCheckMaxHeap":
                endCheckMaxHeap = parseBytes(v);
                break;
            case "liveSamples":
                liveSamples = (int) number(v, 0, 1 << 24);
                break;
            case "maxStacks":
                maxStacks = (int) number(v, 16, 1 << 24);
                break;
            case "maxSites":
                maxSites = (int) number(v, 16, 1 << 24);
                break;
            case "maxStrings":
                maxStrings = (int) number(v, 64, 1 << 26);
                break;
            case "stackWalk":
                stackWalk = switch (v.toLowerCase(Locale.ROOT)) {
                    case "on" -> StackWalk.ON;
                    case "off" -> StackWalk.OFF;
                    case "check" -> StackWalk.CHECK;
                    default -> throw new IllegalArgumentException("expected on, off or check");
                };
                break;
            case "commandLine":
                if (!v.equals("masked") && !v.equals("full") && !v.equals("off")) {
                    throw new IllegalArgumentException("expected masked, full or off");
                }
                commandLine = v;
                break;
            case "secrets":
                List<String> w = new ArrayList<>();
                for (String word : v.split(";")) {
                    if (!word.isBlank()) {
                        w.add(word.trim().toLowerCase(Locale.ROOT));
                    }
                }
                if (w.isEmpty()) {
                    throw new IllegalArgumentException("expected words separated by ';' (commandLine=full records "
                            + "every value)");
                }
                secretWords = List.copyOf(w);
                break;
            case "oversample":
                oversample = v.equalsIgnoreCase("auto") ? 0 : (int) number(v, 1, 1024);
                break;
            case "jvmDistances":
                ownDistances = switch (v.toLowerCase(Locale.ROOT)) {
                    case "own" -> true;
                    case "jvm" -> false;
                    default -> throw new IllegalArgumentException("expected own or jvm");
                };
                break;
            case "paths":
                paths = bool(v);
                break;
            case "processMemory":
                processMemoryMillis = number(v, 0, 3_600_000);
                if (processMemoryMillis > 0 && processMemoryMillis < 10) {
                    throw new IllegalArgumentException("must be 0 (off) or at least 10");
                }
                break;
            case "rssDetail":
                rssDetailMillis = number(v, 0, 3_600_000);
                if (rssDetailMillis > 0 && rssDetailMillis < 100) {
                    throw new IllegalArgumentException("must be 0 (off) or at least 100");
                }
                break;
            case "pathsTime":
                pathsMillis = number(v, 1, 3_600_000);
                break;
            case "malloc":
                malloc = bool(v);
                break;
            case "mallocInterval":
                mallocInterval = parseBytes(v);
                if (mallocInterval < 1 || mallocInterval > (1L << 40)) {
                    throw new IllegalArgumentException("must be between 1 and 1t");
                }
                break;
            case "pathsMemory":
                pathsMemory = parseBytes(v);
                if (pathsMemory < (1 << 20)) {
                    throw new IllegalArgumentException("must be at least 1m");
                }
                break;
            case "push":
                push = PushUrls.validate(v);
                break;
            case "pushInterval":
                pushIntervalMillis = parseDurationMillis(v);
                if (pushIntervalMillis < 1000 || pushIntervalMillis > 3_600_000) {
                    throw new IllegalArgumentException("expected from 1s to 1h");
                }
                break;
            case "maxSize":
                maxSizeBytes = parseBytes(v);
                if (maxSizeBytes < (1 << 20)) {
                    throw new IllegalArgumentException("must be at least 1m");
                }
                break;
            case "maxAge":
                maxAgeMillis = parseDurationMillis(v);
                if (maxAgeMillis < 1000) {
                    throw new IllegalArgumentException("must be at least 1s");
                }
                break;
            case "chunkSize":
                chunkSizeBytes = parseBytes(v);
                if (chunkSizeBytes < 64 * 1024 || chunkSizeBytes > (1L << 30)) {
                    throw new IllegalArgumentException("expected from 64k to 1g");
                }
                break;
            case "chunkAge":
                chunkAgeMillis = parseDurationMillis(v);
                if (chunkAgeMillis < 100) {
                    throw new IllegalArgumentException("must be at least 100ms");
                }
                break;
            case "pushName":
                if (!v.matches("[A-Za-z0-9._/-]+")) {
                    throw new IllegalArgumentException("expected letters, digits and . _ - /");
                }
                pushName = v;
                break;
            case "pushLabels":
                pushLabels = labels(v);
                break;
            case "pushTenant":
                if (!v.matches("[A-Za-z0-9!._*'()-]{1,150}")) {
                    throw new IllegalArgumentException("expected a tenant id: letters, digits and !._*'()-");
                }
                pushTenant = v;
                break;
            case "pushAuthFile":
                if (v.isEmpty()) {
                    throw new IllegalArgumentException("expected a file");
                }
                pushAuthFile = Path.of(v);
                break;
            case "command":
                if (!v.equals("start") && !v.equals("detach") && !v.equals("paths")) {
                    throw new IllegalArgumentException("expected start, detach or paths");
                }
                command = v;
                break;
            default:
                throw new IllegalArgumentException("unknown option");
        }
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    public Mode mode() {
        return mode;
    }

    /**
     * @return the program's command line as the recording keeps it (secret-looking values masked, as given, or
     *         null when not recorded)
     */
    public String recordedCommandLine(String command) {
        if (command == null || commandLine.equals("off")) {
            return null;
        }
        return commandLine.equals("full") ? command : new CommandLineMask(secretWords).mask(command);
    }

    /** @return sample mode's heap sampler as asked ({@code auto} resolves when the agent starts) */
    /** The JVM sampler's oversampling factor (0: auto, the agent's CaptureSettings). */
    public int oversample() {
        return oversample;
    }

    /** Whether memscope draws the threads' distances to their next JVM sample. */
    public boolean ownDistances() {
        return ownDistances;
    }

    /** How the JVM sampler names a sample's stack (see {@link StackWalk}). */
    public StackWalk stackWalk() {
        return stackWalk;
    }

    public Sampler sampler() {
        return sampler;
    }

    public long intervalBytes() {
        return intervalBytes;
    }

    /** @return internal-form prefixes ({@code com/acme/}) */
    public List<String> include() {
        return include;
    }

    public List<String> exclude() {
        return exclude;
    }

    public boolean includeJdk() {
        return includeJdk;
    }

    public boolean nativeMemory() {
        return nativeMemory;
    }

    public boolean gc() {
        return gc;
    }

    public int stackDepth() {
        return stackDepth;
    }

    public Path out() {
        return out != null ? out : OutputFolders.defaultOutputBase();
    }

    public long durationSeconds() {
        return durationSeconds;
    }

    public boolean summary() {
        return summary;
    }

    /** @return how often the process's memory is sampled, in milliseconds; 0 = not sampled */
    public long processMemoryMillis() {
        return processMemoryMillis;
    }

    /** @return how often the resident check over /proc/self/smaps runs, in milliseconds; 0 = never */
    public long rssDetailMillis() {
        return rssDetailMillis;
    }

    /** @return the bound of the recording's chunks together, in bytes; 0 = none */
    public long maxSizeBytes() {
        return maxSizeBytes;
    }

    /** @return the age beyond which the recording's chunks are deleted, in milliseconds; 0 = none */
    public long maxAgeMillis() {
        return maxAgeMillis;
    }

    /** @return the size at which a new chunk begins, in bytes; 0 = derived from the bounds */
    public long chunkSizeBytes() {
        return chunkSizeBytes;
    }

    /** @return the age at which a new chunk begins, in milliseconds; 0 = derived from the bounds */
    public long chunkAgeMillis() {
        return chunkAgeMillis;
    }

    /** @return whether the recording is written in chunks: a bound, a chunk size or a chunk age was given */
    public boolean chunked() {
        return maxSizeBytes > 0 || maxAgeMillis > 0 || chunkSizeBytes > 0 || chunkAgeMillis > 0;
    }

    /** @return how often captured events move from memory into the recording, in milliseconds */
    public long flushMillis() {
        return flushMillis;
    }

    /** @return whether to register the {@code io.memscope:type=Agent} MXBean */
    public boolean jmx() {
        return jmx;
    }

    /** @return whether to print one line per flush on stderr */
    public boolean debug() {
        return debug;
    }

    public boolean quiet() {
        return quiet;
    }

    public boolean strict() {
        return strict;
    }

    /** @return true to start runtime events and the JFR bridge ({@code <pid>.events} rings, docs/formats/events.md) */
    public boolean events() {
        return events;
    }

    /** @return the function profile's patterns ({@code pkg.Class.method}, {@code pkg.Class.*}, {@code pkg.**}) */
    public List<String> functions() {
        return functions;
    }

    /** @return whether the capture's end walks the heap from the GC roots (paths of the samples still held) */
    public boolean paths() {
        return paths;
    }

    /** @return the longest pause a heap walk may cause, in milliseconds */
    public long pathsMillis() {
        return pathsMillis;
    }

    /** @return whether the process's malloc calls are sampled */
    public boolean malloc() {
        return malloc;
    }

    /** @return the mean number of bytes between malloc samples */
    public long mallocInterval() {
        return mallocInterval;
    }

    /** @return the most memory a heap walk may take in the JVM, in bytes */
    public long pathsMemory() {
        return pathsMemory;
    }

    /** @return whether a full GC runs when the capture starts (and, through {@link #gcAtEnd}, when it ends) */
    public boolean gcAtEdges() {
        return gcAtEdges;
    }

    /**
     * @return sampled objects the JVM sampler watches for collection at most; samples beyond it are recorded as
     *         allocated with their collection not tracked
     */
    public int liveSamples() {
        return liveSamples;
    }

    /** @return stacks whose frames the agent keeps at most ({@code maxStacks}) */
    public int maxStacks() {
        return maxStacks;
    }

    /** @return site ids the JVM's site table hands out at most ({@code maxSites}) */
    public int maxSites() {
        return maxSites;
    }

    /** @return strings a capture's string table holds at most ({@code maxStrings}) */
    public int maxStrings() {
        return maxStrings;
    }

    /**
     * @return how the capture confirms what is still reachable at its end: {@code endCheck}, else the obsolete
     *         {@code gcAtEnd} ({@code gcAtEdges} implies a collection), else a whole-heap collection
     */
    public EndCheck endCheck() {
        if (endCheck != null) {
            return endCheck;
        }
        if (gcAtEdges || gcAtEnd == null || gcAtEnd) {
            return EndCheck.GC;
        }
        return EndCheck.OFF;
    }

    /** @return heap in use above which the end check is skipped, bytes */
    public long endCheckMaxHeap() {
        return endCheckMaxHeap;
    }

    /** @return whether the capture ends with a whole-heap collection ({@link #endCheck}) */
    public boolean gcAtEnd() {
        return endCheck() == EndCheck.GC;
    }

    /** @return {@code start} or {@code detach} (attach only) */
    public String command() {
        return command;
    }

    /** @return the push's base URL (no trailing '/'), or null when profiles are not pushed */
    public String push() {
        return push;
    }

    /** @return how often a profile is pushed, in milliseconds */
    public long pushIntervalMillis() {
        return pushIntervalMillis;
    }

    /** @return the application name of the pushed profiles, or null: the agent names it after the main class or jar */
    public String pushName() {
        return pushName;
    }

    /** @return the labels of every pushed profile, as given */
    public Map<String, String> pushLabels() {
        return pushLabels;
    }

    /** @return the X-Scope-OrgID of the push, or null */
    public String pushTenant() {
        return pushTenant;
    }

    /** @return the file holding the push's Authorization, or null */
    public Path pushAuthFile() {
        return pushAuthFile;
    }

    /** @return the options as given (after environment and arguments were merged), for the report metadata */
    public Map<String, String> raw() {
        return Map.copyOf(raw);
    }
}
