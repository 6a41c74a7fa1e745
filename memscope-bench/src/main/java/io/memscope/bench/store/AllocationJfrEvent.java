package io.memscope.bench.store;

import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** The JFR peer: a custom event with the fields of a memory event, stack traces off. */
@Name("io.memscope.bench.Allocation")
@Label("Allocation (benchmark)")
@StackTrace(false)
final class AllocationJfrEvent extends Event {
    @Label("Address")
    long address;
    @Label("Size")
    long size;
    @Label("Previous size")
    long previousSize;
    @Label("Stack")
    long stackId;
    @Label("Site")
    int siteId;
}
