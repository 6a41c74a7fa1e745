#!/usr/bin/env bash
# Accuracy of allocation estimates against exact counts, memscope against async-profiler in the same runs
# (docs/benchmarks.md, "Estimates against exact counts").
#
#   memscope-bench/scripts/estimate-accuracy.sh [sizes|threads|jackson|all] [-n RUNS] [--java PATH]... [--out FILE]
#
# Workloads (the fixtures of memscope-cli's tests, EstimateAccuracyTest, run as plain programs):
#   sizes    memscope.fixtures.SizeClassFixture: byte arrays of ten size classes, 16 B to 4 MiB, each allocated by a
#            method of its own, interleaved at random on 2 threads, 640 MiB per class (6.4 GiB in all), nothing kept.
#   threads  memscope.fixtures.ThreadChurnFixture: 3,000 platform threads, 8 at a time, each allocating 4096 arrays
#            of 64 B, 256 of 1 KiB and one of 160 KiB, each site in a method of its own (1.9 GiB in all).
#   jackson  io.memscope.bench.agent.workload.JacksonDocuments 4: Jackson databind writing and parsing JSON documents
#            of 0.3 KB to 4 MB (3 GB in all); two truths from the run itself: the exact bytes of the documents' final
#            arrays (ByteArrayBuilder.toByteArray, 12% of the bytes, from 0.3 KB to 4 MB) and ThreadMXBean's allocated
#            bytes of all live threads at the end (every estimate covers the whole run).
# Each workload writes its exact counts; each run of a round measures the same workload with:
#   memscope            `memscope run` with default options (the JVM sampler, 512 KiB)
#   memscope, JVM's     the same with oversample=1,jvmDistances=jvm: the JVM's own sampling points, as memscope
#                       took them before it corrected them
#   async-profiler      -agentpath:libasyncProfiler.so=start,event=alloc,collapsed,total (its default interval,
#                       512 KiB; `total` prints its estimated bytes per stack, summed per allocating method: its
#                       collapsed output has no line numbers, so every site of the fixtures has a method of its own)
# The order of the three is rotated each round. Printed per site: the exact bytes and, per configuration, the median,
# smallest and largest error over the rounds.
#
# Needs: a build (./mvnw package -DskipTests: memscope-cli/target/memscope.jar, the agent, memscope-cli's test
# classes, memscope-bench/target/benchmarks.jar), async-profiler 4.1 in the local Maven repository (extracted into a
# temporary directory), jq, unzip.
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
workload="${1:-all}"
[ $# -gt 0 ] && shift
rounds=3
javas=()
report=""
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=javas[] --out=report' "$@"
if [ ${#javas[@]} -eq 0 ]; then
  for j in /usr/lib/jvm/java-17-openjdk-amd64/bin/java /usr/lib/jvm/temurin-25-jdk-amd64/bin/java; do
    [ -x "$j" ] && javas+=("$j")
  done
fi

cli_jar="$root/memscope-cli/target/memscope.jar"
fixtures="$root/memscope-cli/target/test-classes"
bench_jar="$root/memscope-bench/target/benchmarks.jar"
ap_jar="$HOME/.m2/repository/tools/profiler/async-profiler/4.1/async-profiler-4.1.jar"
for f in "$cli_jar" "$fixtures/memscope/fixtures/SizeClassFixture.class" "$bench_jar" "$ap_jar"; do
  [ -e "$f" ] || { echo "missing $f (build first: ./mvnw -B package -DskipTests)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
cli_java="$(ls -d /usr/lib/jvm/temurin-25*/bin/java 2>/dev/null | head -1)"
[ -x "$cli_java" ] || cli_java="$(command -v java)"

work="$(mktemp -d /tmp/memscope-accuracy.XXXXXX)"
trap 'rm -rf "$work"' EXIT
unzip -p "$ap_jar" linux-x64/libasyncProfiler.so > "$work/libasyncProfiler.so"
results="$work/results.txt"   # lines: java workload config site truth estimate
: > "$results"

sizes_args() { echo "memscope.fixtures.SizeClassFixture $((640 << 20)) 2 false"; }
threads_args() { echo "memscope.fixtures.ThreadChurnFixture 3000 8 platform"; }
jackson_args() { echo "io.memscope.bench.agent.workload.JacksonDocuments 4"; }

# truth per site from the counts file: "method bytes" (the method that allocates the site's objects)
truth_of() {
  local w="$1" counts="$2"
  if [ "$w" = jackson ]; then
    awk '$1 == "DOCUMENT_ARRAY_BYTES" { print "toByteArray", $2 } $1 == "ALL_THREADS_ALLOCATED_BYTES" { print "all", $2 }' "$counts"
  elif [ "$w" = sizes ]; then
    awk '{ m = ($1 >= 1048576) ? "bytes" $1/1048576 "m" : ($1 >= 1024) ? "bytes" $1/1024 "k" : "bytes" $1;
           printf "%s %.0f\n", m, $1 * $2 }' "$counts"
  else
    awk '{ printf "%s %.0f\n", $1, $2 * $3 }' "$counts"
  fi
}

# memscope's estimate for a site: allocatedBytes of the byte[] site in that method (report.json); "all": the total
memscope_estimate() {
  local dir="$1" method="$2"
  if [ "$method" = all ]; then
    jq -r '.totals.allocatedBytes' "$(ls "$dir"/*/report.json)"
    return
  fi
  jq -r --arg m ".$method(" \
    '[.topAllocationSites[] | select(.type == "byte[]" and (.site | contains($m))) | .allocatedBytes] | add // 0' \
    "$(ls "$dir"/*/report.json)"
}

# async-profiler's estimate for a site: the totals of its collapsed stacks whose allocating frame is that method
ap_estimate() {
  local file="$1" method="$2"
  case "$method" in
    all) awk '{ s += $NF } END { printf "%.0f\n", s }' "$file" ;;
    toByteArray) awk 'index($0, "ByteArrayBuilder.toByteArray;byte[]") { s += $NF } END { printf "%.0f\n", s }' "$file" ;;
    *) awk -v m="Fixture.$method;" 'index($0, m) { s += $NF } END { printf "%.0f\n", s }' "$file" ;;
  esac
}

