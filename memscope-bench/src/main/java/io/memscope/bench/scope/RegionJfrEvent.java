package io.memscope.bench.scope;

import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** The JFR peer of a scope: a region event with a name, stack traces off. */
@Name("io.memscope.bench.Region")
@Label("Region (benchmark)")
@StackTrace(false)
public final class RegionJfrEvent extends Event {
    @Label("Name")
    String name;
}
