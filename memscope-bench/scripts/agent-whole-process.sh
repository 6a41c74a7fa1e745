#!/usr/bin/env bash
# Whole-process cost of memscope's agent, measured from outside the JVM, against no agent, async-profiler and JFR in
# the same alternating runs (docs/benchmarks.md, "Agent: whole process").
#
#   memscope-bench/scripts/agent-whole-process.sh [start|mixed|alloc|build|all] [-n ROUNDS] [--java PATH] [--out FILE]
#                                                 [--all-configs]
#
# Workloads:
#   start  the smallest program (io.memscope.bench.agent.workload.HelloMain: main prints one line holding the time its
#          work ended): no agent, an empty -javaagent (the JVM's own price of any Java agent), memscope by
#          -javaagent (default options) and by JAVA_TOOL_OPTIONS (as `memscope run` starts it), async-profiler
#          alloc,live and JFR (default settings). Default 20 rounds.
#   mixed  Jackson + Guava + H2, about 2 s quiet (io.memscope.bench.agent.workload.MixedWorkload): no agent, memscope
#          default (sample mode, 512 KiB), async-profiler alloc (its default 512 KiB), memscope interval=2k and
#          async-profiler alloc=2k,live, memscope with the JVM's own sampling points (oversample=1,jvmDistances=jvm);
#          with --all-configs also memscope interval=2k with stackWalk=off (every stack
#          from JVMTI GetStackTrace), memscope interval=1g (fixed costs) and JFR
#          (default settings). Default 10 rounds.
#   alloc  the allocation loop (io.memscope.bench.agent.workload.AllocationWorkload 5 20 1000000: small objects and
#          arrays of mixed sizes on one thread, about 2.3 GB at several GB/s, the worst case for a per-byte cost): no
#          agent, memscope default, memscope with the JVM's own sampling points (oversample=1,jvmDistances=jvm: what
#          memscope's corrections cost), async-profiler alloc. Default 10 rounds.
#   build  a Maven build whose tests fork 4 JVMs (src/test/resources/fork-build, `mvnw -o test`, offline against the
#          local repository): no agent, `memscope run -- <build>` (agent in every JVM, then each JVM's report),
#          memscope's agent alone through JAVA_TOOL_OPTIONS, async-profiler alloc,live through JAVA_TOOL_OPTIONS.
#          Default 10 rounds.
#
# Each round runs every configuration once, in an order rotated by one each round (no configuration always first
# after another), after one warm-up round that is not counted. Per process: wall time (bash's EPOCHREALTIME around
# the run), user+sys CPU time (bash's `time`, from the kernel's rusage of the child and its children) and, for
# start and mixed, the exit time (from the MAIN_END_EPOCH_MICROS line main prints to the process's end). The table
# gives medians of the per-round figures and the median of per-round differences to "no agent" of the same round
# (paired: the load of the machine drifts between rounds, less within one).
#
# Needs: a build (./mvnw package -DskipTests: memscope-agent.jar, memscope-bench classes and benchmarks.jar,
# memscope-cli's memscope.jar), async-profiler 4.1 in the local Maven repository (the native library is extracted
# into a temporary directory, never into the tree), unzip. Measure on a quiet machine, without nice.
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
workload="${1:-start}"
[ $# -gt 0 ] && shift
rounds=""
java="/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
[ -x "$java" ] || java="$(command -v java)"
report=""
all_configs=0
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=java --out=report --all-configs=all_configs:1' "$@"

agent="$root/memscope-agent/target/memscope-agent.jar"
classes="$root/memscope-bench/target/classes"
bench_jar="$root/memscope-bench/target/benchmarks.jar"
cli_jar="$root/memscope-cli/target/memscope.jar"
ap_jar="$HOME/.m2/repository/tools/profiler/async-profiler/4.1/async-profiler-4.1.jar"
for f in "$agent" "$classes/io/memscope/bench/agent/workload/HelloMain.class" "$ap_jar"; do
  [ -e "$f" ] || { echo "missing $f (build first: ./mvnw -B package -DskipTests)" >&2; exit 1; }
done

work="$(mktemp -d /tmp/memscope-whole-process.XXXXXX)"
trap 'rm -rf "$work"' EXIT
unzip -p "$ap_jar" linux-x64/libasyncProfiler.so > "$work/libasyncProfiler.so"
ap="$work/libasyncProfiler.so"
results="$work/results.txt"
before_each=""
: > "$results"

# An agent whose premain does nothing: what any -javaagent costs the JVM (JDK 17 turns its archived module graph
# off when java.instrument is added).
empty_agent() {
  local d="$work/empty"
  mkdir -p "$d"
  printf 'public class EmptyAgent { public static void premain(String a, java.lang.instrument.Instrumentation i) {} }\n' \
    > "$d/EmptyAgent.java"
  "$(dirname "$java")/javac" -d "$d" "$d/EmptyAgent.java"
  printf 'Premain-Class: EmptyAgent\n' > "$d/manifest.txt"
  "$(dirname "$java")/jar" cfm "$work/empty-agent.jar" "$d/manifest.txt" -C "$d" EmptyAgent.class
}

now_us() { local t="$EPOCHREALTIME"; echo "${t/./}"; }

# run ROUND NAME COMMAND...: one process, its figures appended to $results as
# "round name wall_us cpu_us exit_us" (exit_us -1 when main printed no end line)
run() {
  local round="$1" name="$2"; shift 2
  local t0 t1 u s end rc=0
  [ -n "$before_each" ] && eval "$before_each"
  t0="$(now_us)"
  { TIMEFORMAT='%3U %3S'; time "$@" > "$work/stdout" 2> "$work/stderr"; } 2> "$work/time" || rc=$?
  t1="$(now_us)"
  if [ "$rc" != 0 ]; then
    echo "$name failed (exit $rc):" >&2
    tail -20 "$work/stderr" >&2
    exit 1
  fi
  read -r u s < "$work/time"
  end="$(sed -n 's/^MAIN_END_EPOCH_MICROS //p' "$work/stdout" | tail -1)"
  local exit_us=-1
  [ -n "$end" ] && exit_us=$((t1 - end))
  local cpu_us
  cpu_us="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 1000000 }')"
  [ "$round" -gt 0 ] && echo "$round $(echo "$name" | tr ' ' '_') $((t1 - t0)) $cpu_us $exit_us" >> "$results"
  rm -rf "$work/rec" "$work"/*.jfr
  return 0
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# summary NAMES...: the table of $results, "no agent" first
summary() {
  local base="no_agent"
  echo
  echo "| configuration | wall (ms) | added wall (ms) | wall ratio | user+sys (ms) | added CPU (ms) | exit (ms) | added exit (ms) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  local n
  for n in "${names[@]}"; do
    local key; key="$(echo "$n" | tr ' ' '_')"
    local wall cpu ex dwall dcpu dex ratio
    wall="$(awk -v k="$key" '$2 == k { print $3 / 1000 }' "$results" | median)"
    cpu="$(awk -v k="$key" '$2 == k { print $4 / 1000 }' "$results" | median)"
    ex="$(awk -v k="$key" '$2 == k && $5 >= 0 { print $5 / 1000 }' "$results" | median)"
    # per round: this configuration minus no agent
    pair() { awk -v k="$key" -v b="$base" -v col="$1" -v op="$2" '
      $2 == b { base[$1] = $col } $2 == k { mine[$1] = $col }
      END { for (r in mine) if (r in base && mine[r] >= 0 && base[r] > 0) {
              if (op == "ratio") print mine[r] / base[r]; else print (mine[r] - base[r]) / 1000 } }' "$results" | median; }
    dwall="$(pair 3 diff)"; dcpu="$(pair 4 diff)"; dex="$(pair 5 diff)"; ratio="$(pair 3 ratio)"
    printf '| %s | %.0f | %+.0f | %.3f | %.0f | %+.0f | %s | %s |\n' "$n" "$wall" "$dwall" "$ratio" "$cpu" "$dcpu" \
      "$( [ "$ex" = nan ] && echo - || printf '%.1f' "$ex")" "$( [ "$dex" = nan ] && echo - || printf '%+.1f' "$dex")"
  done
}

# alternate ROUNDS: runs configuration i of arrays names/cmds ROUNDS times, rotated, after a warm-up round
alternate() {
  local total="$1" r i k count="${#names[@]}"
  for ((r = 0; r <= total; r++)); do
    for ((i = 0; i < count; i++)); do
      k=$(((i + r) % count))
      # shellcheck disable=SC2086
      eval "run $r \"\${names[$k]}\" ${cmds[$k]}"
    done
    [ "$r" -gt 0 ] && printf '.' >&2
  done
  echo >&2
}

header() {
  echo "## $1"
  echo
  echo "- machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)"
  echo "- java: $java ($("$java" -version 2>&1 | head -1))"
  echo "- memscope: ${MEMSCOPE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}, async-profiler 4.1"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), rounds: $2 (+1 warm-up), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
}

footer() {
  echo
  echo "- load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

start_workload() {
  local n="${rounds:-20}"
  empty_agent
  local hello="-cp $classes io.memscope.bench.agent.workload.HelloMain"
  names=("no agent" "empty -javaagent" "memscope -javaagent" "memscope JAVA_TOOL_OPTIONS" "async-profiler alloc,live"
         "JFR")
  cmds=("$java $hello"
        "$java -javaagent:$work/empty-agent.jar $hello"
        "$java -javaagent:$agent=out=$work/rec $hello"
        "env JAVA_TOOL_OPTIONS=-javaagent:$agent=out=$work/rec $java $hello"
        "$java -agentpath:$ap=start,event=alloc,live,file=$work/ap.jfr $hello"
        "$java -XX:StartFlightRecording=filename=$work/r.jfr $hello")
  header "start: the smallest program" "$n"
  alternate "$n"
  summary
  footer
}

mixed_workload() {
  local n="${rounds:-10}"
  [ -e "$bench_jar" ] || { echo "missing $bench_jar" >&2; exit 1; }
  local mixed="-cp $bench_jar io.memscope.bench.agent.workload.MixedWorkload"
  names=("no agent" "memscope default" "async-profiler alloc" "memscope interval=2k" "async-profiler alloc=2k,live"
         "memscope JVM's sampling points")
  cmds=("$java $mixed"
        "$java -javaagent:$agent=out=$work/rec $mixed"
        "$java -agentpath:$ap=start,event=alloc,file=$work/ap.jfr $mixed"
        "$java -javaagent:$agent=out=$work/rec,interval=2k $mixed"
        "$java -agentpath:$ap=start,alloc=2k,live,file=$work/ap.jfr $mixed"
        "$java -javaagent:$agent=out=$work/rec,oversample=1,jvmDistances=jvm $mixed")
  if [ "$all_configs" = 1 ]; then
    names+=("memscope 2k stackWalk=off" "memscope interval=1g" "JFR")
    cmds+=("$java -javaagent:$agent=out=$work/rec,interval=2k,stackWalk=off $mixed"
           "$java -javaagent:$agent=out=$work/rec,interval=1g $mixed"
           "$java -XX:StartFlightRecording=filename=$work/r.jfr $mixed")
  fi
  header "mixed: Jackson + Guava + H2 (60 cycles)" "$n"
  alternate "$n"
  summary
  footer
}

alloc_workload() {
  local n="${rounds:-10}"
  [ -e "$bench_jar" ] || { echo "missing $bench_jar" >&2; exit 1; }
  local alloc="-cp $bench_jar io.memscope.bench.agent.workload.AllocationWorkload 5 20 1000000"
  names=("no agent" "memscope default" "memscope JVM's sampling points" "async-profiler alloc")
  cmds=("$java $alloc"
        "$java -javaagent:$agent=out=$work/rec $alloc"
        "$java -javaagent:$agent=out=$work/rec,oversample=1,jvmDistances=jvm $alloc"
        "$java -agentpath:$ap=start,event=alloc,file=$work/ap.jfr $alloc")
  header "alloc: the allocation loop (AllocationWorkload 5 20 1000000, about 2.3 GB on one thread)" "$n"
  alternate "$n"
  summary
  footer
}

build_workload() {
  local n="${rounds:-10}"
  [ -e "$cli_jar" ] || { echo "missing $cli_jar" >&2; exit 1; }
  local proj="$work/fork-build"
  cp -r "$root/memscope-bench/src/test/resources/fork-build" "$proj"
  local jdk; jdk="$(dirname "$(dirname "$(readlink -f "$java")")")"
  # each run compiles and tests from scratch: its target directory is deleted before the run, untimed
  local mvn="env JAVA_HOME=$jdk $root/mvnw -o -q -B -f $proj/pom.xml"
  names=("no agent" "memscope run" "memscope agent JAVA_TOOL_OPTIONS" "async-profiler alloc,live JAVA_TOOL_OPTIONS")
  cmds=("$mvn test"
        "$java -jar $cli_jar run --out $work/rec -- $mvn test"
        "env JAVA_TOOL_OPTIONS=-javaagent:$agent=out=$work/rec $mvn test"
        "env JAVA_TOOL_OPTIONS=-agentpath:$ap=start,event=alloc,live,file=$work/ap-%p.jfr $mvn test")
  before_each="rm -rf $proj/target"
  header "build: \`mvnw -o test\`, tests in 4 forked JVMs" "$n"
  alternate "$n"
  summary
  footer
}

main() {
  case "$workload" in
    start) start_workload ;;
    mixed) mixed_workload ;;
    build) build_workload ;;
    alloc) alloc_workload ;;
    all) start_workload; : > "$results"; mixed_workload; : > "$results"; build_workload ;;
    *) echo "unknown workload $workload (start|mixed|alloc|build|all)" >&2; exit 2 ;;
  esac
}

if [ -n "$report" ]; then
  main | tee -a "$report"
else
  main
fi
