/**
 * memscope-core: what applications, tests and tools call (docs/api.md). Only the API packages are exported;
 * {@code io.memscope.internal.*} (the event store, the recording writer and its codecs, failure counting, the link
 * to the agent, JMX plumbing) is memscope's own and may change in any release.
 *
 * <p>On the class path (how most applications run) this descriptor is ignored and the {@code internal} packages
 * are reachable like any other; they are still not an API.
 */
module io.memscope.core {
    requires transitive java.management;
    // ThreadMXBean.getCurrentThreadAllocatedBytes (scopes) and HotSpotDiagnosticMXBean (object sizes)
    requires jdk.management;
    // the JFR bridge of runtime events (io.memscope.events.jvm)
    requires jdk.jfr;
    // EventsAgent's premain/agentmain: only when memscope-core is itself a -javaagent
    requires static transitive java.instrument;

    exports io.memscope;
    exports io.memscope.accounting;
    exports io.memscope.error;
    exports io.memscope.events;
    exports io.memscope.events.jvm;
    exports io.memscope.jmx;
    exports io.memscope.pool;
    exports io.memscope.recording;
    exports io.memscope.scope;
    exports io.memscope.track;

    // The memscope agent reaches the application's copy of the link by reflection (connect, captureEnding,
    // disconnect): open to reflection at run time, not exported to compile against.
    opens io.memscope.internal.link;
}
