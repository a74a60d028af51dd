#!/usr/bin/env bash
# ShmStreaming's Java side (seed 000): JMH microbenchmark RingVsPipeBenchmark (the shmstreaming
# module's test sources): records/s the task JVM pushes to a program that discards them, through
# the input ring vs through the program's stdin pipe as upstream streaming does; record sizes
# 16 B - 64 KiB, ring batch 1, 16, 256, 4096 and auto.
#   hadoop-mapreduce-project/hadoop-accel-shmstreaming/src/test/bench/shm_jmh.sh \
#     [--smoke] OUT_DIR [JMH options and benchmark regexps ...]
# Builds the module with -Pnative (libhadoop_shm, the program shm_sink) and its test classpath
# (target/test.classpath, which every build of the module writes), runs JMH (OUT_DIR/jmh.json,
# log OUT_DIR/jmh.log) and prints ring / pipe tables (OUT_DIR/table.md, by shm_jmh_table.py).
# Default: every benchmark and point (55 points: pipe 5, ring 25, ringUnbuffered 25), one fork
# each, 2 warm-up + 4 measured iterations of 1 s: ~7 min.
# Narrow it with JMH's own options, e.g.
#   shm_jmh.sh OUT -p size=16,64 -p batch=0          # two sizes, auto batch only
#   shm_jmh.sh OUT 'RingVsPipeBenchmark\.(pipe|ring)$'  # leave out ringUnbuffered
#   shm_jmh.sh OUT -f 1 -wi 1 -i 1 -w 1s -r 1s        # a short run
# --smoke: pipe and ring at 4 KiB records, auto batch, one 1 s iteration each, on the build
# `mvn verify -Pnative` left (what CI runs). SHM_JMH_NO_BUILD=1 reuses the last build too.
# Run nothing else CPU-heavy meanwhile (2 cores: the writer and the program each need one).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,20p' "$0"; exit 2; }
smoke=
[[ $1 != --smoke ]] || { smoke=1; shift; }
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
module=$(cd "$here/../../.." && pwd)
repo=$(cd "$module/../.." && pwd)
cd "$repo"
if [[ -z $smoke && ${SHM_JMH_NO_BUILD:-} != 1 ]]; then
  # One reactor build: the module's test classes (JMH's generated code included), the native
  # library and shm_sink, and target/test.classpath (reactor-resolved: nothing installed).
  mvn -B -q -Pnative -DskipTests -pl "${module#"$repo"/}" -am process-test-classes
fi
[[ -f $module/target/test.classpath ]] || { echo "no $module/target/test.classpath: build the module first" >&2; exit 1; }
cp=$module/target/test-classes:$module/target/classes:$(cat "$module/target/test.classpath")
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jmh_args=("$@")
[[ -z $smoke ]] || jmh_args=(-f 1 -wi 0 -i 1 -r 1s -p size=4096 -p batch=0 'RingVsPipeBenchmark\.(pipe|ring)$')
# JMH's forks inherit these system properties (the host JVM's arguments).
"$java" -Daccel.native.build.dir="$repo/target/native" -cp "$cp" org.openjdk.jmh.Main \
  -rf json -rff "$out/jmh.json" "${jmh_args[@]}" 2>&1 | tee "$out/jmh.log"
python3 "$here/shm_jmh_table.py" "$out/jmh.json" | tee "$out/table.md"
