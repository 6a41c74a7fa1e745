package io.memscope.analysis;

import io.memscope.recording.Anomaly;
import io.memscope.recording.EventView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The API's named objects and pools in one recording, for {@link ApiAnalysis}: named objects from their ALLOCATE and
 * DEALLOCATE records (tracked, collected), pools from BORROW and RETURN and from the pool anomalies (a lease left
 * unreachable, returned twice, returned to the wrong pool), then their rows of the {@link ApiReport}. A leak may come
 * before its lease's BORROW in the file (both in one flush): the lease is then never counted outstanding.
 */
final class ApiObjectsAndPools {
    // figures per pool
    private static final int BORROWS = 0;
    private static final int RETURNS = 1;
    private static final int OUTSTANDING = 2;
    private static final int PEAK = 3;
    private static final int LEAKS = 4;
    private static final int DOUBLE = 5;
    private static final int UNKNOWN = 6;


    private final RecordedRun run;
    /** Named objects by address: {variable, type, size, tracked at, collected at (-1: not)}. */
    private final Map<Long, Object[]> named = new LinkedHashMap<>();
    private final Map<String, long[]> pools = new TreeMap<>();
    /** Outstanding leases by id: {pool, type, size, borrowed at, thread, stack id}. */
    private final Map<Long, Object[]> leases = new LinkedHashMap<>();
    /** Pool leaks by lease id: {pool, size, stack id} of the anomaly, and the lease's BORROW once seen. */
    private final Map<Long, Object[]> unreachable = new LinkedHashMap<>();

    ApiObjectsAndPools(RecordedRun run) {
        this.run = run;
    }

    /** A record of the API: a named object tracked or collected, a lease borrowed or returned. */
    void apiEvent(EventView e) {
        long t = e.timestampNanos();
        long address = e.address();
        long size = e.size();
        long threadId = e.threadId();
        int threadNameId = e.threadNameId();
        int typeNameId = e.typeNameId();
        long stackId = e.stackId();
        String variable = run.string(e.variableNameId());
        switch (e.type()) {
            case ALLOCATE:
                named.put(address, new Object[] {variable, run.string(typeNameId), size, t, -1L});
                break;
            case DEALLOCATE: {
                Object[] o = named.get(address);
                if (o != null) {
                    o[4] = t;
                }
                break;
            }
            case BORROW: {
                long[] p = pool(variable);
                p[BORROWS]++;
                Object[] lease = {variable, run.string(typeNameId), size, t,
                    threadId + (run.string(threadNameId) == null ? "" : "/" + run.string(threadNameId)), stackId};
                Object[] leak = unreachable.get(address);
                if (leak != null) {
                    leak[3] = lease; // its leak came first in the file (same flush): it is not outstanding
                } else {
                    p[OUTSTANDING]++;
                    leases.put(address, lease);
                }
                p[PEAK] = Math.max(p[PEAK], p[OUTSTANDING] + (leak != null ? 1 : 0));
                break;
            }
            case RETURN: {
                long[] p = pool(variable);
                p[RETURNS]++;
                if (leases.remove(address) != null) {
                    p[OUTSTANDING]--;
                }
                break;
            }
            default:
                break; // MOVE: the tasks it hands over are counted in the scopes
        }
    }

    /** A pool's anomaly: a lease left unreachable, returned twice, or returned to a pool that did not lend it. */
    void poolAnomaly(Anomaly a) {
        switch (a.type()) {
            case POOL_LEAK -> {
                long[] p = pool(a.detail());
                p[LEAKS]++;
                Object[] lease = leases.remove(a.address());
                if (lease != null) {
                    p[OUTSTANDING]--;
                }
                unreachable.put(a.address(), new Object[] {a.detail(), a.size(), a.stackId(), lease});
            }
            case POOL_DOUBLE_RETURN -> pool(a.detail())[DOUBLE]++;
            case POOL_UNKNOWN_RETURN -> pool(a.detail())[UNKNOWN]++;
            default -> {
                // not a pool's
            }
        }
    }

    /** @return the named objects' rows, times from the run's {@code start}, alive ones until its {@code end} */
    List<ApiReport.TrackedObjectRow> objectRows(long start, long end) {
        List<ApiReport.TrackedObjectRow> objects = new ArrayList<>();
        for (Object[] o : named.values()) {
            long tracked = (Long) o[3];
            long collected = (Long) o[4];
            boolean alive = collected < 0;
            objects.add(new ApiReport.TrackedObjectRow((String) o[0], (String) o[1], (Long) o[2], ApiAnalysis.ms(tracked - start),
                    alive ? -1 : ApiAnalysis.ms(collected - start), ApiAnalysis.ms((alive ? end : collected) - tracked), alive));
        }

        return objects;
    }

    /** @return the pools' rows; adds their leaks (unreachable, then not returned) to {@code leaks} */
    List<ApiReport.PoolRow> poolRows(long start, List<ApiReport.PoolLeakRow> leaks) {
        for (Map.Entry<Long, Object[]> e : unreachable.entrySet()) {
            Object[] a = e.getValue();
            Object[] lease = (Object[]) a[3];
            long stackId = (Long) a[2] != 0 || lease == null ? (Long) a[2] : (Long) lease[5];
            leaks.add(new ApiReport.PoolLeakRow((String) a[0], "unreachable", e.getKey(),
                    lease == null ? null : (String) lease[1], (Long) a[1], lease == null ? -1 : ApiAnalysis.ms((Long) lease[3] - start),
                    lease == null ? null : (String) lease[4], ApiAnalysis.stackOf(run, stackId)));
        }
        Map<String, long[]> notReturned = new HashMap<>();
        for (Map.Entry<Long, Object[]> e : leases.entrySet()) {
            Object[] l = e.getValue();
            long[] n = notReturned.computeIfAbsent((String) l[0], k -> new long[2]);
            n[0]++;
            n[1] += (Long) l[2];
            leaks.add(new ApiReport.PoolLeakRow((String) l[0], "not-returned", e.getKey(), (String) l[1], (Long) l[2],
                    ApiAnalysis.ms((Long) l[3] - start), (String) l[4], ApiAnalysis.stackOf(run, (Long) l[5])));
        }
        List<ApiReport.PoolRow> poolRows = new ArrayList<>();
        for (Map.Entry<String, long[]> e : pools.entrySet()) {
            long[] p = e.getValue();
            long[] n = notReturned.getOrDefault(e.getKey(), new long[2]);
            poolRows.add(new ApiReport.PoolRow(e.getKey(), p[BORROWS], p[RETURNS], n[0], n[1], p[PEAK], p[LEAKS],
                    p[DOUBLE], p[UNKNOWN]));
        }
        return poolRows;
    }

    private long[] pool(String name) {
        return pools.computeIfAbsent(name == null ? "?" : name, k -> new long[7]);
    }
}
