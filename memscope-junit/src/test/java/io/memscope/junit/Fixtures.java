package io.memscope.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.EventType;

/** Runs fixture tests through the JUnit Jupiter engine, as Surefire would, and collects each test's outcome. */
public final class Fixtures {
    /** One test's outcome: its status and, when it did not pass, the message. */
    public record Outcome(TestExecutionResult.Status status, String message) {
        public boolean passed() {
            return status == TestExecutionResult.Status.SUCCESSFUL;
        }
    }

    private Fixtures() {
    }

    /** @return outcome by test method name (the display name without parentheses; templates: "name[n]") */
    public static Map<String, Outcome> run(Class<?> fixture, Map<String, String> config) {
        return collect(EngineTestKit.engine("junit-jupiter").configurationParameters(config)
                .selectors(selectClass(fixture)).execute().allEvents().list());
    }

    public static Outcome runOne(Class<?> fixture, String method) {
        Map<String, Outcome> m = collect(EngineTestKit.engine("junit-jupiter")
                .selectors(selectMethod(fixture, method)).execute().allEvents().list());
        return m.get(method);
    }

    private static Map<String, Outcome> collect(List<Event> events) {
        Map<String, Outcome> out = new HashMap<>();
        for (Event e : events) {
            if (e.getType() != EventType.FINISHED || !e.getTestDescriptor().isTest()) {
                continue;
            }
            TestExecutionResult r = e.getRequiredPayload(TestExecutionResult.class);
            List<org.junit.platform.engine.UniqueId.Segment> seg = e.getTestDescriptor().getUniqueId().getSegments();
            org.junit.platform.engine.UniqueId.Segment last = seg.get(seg.size() - 1);
            String name = last.getType().equals("test-template-invocation")
                    ? seg.get(seg.size() - 2).getValue().replaceAll("\\(.*\\)$", "") + "[" + last.getValue().substring(1) + "]"
                    : last.getValue().replaceAll("\\(.*\\)$", "");
            Optional<Throwable> t = r.getThrowable();
            out.put(name, new Outcome(r.getStatus(), t.map(Throwable::getMessage).orElse("")));
        }
        return out;
    }
}
