#!/usr/bin/env bash
# What the process memory sampler and its resident check over /proc/self/smaps cost (docs/benchmarks.md, "Process
# memory sampler"): an idle program (it allocates 64 KiB every 5 ms) run under `memscope run` for S seconds with
# rssDetail=0 (fast samples only) and 5000 (the default), alternating, R rounds, at a small heap (-Xmx64m) and at a
# large resident set (-Xms8g -Xmx8g -XX:+AlwaysPreTouch: 8 GiB of heap resident). Per run, from report.json's
# metadata: fast samples and their CPU time each (processMemory.cpuNanos less processMemory.rssDetailCpuNanos),
# resident checks (of which asked for by the sampler when RSS changed, and the end's), their CPU time in the run and
# each, their longest wall time, the longest gap between two process
# samples (the check runs on its own thread: a long pass no longer delays them); and from outside, the whole JVM's
# user+sys CPU time (/usr/bin/time) and wall time.
#
#   memscope-bench/scripts/rss-detail-cost.sh [--java PATH] [--seconds S] [--rounds R] [--no-large]
#
# Needs a build (./mvnw package -DskipTests: memscope-cli/target/memscope.jar), /usr/bin/time, and 9 GiB of free
# memory for the large runs.
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
java="$(command -v java)"
seconds=20
rounds=2
large=1
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '--java=java --seconds=seconds --rounds=rounds --no-large=large:0' "$@"
jar="$root/memscope-cli/target/memscope.jar"
[ -e "$jar" ] || { echo "build first: ./mvnw -B package -DskipTests" >&2; exit 1; }
work="$(mktemp -d /tmp/memscope-rss-cost.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cat > "$work/Idle.java" <<'JAVA'
public class Idle {
    public static void main(String[] a) throws Exception {
        byte[][] keep = new byte[64][];
        long end = System.nanoTime() + Long.parseLong(a[0]) * 1_000_000_000L;
        int i = 0;
        while (System.nanoTime() < end) {
            keep[i++ & 63] = new byte[64 << 10];
            Thread.sleep(5);
        }
        System.out.println(keep.length);
    }
}
JAVA
"$(dirname "$java")/javac" -d "$work" "$work/Idle.java"
run() {
  local name="$1" detail="$2"; shift 2
  rm -rf "$work/out-$name"
  /usr/bin/time -f "%U %S %e" -o "$work/time-$name" "$java" -jar "$jar" run --out "$work/out-$name" \
      --agent-option "rssDetail=$detail" -- "$java" "$@" -cp "$work" Idle "$seconds" >/dev/null 2>&1
  python3 - "$(ls -d "$work/out-$name"/*/ | head -1)report.json" "$name" "$work/time-$name" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1])); m = rep['metadata']
g = lambda k: float(m.get(k, '0')) if m.get(k, '0') != 'unknown' else 0.0
s, c = g('processMemory.samples'), g('processMemory.cpuNanos')
p, d = g('processMemory.rssDetailPasses'), g('processMemory.rssDetailCpuNanos')
su = g('processMemory.rssDetailSetUpCpuNanos')
t = [x['timeMs'] for x in rep['processMemory']['samples']]
gaps = sorted(b - a for a, b in zip(t, t[1:]))
end = rep['processMemory']['end']
# the time file holds `memscope run`'s own JVM and the program's: user sys wall of the whole command
u, sy, w = (float(x) for x in open(sys.argv[3]).read().split()[-3:])
print('%-9s samples %4d  fast %6.1f us/sample  checks %3d (%s asked for, end: %s)  %7.1f ms CPU in the run (set-up %5.1f, each %6.2f, max '
      '%6.2f, wall max %6.1f ms)  stretched %s  sampler %.3f%% of a core  longest gap %5.0f ms  rss %5d MiB  command: %.2f s CPU, '
      '%.1f s wall' % (sys.argv[2], s, (c - d) / s / 1e3, p, m.get('processMemory.rssDetailRequestedPasses', '-'),
      m.get('processMemory.rssDetailEndPass', '-'), d / 1e6, su / 1e6,
      (d - su) / p / 1e6 if p else 0,
      g('processMemory.rssDetailMaxCpuNanos') / 1e6, g('processMemory.rssDetailMaxWallNanos') / 1e6,
      m.get('processMemory.rssDetailStretched', '-'), c / ((t[-1] - t[0]) * 1e6) * 100, gaps[-1],
      end['rssBytes'] >> 20, u + sy, w))
PY
}
echo "$(date -u +%FT%TZ) $(uname -r) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $("$java" -version 2>&1 | head -1)"
for r in $(seq 1 "$rounds"); do
  run small-off 0 -Xmx64m
  run small-5s 5000 -Xmx64m
  if [ "$large" = 1 ]; then
    run large-off 0 -Xms8g -Xmx8g -XX:+AlwaysPreTouch
    run large-5s 5000 -Xms8g -Xmx8g -XX:+AlwaysPreTouch
  fi
done
echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
