package io.memscope.events.jvm;

import io.memscope.error.Failures;
import io.memscope.events.EventsSettings;
import io.memscope.events.RuntimeEvents;

import java.lang.instrument.Instrumentation;
import java.nio.file.Paths;

/**
 * A minimal agent that only starts runtime events and the JFR bridge: {@code -javaagent:memscope-core.jar}
 * (or the CLI jar) at JVM start, or loaded into a running JVM by {@code memscope trace --pid}. Options (agent
 * argument, comma-separated): {@code dir=<path>} events directory, {@code preserve=1} keep the file at exit;
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
            if (args != null && !args.isEmpty()) {
                EventsSettings s = EventsSettings.fromEnvironment();
                for (String kv : args.split(",")) {
                    int eq = kv.indexOf('=');
                    String k = eq < 0 ? kv : kv.substring(0, eq);
                    String v = eq < 0 ? "" : kv.substring(eq + 1);
                    if (k.equals("dir")) {
                        s = s.withDirectory(Paths.get(v));
                    } else if (k.equals("preserve")) {
                        s = s.withPreserve("1".equals(v) || "true".equals(v));
                    }
                }
                RuntimeEvents.start(s);
            }
            JvmRuntimeEvents.start();
        } catch (Throwable t) {
            Failures.report("events.agent", t);
        }
    }
}