run_one() {
  local java="$1" w="$2" config="$3" n="$4"
  local dir="$work/$w-$config-$n" counts="$work/counts-$w-$config-$n.txt"
  local args cp="$fixtures" stdout=/dev/null
  if [ "$w" = jackson ]; then
    args="$("${w}_args")"
    cp="$bench_jar"
    stdout="$counts"
  else
    args="$("${w}_args") $counts"
  fi
  # shellcheck disable=SC2086
  case "$config" in
    memscope)
      "$cli_java" -jar "$cli_jar" run --out "$dir" -- "$java" -Xmx1g -cp "$cp" $args > "$stdout" 2>&1 ;;
    memscope-jvm)
      "$cli_java" -jar "$cli_jar" run --out "$dir" --agent-option oversample=1 --agent-option jvmDistances=jvm \
        -- "$java" -Xmx1g -cp "$cp" $args > "$stdout" 2>&1 ;;
    async-profiler)
      "$java" -agentpath:"$work/libasyncProfiler.so=start,event=alloc,collapsed,total,file=$dir.collapsed" -Xmx1g \
        -cp "$cp" $args > "$stdout" 2>&1 ;;
  esac
  local jname
  jname="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')"
  while read -r method truth; do
    local est
    if [ "$config" = async-profiler ]; then
      est="$(ap_estimate "$dir.collapsed" "$method")"
    else
      est="$(memscope_estimate "$dir" "$method")"
    fi
    echo "$jname $w $config $method $truth $est" >> "$results"
  done < <(truth_of "$w" "$counts")
  rm -rf "$dir" "$dir.collapsed"
}

workloads=()
case "$workload" in
  sizes|threads|jackson) workloads=("$workload") ;;
  all) workloads=(sizes threads jackson) ;;
  *) echo "unknown workload $workload" >&2; exit 2 ;;
esac
configs=(memscope memscope-jvm async-profiler)

echo "estimate-accuracy: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$root" rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for java in "${javas[@]}"; do
  for w in "${workloads[@]}"; do
    for ((n = 0; n < rounds; n++)); do
      for ((k = 0; k < ${#configs[@]}; k++)); do
        c="${configs[$(((k + n) % ${#configs[@]}))]}"
        echo "  $java $w round $((n + 1))/$rounds: $c" >&2
        run_one "$java" "$w" "$c" "$n"
      done
    done
  done
done
echo "done: $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

table() {
  awk '
    { key = $1 " " $2 " " $4; truth[key] = $5; err = ($6 - $5) / $5 * 100;
      n = ++cnt[key, $3]; v[key, $3, n] = err; if (!(key in seen)) { seen[key] = 1; order[++keys] = key } }
    function stat(key, c,    n, i, j, t, a) {
      n = cnt[key, c]; if (n == 0) return "—";
      for (i = 1; i <= n; i++) a[i] = v[key, c, i];
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return sprintf("%+.1f%% (%+.1f..%+.1f)", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2, a[1], a[n])
    }
    END {
      print "| JDK | workload | site | exact bytes | memscope | memscope, JVM'"'"'s sampling points | async-profiler `alloc` |"
      print "|---|---|---|---:|---:|---:|---:|"
      for (k = 1; k <= keys; k++) { split(order[k], p, " ");
        printf "| %s | %s | %s | %.0f | %s | %s | %s |\n", p[1], p[2], p[3], truth[order[k]],
          stat(order[k], "memscope"), stat(order[k], "memscope-jvm"), stat(order[k], "async-profiler") }
    }' "$results"
}
if [ -n "$report" ]; then
  table | tee "$report"
else
  table
fi
