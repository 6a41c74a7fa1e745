#!/usr/bin/env bash
# What the push's OpenTelemetry span labels cost a traced application (docs/benchmarks.md, "Push to Pyroscope"): a
# loop of fixed work (OtelCostWorkload below: N root spans of the OpenTelemetry SDK, each made current, a few small
# allocations inside, its scope closed and the span ended; compiled here against opentelemetry-api/-sdk from the local
# Maven repository) run without an agent, under memscope's agent without a push, and with a push every second to a
# local receiver (the push hooks OpenTelemetry's context storage: two hook calls a span). Alternating rounds after a
# warm-up round, whole processes timed from outside (wall, user+sys). Medians.
#
#   memscope-bench/scripts/push-otel-cost.sh [-n ROUNDS] [--java PATH] [--spans N]   (N: thousands of spans)
#
# Needs: memscope-agent/target/memscope-agent.jar; io.opentelemetry:opentelemetry-sdk:1.68.0 in ~/.m2
# (./mvnw dependency:get -Dartifact=io.opentelemetry:opentelemetry-sdk:1.68.0); python3 for the receiver.
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=6
java="$(command -v java)"
spans=1000
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=java --spans=spans' "$@"
agent="$root/memscope-agent/target/memscope-agent.jar"
[ -e "$agent" ] || { echo "missing $agent (./mvnw -B package -DskipTests)" >&2; exit 1; }
m2="$HOME/.m2/repository/io/opentelemetry"
cp=""
for a in opentelemetry-api opentelemetry-context opentelemetry-common opentelemetry-sdk-trace opentelemetry-sdk-common; do
  j="$m2/$a/1.68.0/$a-1.68.0.jar"
  [ -e "$j" ] || { echo "missing $j (./mvnw dependency:get -Dartifact=io.opentelemetry:opentelemetry-sdk:1.68.0)" >&2; exit 1; }
  cp="$cp:$j"
done
work="$(mktemp -d /tmp/memscope-otel-cost.XXXXXX)"
receiver_pid=""
trap '[ -n "$receiver_pid" ] && kill "$receiver_pid" 2>/dev/null; rm -rf "$work"' EXIT
cp "$agent" "$work/memscope-agent.jar"
agent="$work/memscope-agent.jar"
javac_bin="$(dirname "$(readlink -f "$java")")/javac"
cat > "$work/OtelCostWorkload.java" <<'JAVA'
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;

public final class OtelCostWorkload {
    static final Object[] RING = new Object[4096];

    public static void main(String[] args) {
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(new SpanProcessor() {
            public void onStart(Context parent, ReadWriteSpan span) { }
            public boolean isStartRequired() { return false; }
            public void onEnd(ReadableSpan span) { }
            public boolean isEndRequired() { return false; }
        }).build();
        Tracer tracer = provider.get("cost");
        long n = Long.parseLong(args[0]) * 1000;
        long sum = 0;
        for (long i = 0; i < n; i++) {
            Span root = tracer.spanBuilder((i & 1) == 0 ? "checkout" : "search").setNoParent().startSpan();
            try (Scope s = root.makeCurrent()) {
                for (int k = 0; k < 8; k++) {
                    RING[(int) ((i * 8 + k) & 4095)] = new byte[64 + k * 16];
                }
            } finally {
                root.end();
            }
            sum += RING[(int) (i & 4095)].hashCode();
        }
        System.out.println(sum);
    }
}
JAVA
"$javac_bin" -cp "${cp#:}" -d "$work/classes" "$work/OtelCostWorkload.java"
cat > "$work/receiver.py" <<'PY'
import http.server
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
configs=("no agent" "memscope, no push" "memscope, push 1 s (span labels)")
opts=("" "-javaagent:$agent=quiet=true,out=$work/out"
      "-javaagent:$agent=quiet=true,out=$work/out,push=$up,pushInterval=1s")
: > "$work/results"
run() {
  local i="$1" start end
  TIMEFORMAT="%U %S"
  start=$EPOCHREALTIME
  { time "$java" ${opts[$i]:+"${opts[$i]}"} -cp "$work/classes$cp" OtelCostWorkload "$spans" \
      > /dev/null 2>&1 || echo "$i" >> "$work/failed"; } 2> "$work/time"
  end=$EPOCHREALTIME
  read -r u s < "$work/time"
  [ "$2" -gt 0 ] && echo "$i $(python3 -c "print(round(($end-$start)*1000), round(($u+$s)*1000))")" >> "$work/results"
  rm -rf "$work/out"
}
echo "java: $("$java" -version 2>&1 | head -1); load before: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
for r in $(seq 0 "$rounds"); do
  for k in 0 1 2; do run $(( (k + r) % 3 )) "$r"; done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
[ -s "$work/failed" ] && echo "failed runs (configuration index): $(tr '\n' ' ' < "$work/failed")"
python3 - "$work/results" "$spans" "${configs[@]}" <<'PY'
import sys, statistics
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
spans = int(sys.argv[2]) * 1000
names = sys.argv[3:]
base = statistics.median(w for i, w, c in rows if i == 0)
pushless_cpu = statistics.median(c for i, w, c in rows if i == 1)
print("| configuration | wall (ms) | wall ratio to no agent | user+sys (ms) | CPU over no push, per span (ns) |")
print("|---|---:|---:|---:|---:|")
for i, n in enumerate(names):
    w = statistics.median(x for j, x, c in rows if j == i)
    c = statistics.median(y for j, x, y in rows if j == i)
    sep = lambda v: f"{v:,.0f}".replace(",", " ")
    per = "" if i < 2 else f"{(c - pushless_cpu) * 1e6 / spans:.0f}"
    print(f"| {n} | {sep(w)} | {w/base:.3f} | {sep(c)} | {per} |")
PY
