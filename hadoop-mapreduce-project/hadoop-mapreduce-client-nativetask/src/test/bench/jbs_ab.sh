#!/usr/bin/env bash
# JBS native shuffle benchmarks (seed 001 §V): brings up the emulated cluster with the JBS aux
# service on every NodeManager (stock ShuffleHandler still serves A and any fallback; the nodes
# share /tmp, so each NetMerger gets its own socket path), then runs
# one interleaved A/B of ab.py per workload: A = stock Shuffle, B = JbsShuffle.
#   hadoop-mapreduce-project/hadoop-mapreduce-client-nativetask/src/test/bench/jbs_ab.sh \
#     [--smoke] [--cluster-env FILE] [--warmup N] OUT_DIR [SIZE] [PAIRS] [BW] [WORKLOADS...]
# Defaults: 256m, 3 pairs after 1 warm-up pair, 1gbit, the shuffle-heavy four and the two
# no-gain controls.
# --cluster-env FILE: a running emulated cluster already configured with the aux service and
# the per-host socket (as dev-support/bin/bench-smoke brings up) instead of one of its own.
# --smoke: ab.py's tiny run (2 MB, one pair, no warm-up) of wordcount only, no cache drops:
# what CI runs to prove the driver works.
# Besides the job's counters: the CPU of both daemons and of the NodeManagers (stock's
# ShuffleHandler serves from there) per run, the whole machine's busy CPU, and reduce_side_cpu_s
# (reduce tasks + NetMerger).
# JOB_ARGS (environment) go to both A and B, e.g. JOB_ARGS=-Dmapreduce.job.reduces=4.
# Needs root and a tarball built with -Pdist,native. Reports: OUT_DIR/<bw>/<workload>/report.md;
# the reason of any reduce that fell back to stock: OUT_DIR/<bw>/fallbacks.log.
set -euo pipefail
smoke= env_file= warmup=1
while [[ ${1:-} == --* ]]; do
  case $1 in
    --smoke) smoke=1; shift ;;
    --cluster-env) env_file=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
out=$1 size=${2:-256m} n=${3:-3} bw=${4:-1gbit}
shift $(( $# < 4 ? $# : 4 ))
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(terasort selfjoin invertedindex adjacencylist wordcount grep)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.." && pwd)
[[ -d $root/dev-support/bench/hacbench ]] || { echo "no shared harness under $root/dev-support/bench" >&2; exit 1; }
run_args=(--size "$size" -n "$n" --warmup "$warmup" --drop-caches)
[[ -z $smoke ]] || { run_args=(--smoke --no-probes); workloads=(wordcount); }
emu=$root/dev-support/bin/emu-cluster
own=
if [[ -n $env_file ]]; then
  work=$(. "$env_file" && echo "$CLUSTER_WORK")
else
  own=1
  work=${TMPDIR:-/tmp}/hacc-emu-jbs
  env_file=$work/cluster.env
  y=yarn-site.xml
  "$emu" up --work-dir "$work" --bw "$bw" \
    --conf "yarn.nodemanager.aux-services=mapreduce_shuffle,jbs_shuffle@$y" \
    --conf "yarn.nodemanager.aux-services.jbs_shuffle.class=io.hadoopaccel.mapreduce.jbs.JbsAuxService@$y" \
    --conf "yarn.nodemanager.aux-services.mapreduce_shuffle.class=io.hadoopaccel.mapreduce.jbs.JbsShuffleHandler@$y" \
    --conf "hadoop.accel.jbs.merger.socket=/tmp/hacc-jbs-{host}/merger.sock@core-site.xml"
fi
mkdir -p "$out/$bw"
# A reduce that falls back says why in its task log, which goes with the cluster: keep those lines.
keep_fallbacks() {
  grep -rh "JBS is off for" "$work"/nodes/*/logs/userlogs > "$out/$bw/fallbacks.log" 2>/dev/null || true
}
if [[ -n $own ]]; then
  trap 'keep_fallbacks; "$emu" down --work-dir "$work"' EXIT
else
  trap keep_fallbacks EXIT
fi
jbs="-Dmapreduce.job.reduce.shuffle.consumer.plugin.class=org.apache.hadoop.mapreduce.task.reduce.JbsShuffle"
failed=0
for w in "${workloads[@]}"; do
  python3 "$root/dev-support/bench/ab.py" --cluster-env "$env_file" --no-probes \
    --workload "$w" "${run_args[@]}" --out "$out/$bw/$w" \
    --cpu-of netmerger=jbs_net_merger --cpu-of mofsupplier=jbs_mof_supplier \
    --cpu-of nodemanagers=yarn.server.nodemanager.NodeManager --reduce-side netmerger \
    --a-name stock --a-args="${JOB_ARGS:-}" --b-name jbs --b-args="${JOB_ARGS:-} $jbs" > "$out/$bw/$w.log" 2>&1 \
    || { echo "$w failed: $out/$bw/$w.log"; failed=1; continue; }
  echo "$w: $out/$bw/$w/report.md"
done
exit $failed
