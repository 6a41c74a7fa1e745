#!/usr/bin/env bash
# What the push to a Pyroscope server costs the application (docs/benchmarks.md, "Push to Pyroscope"): an allocation
# loop of fixed work (PushCostWorkload below: small objects and arrays of mixed sizes from a few hundred call stacks, a
# ring keeping the last 4096 alive; compiled here) run under memscope's
# agent without a push, with a push every second to a backend that answers (a local receiver that reads each request
# and answers 200), and with a push every second to a backend that is down (a closed local port), plus no agent.
# Alternating rounds (the order rotated by one each round, after one warm-up round), whole processes timed from
# outside: wall (bash's EPOCHREALTIME) and user+sys CPU of the process (bash's `time`). Medians.
#
#   memscope-bench/scripts/push-cost.sh [-n ROUNDS] [--java PATH] [--iterations N]   (N: millions of allocations)
#
# Needs: memscope-agent/target/memscope-agent.jar (./mvnw package -DskipTests), python3 for the receiver.
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=8
java="$(command -v java)"
iterations=150
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=java --iterations=iterations' "$@"
agent="$root/memscope-agent/target/memscope-agent.jar"
[ -e "$agent" ] || { echo "missing $agent (./mvnw -B package -DskipTests)" >&2; exit 1; }
work="$(mktemp -d /tmp/memscope-push-cost.XXXXXX)"
receiver_pid=""
trap '[ -n "$receiver_pid" ] && kill "$receiver_pid" 2>/dev/null; rm -rf "$work"' EXIT
cp "$agent" "$work/memscope-agent.jar" # a build running meanwhile may rewrite the original
agent="$work/memscope-agent.jar"
javac_bin="$(dirname "$(readlink -f "$java")")/javac"
cat > "$work/PushCostWorkload.java" <<'JAVA'
public final class PushCostWorkload {
    static final Object[] RING = new Object[4096];
    static long checksum;

    public static void main(String[] args) {
        long millions = Long.parseLong(args[0]);
        for (long m = 0; m < millions; m++) {
            for (int i = 0; i < 1_000_000; i++) {
                RING[i & 4095] = site(i & 255, i);
            }
            checksum += RING[(int) (m & 4095)].hashCode();
        }
        System.out.println(checksum);
    }

    /** 256 paths of two frames each into four allocation lines: stacks enough to fill a profile. */
    static Object site(int path, int i) {
        switch (path & 3) {
            case 0: return path < 128 ? small(i) : bytes(i);
            case 1: return path < 128 ? bytes(i) : ints(i);
            case 2: return path < 128 ? ints(i) : longs(i);
            default: return path < 128 ? longs(i) : small(i);
        }
    }

    static Object small(int i) { return new int[] {i}; }
    static Object bytes(int i) { return new byte[16 + (i & 255)]; }
    static Object ints(int i) { return new int[4 + (i & 63)]; }
    static Object longs(int i) { return new long[2 + (i & 31)]; }
}
JAVA
"$javac_bin" -d "$work/classes" "$work/PushCostWorkload.java"

cat > "$work/receiver.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0)))
        self.send_response(200); self.send_header('Content-Length', '0'); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$work/receiver.py" > "$work/port" &
receiver_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
up="http://127.0.0.1:$(cat "$work/port")"
down_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
down="http://127.0.0.1:$down_port"

configs=("no agent" "memscope, no push" "memscope, push 1 s, backend up" "memscope, push 1 s, backend down")
opts=("" "-javaagent:$agent=quiet=true,out=$work/out"
      "-javaagent:$agent=quiet=true,out=$work/out,push=$up,pushInterval=1s"
      "-javaagent:$agent=quiet=true,out=$work/out,push=$down,pushInterval=1s")
: > "$work/results"
run() { # config index, round
  local i="$1" start end
  TIMEFORMAT="%U %S"
  start=$EPOCHREALTIME
  { time "$java" ${opts[$i]:+"${opts[$i]}"} -cp "$work/classes" PushCostWorkload "$iterations" \
      > /dev/null 2>&1 || echo "$i" >> "$work/failed"; } 2> "$work/time"
  end=$EPOCHREALTIME
  read -r u s < "$work/time"
  [ "$2" -gt 0 ] && echo "$i $(python3 -c "print(round(($end-$start)*1000), round(($u+$s)*1000))")" >> "$work/results"
  rm -rf "$work/out"
}
echo "java: $("$java" -version 2>&1 | head -1); load before: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for r in $(seq 0 "$rounds"); do
  for k in 0 1 2 3; do run $(( (k + r) % 4 )) "$r"; done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
[ -s "$work/failed" ] && echo "failed runs (configuration index): $(tr '\n' ' ' < "$work/failed")"
python3 - "$work/results" "${configs[@]}" <<'PY'
import sys, statistics
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
names = sys.argv[2:]
base = statistics.median(w for i, w, c in rows if i == 0)
pushless = statistics.median(w for i, w, c in rows if i == 1)
print("| configuration | wall (ms) | wall ratio to no agent | wall ratio to no push | user+sys (ms) |")
print("|---|---:|---:|---:|---:|")
for i, n in enumerate(names):
    w = statistics.median(x for j, x, c in rows if j == i)
    c = statistics.median(y for j, x, y in rows if j == i)
    sep = lambda v: f"{v:,.0f}".replace(",", " ")
    print(f"| {n} | {sep(w)} | {w/base:.3f} | {w/pushless:.3f} | {sep(c)} |")
PY
