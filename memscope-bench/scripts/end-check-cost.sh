#!/usr/bin/env bash
# The cost of memscope's reachability check at the end of a capture (agent option endCheck, memscope run --end-check):
# whole processes under `memscope run`, timed from outside, with the check (gc, the default) and without (off), in
# alternating runs; and the check's own time as the agent measured it (the recording's metadata endCheckMillis).
#
#   memscope-bench/scripts/end-check-cost.sh [-n ROUNDS] [--java PATH] [--gc G1|Parallel|...]
#
# Heaps: 1 GiB live in 64 KiB arrays (16 thousand objects: the cost per GiB), 256 MiB live in 48-byte arrays
# (5 million objects: the cost per million objects), and a small heap (8 MiB in 1 KiB arrays), each with -Xmx of
# twice the live size. Prints one line per run and the medians. Needs a build (./mvnw package -DskipTests).
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=5
java="/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
gc=G1
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=java --gc=gc' "$@"
cli_jar="$root/memscope-cli/target/memscope.jar"
classes="$root/memscope-bench/target/classes"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() { # heap-mib object-bytes xmx check -> "wall_ms check_ms"
  rm -rf "$work/out"
  local t0 t1
  t0=$(date +%s%N)
  "$java" -jar "$cli_jar" run --out "$work/out" --end-check "$4" -- "$java" -Xmx"$3" -Xms"$3" \
      -XX:+Use"$gc"GC -cp "$classes" io.memscope.bench.agent.workload.LiveHeap "$1" "$2" >/dev/null 2>&1
  t1=$(date +%s%N)
  local ms
  ms=$(grep -ho '"endCheckMillis": *"[0-9.]*"' "$work"/out/*/report.json | grep -o '[0-9.]*' || echo -)
  echo "$(( (t1 - t0) / 1000000 )) ${ms:--}"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "# end-check cost, $gc, $("$java" -version 2>&1 | head -1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%FT%TZ)"
for heap in "1024 65536 2g" "256 48 1g" "8 1024 64m"; do
  set -- $heap
  : > "$work/gc.txt"; : > "$work/off.txt"; : > "$work/check.txt"
  for r in $(seq 1 "$rounds"); do
    if (( r % 2 )); then order="gc off"; else order="off gc"; fi
    for c in $order; do
      read -r wall check < <(run "$1" "$2" "$3" "$c")
      echo "$wall" >> "$work/$c.txt"
      [ "$c" = gc ] && [ "$check" != - ] && echo "$check" >> "$work/check.txt"
      echo "  live ${1} MiB in ${2}-byte objects, end check $c: wall $wall ms, check ${check} ms"
    done
  done
  gcw=$(median < "$work/gc.txt"); offw=$(median < "$work/off.txt"); chk=$(median < "$work/check.txt")
  echo "live ${1} MiB in ${2}-byte objects (-Xmx$3): median wall gc $gcw ms, off $offw ms, ratio $(awk -v a="$gcw" -v b="$offw" 'BEGIN {printf "%.3f", a / b}'), check $chk ms"
done
