#!/usr/bin/env bash
# The command line's own cost, measured from outside (docs/benchmarks.md, "The command line's own cost"): unpacked
# distributions' bin/memscope against each other and against `java -version`, in the same alternating rounds.
#
#   memscope-bench/scripts/cli-startup.sh DIST [DIST...] [-n ROUNDS] [--java PATH]
#
# DIST: a memscope-<version>.tar.gz or an unpacked distribution folder (e.g. this build's and an older one's). Each
# gets a fresh cache folder (XDG_CACHE_HOME) of its own; its first run is timed alone (it starts the background dump
# of the class-data-sharing archive, if its launcher makes one), then the script waits until that dump is done.
# Cases per round, each DIST: `memscope --help`; `memscope run -- java -version` (and `java -version` alone);
# `memscope report DIR` of a small recording (`java -version` recorded at a 4 KiB interval: a few hundred samples,
# made once by the first DIST). Each round runs every command once, in an order rotated by one each round. Per
# command: wall time (bash's EPOCHREALTIME) and user+sys CPU (bash's `time`: the process and its children). The
# table gives medians over the rounds. Default 15 rounds. Measure on a quiet machine; compare within one run.
set -euo pipefail
export LC_ALL=C

rounds=15
java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
[ -x "$java" ] || java="$(command -v java)"
dists=()
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=java ...' "$@"
dists=("${bench_rest[@]}")
[ ${#dists[@]} -gt 0 ] || { echo "usage: $0 DIST [DIST...] [-n ROUNDS] [--java PATH]" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
homes=()
for i in "${!dists[@]}"; do
  d="${dists[$i]}"
  if [ -f "$d" ]; then
    mkdir -p "$work/dist$i"
    tar xzf "$d" -C "$work/dist$i"
    d=$(echo "$work/dist$i"/*/)
  fi
  homes+=("$(cd "$d" && pwd)")
  mkdir -p "$work/cache$i"
done

# run NAME CMD...: one timed run; appends "name wall cpu" to $work/times
run() {
  local name="$1" t0 t1 cpu
  shift
  TIMEFORMAT='%U %S'
  t0=$EPOCHREALTIME
  cpu=$( { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%.3f", $1 + $2}')
  t1=$EPOCHREALTIME
  echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}') $cpu" >> "$work/times"
}

ms() { # ms I ARGS...: dist I's launcher with its own cache
  local i="$1"
  shift
  XDG_CACHE_HOME="$work/cache$i" MEMSCOPE_JAVA="$java" "${homes[$i]}/bin/memscope" "$@"
}

echo "java: $java ($("$java" -version 2>&1 | head -1))"
: > "$work/times"
for i in "${!homes[@]}"; do
  run "first-help-$i" ms "$i" --help
  for _ in $(seq 1 120); do # the background dump, if any
    ls "$work/cache$i"/memscope/*.lock >/dev/null 2>&1 || break
    sleep 1
  done
  echo "dist $i: ${homes[$i]}; cache: $(ls "$work/cache$i/memscope" 2>/dev/null | tr '\n' ' ')"
done
grep first- "$work/times" | while read -r n w c; do echo "  $n: ${w}s wall, ${c}s CPU"; done
: > "$work/times"

ms 0 run --out "$work/small" --interval 4k -- "$java" -version >/dev/null 2>&1
small=$(echo "$work/small"/*/)

cmds=("java" )
for i in "${!homes[@]}"; do cmds+=("help-$i" "run-$i" "report-$i"); done
one() {
  case "$1" in
    java) run java "$java" -version ;;
    help-*) run "$1" ms "${1#help-}" --help ;;
    run-*) run "$1" ms "${1#run-}" run --out "$work/runs" -- "$java" -version ;;
    report-*) run "$1" ms "${1#report-}" report "$small" ;;
  esac
}
for c in "${cmds[@]}"; do one "$c"; done # warm-up
: > "$work/times"
n=${#cmds[@]}
for r in $(seq 0 $((rounds - 1))); do
  for k in $(seq 0 $((n - 1))); do one "${cmds[$(( (k + r) % n ))]}"; done
  rm -rf "$work/runs"
done

echo
echo "| command | wall (median) | CPU user+sys (median) |"
echo "|---|---:|---:|"
for c in "${cmds[@]}"; do
  awk -v c="$c" '$1 == c {print $2, $3}' "$work/times" | sort -n -k1,1 | awk '{w[NR]=$1} END{printf "%s", w[int((NR+1)/2)]}' > "$work/w"
  awk -v c="$c" '$1 == c {print $3}' "$work/times" | sort -n | awk '{v[NR]=$1} END{printf "%s", v[int((NR+1)/2)]}' > "$work/c"
  echo "| $c | $(cat "$work/w") s | $(cat "$work/c") s |"
done
