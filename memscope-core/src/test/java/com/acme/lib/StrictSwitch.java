package com.acme.lib;

import io.memscope.internal.error.Failures;

/** A library outside memscope that tries to switch memscope's strict mode (on the class path it can link to it). */
public final class StrictSwitch {
    private StrictSwitch() {
    }

    public static void turnOn() {
        Failures.setStrict(true);
    }
}
