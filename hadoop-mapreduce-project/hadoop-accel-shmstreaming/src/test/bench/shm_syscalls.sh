#!/usr/bin/env bash
# ShmStreaming's transport cost (seed 000): system calls and context switches spent moving records
# between a streaming task and its program, pipes vs rings, per record moved.
#   hadoop-mapreduce-project/hadoop-accel-shmstreaming/src/test/bench/shm_syscalls.sh \
#     [--smoke] HADOOP_HOME OUT_DIR [INPUT_MB [RUN-PREFIX]]
# (RUN-PREFIX re-runs only the runs whose names start with it, keeping the others' results.)
# --smoke: 1 MB, only the C WordCount mapper over the rings (what CI runs).
# One map-only job per configuration on the local job runner (task and program on this machine,
# the tarball's own configuration), each run twice:
#  - under `strace -f -y`: the program's reads of fd 0, writes of fd 1 and futex calls, and the
#    task JVM's reads and writes of the pipes the program holds as fd 0/1, or its futex calls on
#    addresses inside a ring it mapped: the calls that move records, attributed exactly;
#  - under `perf record -g -e sched:sched_switch -a` (no strace, whose stops would add
#    switches): the context switches of the program and of the task's two transport threads
#    (the map thread that writes records, MROutputThread that reads them back), voluntary and
#    not, each classified by the kernel stack it blocked in: a pipe read/write, a futex wait,
#    or anything else (disk, JVM, exit).
# Times under tracing mean nothing: read the counts. summary.txt holds the table, counts.json
# the numbers.
set -euo pipefail
smoke=
[[ ${1:-} != --smoke ]] || { smoke=1; shift; }
home=$1 out=$2 mb=${3:-8} only=${4:-}
[[ -z $smoke ]] || { mb=1 only=; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
export HADOOP_HOME=$home HADOOP_CONF_DIR=$home/etc/hadoop
streaming=$(ls "$home"/share/hadoop/tools/lib/hadoop-streaming-*.jar)
ex=$home/share/hadoop/tools/shmstreaming/examples
py=$home/share/hadoop/tools/shmstreaming/python
shim=$home/lib/native/libhadoop_shm_preload.so
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../../../.." && pwd)
stdlib_py=$repo/hadoop-mapreduce-project/hadoop-accel-workloads/src/main/python
# The interpreter itself, not a wrapper script (a pyenv shim would exec it under the preload shim).
python=$(python3 -c 'import sys; print(sys.executable)')
input=$out/input.txt
python3 - "$input" "$mb" <<'GEN'
import random, sys
r, target = random.Random(7), int(sys.argv[2]) << 20
with open(sys.argv[1], "w") as f:
    n = 0
    while n < target:
        line = " ".join("w%d" % int(r.random() * r.random() * 10000) for _ in range(15)) + "\n"
        f.write(line)
        n += len(line)
GEN
[[ -n $only ]] || : > "$out/runs.txt"
run() { # run NAME PROGRAM-EXE EXTRA-ARGS... : one map-only job under strace, once under perf
  local name=$1 exe=$2
  shift 2
  [[ -z $smoke || $name == c-wc-shm ]] || return 0
  [[ -z $only || $name == $only* ]] || { grep -q "^$name " "$out/runs.txt" || echo "$name $exe" >> "$out/runs.txt"; return 0; }
  local job=("$home/bin/hadoop" jar "$streaming" -D mapreduce.framework.name=local
    -D fs.defaultFS=file:/// -D mapreduce.input.fileinputformat.split.minsize=1073741824
    "$@" -input "$input" -numReduceTasks 0)
  rm -rf "$out/out-$name"
  perf record -q -g -e sched:sched_switch -a -o "$out/$name.perf" -- \
    "${job[@]}" -output "$out/out-$name" > "$out/$name.log" 2>&1
  perf script -i "$out/$name.perf" -F comm,tid,trace,ip,sym 2>/dev/null \
    | python3 "$here/shm_transport_counts.py" --classify-switches > "$out/$name.switches"
  rm -f "$out/$name.perf"
  rm -rf "$out/out-$name"
  strace -f -y -s 256 -o "$out/$name.strace" -e trace=read,write,readv,writev,futex,mmap,execve \
    "${job[@]}" -output "$out/out-$name" > "$out/$name.strace.log" 2>&1
  grep -q "^$name " "$out/runs.txt" || echo "$name $exe" >> "$out/runs.txt"
}
run c-inmem-pipes shm_wordcount_combining_mapper -mapper "$ex/shm_wordcount_combining_mapper"
run c-inmem-shm shm_wordcount_combining_mapper -io shm -mapper "$ex/shm_wordcount_combining_mapper"
run c-wc-pipes shm_wordcount_mapper -mapper "$ex/shm_wordcount_mapper"
run c-wc-shm shm_wordcount_mapper -io shm -mapper "$ex/shm_wordcount_mapper"
pyexe=$(basename "$python")
run py-unbuffered-pipes "$pyexe" -cmdenv PYTHONUNBUFFERED=1 \
  -mapper "$python $stdlib_py/wordcount_mapper.py"
run py-unbuffered-shm "$pyexe" -io shm -cmdenv PYTHONUNBUFFERED=1 -cmdenv "PYTHONPATH=$py" \
  -mapper "$python $py/examples/wordcount_mapper.py"
run py-unbuffered-shim "$pyexe" -io shm -cmdenv PYTHONUNBUFFERED=1 \
  -mapper "env LD_PRELOAD=$shim $python $stdlib_py/wordcount_mapper.py"
python3 "$here/shm_transport_counts.py" "$out" | tee "$out/summary.txt"
