#!/usr/bin/env bash
# Paths from GC roots: memscope's heap walk against JFR's path-to-gc-roots search, on the same heap.
#
#   memscope-bench/scripts/paths-vs-jfr.sh [--java JAVA] [--rounds N] SIZE OBJECTS
#
# HeapShape (beside this script) builds a heap of SIZE (e.g. 1g) holding OBJECTS objects (linked list nodes under
# one static array, each with a byte[] payload), runs 3 s, and exits. Three configurations, alternating, N rounds:
#   memscope      -javaagent with pathsTime=600000,pathsMemory=8g: the walk at the end covers the heap
#   memscope-def  -javaagent with the default budgets (2 s, 256 MiB): the walk at the end as users get it
#   jfr           -XX:StartFlightRecording:settings=profile,memory-leaks=gc-roots,path-to-gc-roots=true,
#                 dumponexit=true: JFR's old-object samples with their paths to GC roots, searched at the dump
# For each: the pause (the longest safepoint, from -Xlog:safepoint: HeapWalkOperation for memscope, JFR's
# JFR* operation for JFR: JFROldObject, its path search), the time from HeapShape's "exiting" line to the process's end (what the exit costs), and what
# each found (memscope: sampled objects tracked and reached, shapes of the HeapShape site; JFR: OldObjectSample
# events, and those with a reference chain to a root).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
ROUNDS=3
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '--java=JAVA --rounds=ROUNDS ...' "$@"
[ ${#bench_rest[@]} -eq 2 ] || { echo "usage: $0 [--java JAVA] [--rounds N] SIZE OBJECTS" >&2; exit 2; }
SIZE="${bench_rest[0]}"
OBJECTS="${bench_rest[1]}"
JDK="$(dirname "$(dirname "$JAVA")")"
AGENT="$ROOT/memscope-agent/target/memscope-agent.jar"
CLI="$ROOT/memscope"
export MEMSCOPE_NO_BUILD=1 # the CLI as built: no rebuild in the middle of a measurement
WORK="$(mktemp -d /tmp/paths-vs-jfr.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
"$JDK/bin/javac" --release 17 -d "$WORK/classes" "$HERE/HeapShape.java"
case "$SIZE" in
  *[gG]) MIB=$(( ${SIZE%?} * 1024 )) ;;
  *[mM]) MIB=${SIZE%?} ;;
  *) MIB=$(( SIZE >> 20 )) ;;
esac
XMX="$(( MIB * 2 + 2048 ))m"

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $("$JAVA" -version 2>&1 | head -1), heap $SIZE, $OBJECTS objects, -Xmx$XMX, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-13s %5s %12s %12s %10s  %s\n' config round pause_ms exit_ms walk_ms found

run() { # config round
  local c="$1" r="$2" d="$WORK/$1-$2"
  mkdir -p "$d"
  local opts=()
  case "$c" in
    memscope) opts=("-javaagent:$AGENT=out=$d/ms,quiet=true,pathsTime=600000,pathsMemory=8g") ;;
    memscope-def) opts=("-javaagent:$AGENT=out=$d/ms,quiet=true") ;;
    jfr) opts=("-XX:StartFlightRecording:settings=profile,memory-leaks=gc-roots,path-to-gc-roots=true,dumponexit=true,filename=$d/rec.jfr") ;;
  esac
  local out
  out="$("$JAVA" -Xmx"$XMX" -Xlog:safepoint=info:file="$d/sp.log" "${opts[@]}" -cp "$WORK/classes" HeapShape "$SIZE" "$OBJECTS" 2>&1)"
  local ended; ended=$(date +%s%N)
  local exiting; exiting=$(echo "$out" | sed -n 's/^exiting at \([0-9]*\)$/\1/p')
  local exit_ms=$(( (ended - exiting) / 1000000 ))
  local pause found walk="-"
  if [[ "$c" == jfr ]]; then
    pause=$(sed -n 's/.*Safepoint "\(JFR[^"]*\)".*Total: \([0-9]*\) ns.*/\2 \1/p' "$d/sp.log" | sort -n | tail -1)
    local events chains
    events=$("$JDK/bin/jfr" summary "$d/rec.jfr" | awk '$1=="jdk.OldObjectSample" {print $2}' || true)
    chains=$("$JDK/bin/jfr" print --events jdk.OldObjectSample "$d/rec.jfr" | grep -c 'root = ' || true)
    [[ -n "$events" ]] || events="? ($(ls "$d" | tr '\n' ' '))"
    found="$events old-object samples, $chains with a root"
  else
    pause=$(sed -n 's/.*Safepoint "HeapWalkOperation".*Total: \([0-9]*\) ns.*/\1 HeapWalkOperation/p' "$d/sp.log" | sort -n | tail -1)
    local jvm; jvm=$(ls -d "$d"/ms/*/ | head -1)
    "$CLI" report "$jvm" --json "$d/report.json" >/dev/null 2>&1 || true
    found=$(python3 - "$d/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
w = r.get('retention') or {}
shapes = sum(len(s.get('retainedBy', [])) for s in r['topLiveSites'])
print("%s: %s of %s tracked samples reached, %s objects visited, %.0f MiB, %d shapes on %d top held sites; %.0f" % (
    w.get('outcome'), w.get('samplesReached'), w.get('samplesTracked'), w.get('objectsVisited'),
    w.get('memoryBytes', 0) / 1048576.0, shapes, len(r['topLiveSites']), w.get('totalMs', 0)))
EOF
)
    walk="${found##*; }"
    found="${found%; *}"
  fi
  printf '%-13s %5s %12.1f %12s %10s  %s\n' "$c" "$r" "$(echo "${pause%% *}" | awk '{print $1/1e6}')" "$exit_ms" "$walk" "$found"
}

for r in $(seq 1 "$ROUNDS"); do
  for c in memscope jfr memscope-def; do
    run "$c" "$r"
  done
done
