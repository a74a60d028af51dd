#!/usr/bin/env bash
# ShmStreaming's Java side (seed 000): JMH microbenchmark RingVsPipeBenchmark (the shmstreaming
# module's test sources): records/s the task JVM pushes to a program that discards them, through
# the input ring vs through the program's stdin pipe as upstream streaming does; record sizes
# 16 B - 64 KiB, ring batch 1, 16, 256, 4096 and auto.
#   dev-support/bench/shm_jmh.sh OUT_DIR [JMH options and benchmark regexps ...]
# Builds the module with -Pnative (libhadoop_shm, the program shm_sink) and its test classpath,
# runs JMH (OUT_DIR/jmh.json, log OUT_DIR/jmh.log) and prints ring / pipe tables (OUT_DIR/table.md,
# by shm_jmh_table.py). Default: every benchmark and point (55 points: pipe 5, ring 25,
# ringUnbuffered 25), one fork each, 2 warm-up + 4 measured iterations of 1 s: ~7 min.
# Narrow it with JMH's own options, e.g.
#   shm_jmh.sh OUT -p size=16,64 -p batch=0          # two sizes, auto batch only
#   shm_jmh.sh OUT 'RingVsPipeBenchmark\.(pipe|ring)$'  # leave out ringUnbuffered
#   shm_jmh.sh OUT -f 1 -wi 1 -i 1 -w 1s -r 1s        # a smoke run
# SHM_JMH_NO_BUILD=1 reuses the last build. Run nothing else CPU-heavy meanwhile (2 cores: the
# writer and the program each need one).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,16p' "$0"; exit 2; }
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
module=hadoop-mapreduce-project/hadoop-accel-shmstreaming
cd "$repo"
if [ "${SHM_JMH_NO_BUILD:-}" != 1 ]; then
  # One reactor build: the module's test classes (JMH's generated code included), the native
  # library and shm_sink, and the test classpath (written into each built module's target/).
  mvn -B -q -Pnative -DskipTests -pl "$module" -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/shm-jmh-classpath.txt
fi
cp=$module/target/test-classes:$module/target/classes:$(cat "$module/target/shm-jmh-classpath.txt")
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
# JMH's forks inherit these system properties (the host JVM's arguments).
"$java" -Daccel.native.build.dir="$repo/target/native" -cp "$cp" org.openjdk.jmh.Main \
  -rf json -rff "$out/jmh.json" "$@" 2>&1 | tee "$out/jmh.log"
python3 "$here/shm_jmh_table.py" "$out/jmh.json" | tee "$out/table.md"
