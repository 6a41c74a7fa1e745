package io.memscope.internal.events;

import io.memscope.internal.error.Failures;
import io.memscope.events.EventsSettings;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.jvm.JvmRuntimeEvents;

import java.lang.instrument.Instrumentation;
import java.nio.file.Paths;

/**
 * A minimal agent that only starts runtime events and the JFR bridge: {@code -javaagent:memscope-core.jar}
 * (or the CLI jar) at JVM start, or loaded into a running JVM by {@code memscope trace --pid}. Options (agent
 * argument, comma-separated): {@code dir=<path>} events directory, {@code preserve=1} keep the file at exit,
 * {@code waitjfr=1} start the JFR bridge only once a command-line JFR recording runs (see {@link #startWhenJfrRuns()});
 * otherwise the environment decides (see {@link EventsSettings}). Never throws into the application.
 */
public final class EventsAgent {
    private EventsAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args);
    }

    static void start(String args) {
        try {
            boolean waitForJfr = false;
            if (args != null && !args.isEmpty()) {
                EventsSettings s = EventsSettings.fromEnvironment();
                for (String kv : args.split(",")) {
                    int eq = kv.indexOf('=');
                    String k = eq < 0 ? kv : kv.substring(0, eq);
                    String v = eq < 0 ? "" : kv.substring(eq + 1);
                    if (k.equals("dir")) {
                        s = s.withDirectory(Paths.get(v));
                    } else if (k.equals("waitjfr")) {
                        waitForJfr = "1".equals(v) || "true".equals(v);
                    } else if (k.equals("preserve")) {
                        s = s.withPreserve("1".equals(v) || "true".equals(v));
                    }
                }
                if (args.contains("dir=") || args.contains("preserve=")) {
                    RuntimeEvents.start(s);
                }
            }
            if (waitForJfr) {
                startWhenJfrRuns();
            } else {
                JvmRuntimeEvents.start();
            }
        } catch (Throwable t) {
            Failures.report("events.agent", t);
        }
    }

    /**
     * Starts the bridge once the JVM's own JFR recording ({@code -XX:StartFlightRecording}) runs, instead of
     * initializing JFR from premain: JFR's initialization allocates enough to cause a GC, which a recording
     * started from premain would miss, while the command-line recording sees it (and the bridge reads the
     * recording's earlier chunks).
     */
    private static void startWhenJfrRuns() {
        RuntimeEvents.start();
        Thread t = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (System.nanoTime() < deadline) {
                    if (jdk.jfr.FlightRecorder.isInitialized()) {
                        for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
                            if (r.getState() == jdk.jfr.RecordingState.RUNNING) {
                                JvmRuntimeEvents.start();
                                return;
                            }
                        }
                    }
                    Thread.sleep(10);
                }
                JvmRuntimeEvents.start();
            } catch (Throwable e) {
                Failures.report("events.agent.wait", e);
            }
        }, "memscope-events-wait-jfr");
        t.setDaemon(true);
        t.start();
    }
}
