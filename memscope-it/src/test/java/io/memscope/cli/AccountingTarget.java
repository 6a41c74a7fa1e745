package io.memscope.cli;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.OwnerScope;

/** A JVM for the end-to-end test: records some memory, prints READY, waits until stdin closes. */
public final class AccountingTarget {
    private AccountingTarget() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !args[0].equals("--no-accounting")) {
            MemoryAccounting acct = MemoryAccounting.global();
            Instrument cache = acct.instrument("memory/target/cache");
            Instrument pool = acct.globalInstrument("memory/target/pool");
            try (OwnerScope s = acct.scope("tenant-a", "h1")) {
                acct.alloc(cache, 1000);
                acct.alloc(cache, 234);
            }
            try (OwnerScope s = acct.scope("tenant-b", "h1")) {
                acct.free(cache, 50, acct.alloc(cache, 50));
            }
            acct.alloc(cache, 7); // main thread, no user: a thread row
            acct.alloc(pool, 4096);
        }
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the test to close stdin
        }
    }
}
