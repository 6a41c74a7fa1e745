#!/usr/bin/env bash
# What sampling the process's memory costs (docs/benchmarks.md, "Process memory sampler"): the same small program
# under memscope's agent with processMemory=0 (off), 100 (the default) and 10, and with no agent, in alternating
# rounds (the order rotated by one each round, after one warm-up round that is not counted). Per process: wall time
# and user+sys CPU time (bash's `time`); per recording: the sampler's own CPU time and sample count (metadata
# processMemory.cpuNanos, processMemory.samples), read back with memscope-core's RecordingReader.
#
#   memscope-bench/scripts/process-memory-cost.sh [-n ROUNDS] [--java PATH] [--seconds S]
#
# The program (written and compiled here): S seconds (default 3) of a fixed loop that hashes a 64 KiB array and
# allocates a little, on one thread. Needs a build (./mvnw package -DskipTests: memscope-agent.jar, memscope-core's
# jar).
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=10
java="$(command -v java)"
seconds=3
source "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
bench_args '-n=rounds --java=java --seconds=seconds' "$@"
agent="$root/memscope-agent/target/memscope-agent.jar"
core="$(ls "$root"/memscope-core/target/memscope-core-*.jar | grep -v -e -sources -e -javadoc -e -tests | head -1)"
[ -e "$agent" ] && [ -e "$core" ] || { echo "build first: ./mvnw -B package -DskipTests" >&2; exit 1; }
work="$(mktemp -d /tmp/memscope-pm-cost.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cat > "$work/Spin.java" <<'JAVA'
public class Spin {
    public static void main(String[] a) throws Exception {
        long end = System.nanoTime() + Long.parseLong(a[0]) * 1_000_000_000L;
        byte[] data = new byte[64 * 1024];
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        long n = 0;
        while (System.nanoTime() < end) {
            md.update(data);
            data[(int) (n % data.length)] = md.digest()[0];
            n++;
        }
        System.out.println(n);
    }
}
JAVA
cat > "$work/Meta.java" <<'JAVA'
public class Meta {
    public static void main(String[] a) throws Exception {
        var r = io.memscope.recording.RecordingReader.read(java.nio.file.Path.of(a[0]));
        System.out.println(r.metadata().get("processMemory.samples") + " " + r.metadata().get("processMemory.cpuNanos"));
    }
}
JAVA
"$(dirname "$java")/javac" -d "$work" "$work/Spin.java"
"$(dirname "$java")/javac" -cp "$core" -d "$work" "$work/Meta.java"
names=("no agent" "processMemory=0" "processMemory=100" "processMemory=10")
results="$work/results.txt"
: > "$results"
now_us() { local t="$EPOCHREALTIME"; echo "${t/./}"; }
run() {
  local round="$1" i="$2" name="${names[$2]}" t0 t1 u s
  rm -rf "$work/rec"
  local args=()
  [ "$i" -gt 0 ] && args=("-javaagent:$agent=quiet=true,out=$work/rec,${name}")
  t0="$(now_us)"
  { TIMEFORMAT='%3U %3S'; time "$java" "${args[@]}" -cp "$work" Spin "$seconds" > /dev/null 2> "$work/stderr"; } 2> "$work/time"
  t1="$(now_us)"
  read -r u s < "$work/time"
  local meta="- -"
  if [ "$i" -gt 0 ]; then
    meta="$("$java" -cp "$core:$work" Meta "$(ls "$work"/rec/*/recording.msrec)")"
  fi
  [ "$round" -gt 0 ] && echo "$round $i $((t1 - t0)) $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 1000000 }') $meta" >> "$results"
  return 0
}
for round in $(seq 0 "$rounds"); do
  for k in 0 1 2 3; do
    run "$round" $(( (k + round) % 4 ))
  done
done
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "| configuration | wall (ms) | user+sys (ms) | added CPU vs processMemory=0 (ms, paired median) | samples | sampler CPU (ms) | per sample (us) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for i in 0 1 2 3; do
  wall="$(awk -v k="$i" '$2 == k { print $3 / 1000 }' "$results" | median)"
  cpu="$(awk -v k="$i" '$2 == k { print $4 / 1000 }' "$results" | median)"
  dcpu="$(awk -v k="$i" '$2 == 1 { b[$1] = $4 } $2 == k { m[$1] = $4 } END { for (r in m) if (r in b) print (m[r] - b[r]) / 1000 }' "$results" | median)"
  samples="$(awk -v k="$i" '$2 == k && $5 != "-" { print $5 }' "$results" | median)"
  scpu="$(awk -v k="$i" '$2 == k && $6 ~ /^[0-9]+$/ { print $6 / 1e6 }' "$results" | median)"
  per="$(awk -v k="$i" '$2 == k && $5 > 0 && $6 ~ /^[0-9]+$/ { print $6 / $5 / 1000 }' "$results" | median)"
  printf '| %s | %.0f | %.0f | %s | %s | %s | %s |\n' "${names[$i]}" "$wall" "$cpu" "$dcpu" "$samples" "$scpu" "$per"
done
echo
echo "$(nproc) cores, $("$java" -version 2>&1 | head -1), $(date -u +%Y-%m-%d), $rounds rounds of $seconds s"
