#!/usr/bin/env bash
# "No random fallbacks": on a pseudo cluster from the distribution tarball with the
# JBS aux service on, runs RUNS TeraSorts of REDUCES reduces each over one TeraGen input and
# checks that every reduce attempt was merged by the NetMerger — job counters (JBS "Reduces
# merged by the NetMerger" = launched reduces = REDUCES, no fallback, no failed or killed
# attempt) and task logs (no "JBS is off for" line) — and that every output passes TeraValidate
# with the same checksum.
#   hadoop-mapreduce-project/hadoop-mapreduce-client-nativetask/src/test/bench/jbs_native_streak.sh \
#     [--tarball FILE] [--work-dir DIR] [--keep] OUT_DIR [RUNS=10] [REDUCES=3] [ROWS=100000]
# The cluster listens on non-default ports (below) so it can sit beside other local clusters,
# and is stopped on exit. Writes OUT_DIR/report.md (one row per run) and OUT_DIR/runs.tsv;
# exits 1 unless every reduce of every run merged natively and validated.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.." && pwd)
cluster=$root/dev-support/bin/pseudo-cluster
tarball_args=() keep=false
work=${TMPDIR:-/tmp}/hacc-jbs-streak-${USER:-$(id -un)}
while [[ ${1:-} == --* ]]; do
  case $1 in
    --tarball) tarball_args=(--tarball "$2"); shift 2 ;;
    --work-dir) work=$2; shift 2 ;;
    --keep) keep=true; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 ]] || { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
out=$1 runs=${2:-10} reduces=${3:-3} rows=${4:-100000}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { echo "jbs-streak: $*" >&2; }

# Ports: the usual ones + 10000 (or + 20000 where that would pass 65535 or clash).
c=core-site.xml h=hdfs-site.xml y=yarn-site.xml m=mapred-site.xml
conf=(
  "fs.defaultFS=hdfs://localhost:19000@$c"
  "dfs.namenode.http-address=localhost:19870@$h"
  "dfs.namenode.secondary.http-address=localhost:19868@$h"
  "dfs.datanode.address=localhost:19866@$h"
  "dfs.datanode.http.address=localhost:19864@$h"
  "dfs.datanode.ipc.address=localhost:19867@$h"
  "yarn.resourcemanager.address=localhost:18032@$y"
  "yarn.resourcemanager.scheduler.address=localhost:18030@$y"
  "yarn.resourcemanager.resource-tracker.address=localhost:18031@$y"
  "yarn.resourcemanager.admin.address=localhost:18033@$y"
  "yarn.resourcemanager.webapp.address=localhost:18088@$y"
  "yarn.nodemanager.localizer.address=localhost:18040@$y"
  "yarn.nodemanager.webapp.address=localhost:18042@$y"
  "mapreduce.jobhistory.address=localhost:20020@$m"
  "mapreduce.jobhistory.webapp.address=localhost:29888@$m"
  "mapreduce.jobhistory.admin.address=localhost:20033@$m"
  "mapreduce.shuffle.port=23562@$m"
  # JBS on, as the module README's "Switch" says: both aux services, our own supplier port and
  # a socket in a directory of this run.
  "yarn.nodemanager.aux-services=mapreduce_shuffle,jbs_shuffle@$y"
  "yarn.nodemanager.aux-services.jbs_shuffle.class=io.hadoopaccel.mapreduce.jbs.JbsAuxService@$y"
  "yarn.nodemanager.aux-services.mapreduce_shuffle.class=io.hadoopaccel.mapreduce.jbs.JbsShuffleHandler@$y"
  "hadoop.accel.jbs.supplier.port=23570@$c"
  "hadoop.accel.jbs.merger.socket=$work-sock/merger.sock@$c"
  "mapreduce.job.reduce.shuffle.consumer.plugin.class=org.apache.hadoop.mapreduce.task.reduce.JbsShuffle@$m"
  # No speculative attempts: their attempt number is > 0, so they run stock shuffle by design
  # (not eligible); on a busy host a slow reduce gets one, and counting it would hide whether
  # the eligible first attempts all merged natively.
  "mapreduce.map.speculative=false@$m"
  "mapreduce.reduce.speculative=false@$m"
)
conf_args=()
for kv in "${conf[@]}"; do conf_args+=(--conf "$kv"); done

finish() {
  local rc=$?
  if [[ -f $work/cluster.env ]]; then
    # A reduce that fell back says why in its task log, which goes with the cluster: keep them.
    grep -rh "JBS is off for" "$work"/logs/userlogs > "$out/fallbacks.log" 2>/dev/null || true
    [[ -s $out/fallbacks.log ]] || rm -f "$out/fallbacks.log"
    "$cluster" down --work-dir "$work" || rc=1
    $keep || rm -rf "$work" "$work-sock"
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$cluster" up --work-dir "$work" ${tarball_args[@]+"${tarball_args[@]}"} "${conf_args[@]}"
# shellcheck disable=SC1091
. "$work/cluster.env"
work=$CLUSTER_WORK
examples=$(ls "$HADOOP_HOME"/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar)
ex() { hadoop jar "$examples" "$@"; }
# counter NAME LOG: the value of a counter line "NAME=value" of a job's console output (0 if
# the job printed none, as Hadoop leaves zero-valued counters out).
counter() { { grep -m1 -E "^\s*$1=" "$2" || echo "=0"; } | sed 's/.*=//'; }

log "teragen $rows rows"
ex teragen -Dmapreduce.job.maps=2 "$rows" streak/in > "$out/teragen.log" 2>&1 \
  || { tail -n 30 "$out/teragen.log"; exit 1; }

printf 'run\tjob\tseconds\tlaunched_reduces\tnative_reduces\tfallbacks\tfailed_reduces\tkilled_reduces\tvalidate_checksum\tverdict\n' \
  > "$out/runs.tsv"
failed=0 native_total=0 checksum0=
for ((i = 1; i <= runs; i++)); do
  jl=$work/terasort-$i.log vl=$work/teravalidate-$i.log
  t0=$(date +%s)
  ok=true
  ex terasort -Dmapreduce.job.reduces="$reduces" streak/in "streak/out-$i" > "$jl" 2>&1 || ok=false
  t1=$(date +%s)
  job=$(grep -m1 -oE 'job_[0-9]+_[0-9]+' "$jl" || echo "?")
  launched=$(counter 'Launched reduce tasks' "$jl")
  native=$(counter 'Reduces merged by the NetMerger' "$jl")
  fallbacks=$(counter 'Reduces that fell back to stock shuffle' "$jl")
  failed_r=$(counter 'Failed reduce tasks' "$jl")
  killed_r=$(counter 'Killed reduce tasks' "$jl")
  sum=-
  if $ok && ex teravalidate "streak/out-$i" "streak/report-$i" > "$vl" 2>&1; then
    report=$(hdfs dfs -cat "streak/report-$i/part-r-*")
    if grep -q '^checksum' <<<"$report" && ! grep -qiE 'misorder|error' <<<"$report"; then
      sum=$(awk '/^checksum/ { print $2 }' <<<"$report")
    fi
  fi
  [[ -z $checksum0 && $sum != - ]] && checksum0=$sum
  verdict=native
  if ! $ok; then verdict="job failed"
  elif [[ $sum == - ]]; then verdict="TeraValidate failed"
  elif [[ $sum != "$checksum0" ]]; then verdict="checksum differs from run 1"
  elif [[ $launched != "$reduces" || $native != "$reduces" || $fallbacks != 0 || $failed_r != 0 || $killed_r != 0 ]]; then
    verdict="not all native"
  fi
  [[ $verdict == native ]] || { failed=1; tail -n 20 "$jl" >&2; }
  native_total=$((native_total + native))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$job" "$((t1 - t0))" "$launched" "$native" \
    "$fallbacks" "$failed_r" "$killed_r" "$sum" "$verdict" >> "$out/runs.tsv"
  log "run $i: $job: $native of $launched reduces native, $verdict"
  hdfs dfs -rm -r -skipTrash "streak/out-$i" "streak/report-$i" > /dev/null 2>&1 || true
done

# Task logs: each reduce attempt on the native path logs "JBS: <attempt> reads its input merged
# by the NetMerger", one that fell back "JBS is off for <attempt>".
# Only the TeraSorts' attempts (TeraValidate's one reduce runs natively too).
sorts=$(tail -n +2 "$out/runs.tsv" | cut -f2 | sed 's/^job_//' | paste -sd'|')
native_attempts=$(grep -rhoE 'JBS: attempt_[0-9]+_[0-9]+_r_[0-9]+_[0-9]+ reads its input merged' \
  "$work"/logs/userlogs 2>/dev/null | grep -E "attempt_($sorts)_r_" | sort -u | wc -l || true)
off_lines=$(grep -rh "JBS is off for" "$work"/logs/userlogs 2>/dev/null | wc -l || true)
[[ $off_lines -eq 0 ]] || failed=1
expected=$((runs * reduces))
[[ $native_total -eq $expected && $native_attempts -eq $expected ]] || failed=1

{
  echo "# JBS native streak: $runs TeraSorts x $reduces reduces on a pseudo cluster"
  echo
  echo "$(date -u +%F), \`jbs_native_streak.sh OUT $runs $reduces $rows\`: $CLUSTER_DESCRIPTION from"
  echo "\`$(basename "$HADOOP_HOME")\`, JBS aux service on the NodeManager, \`JbsShuffle\` as every job's"
  echo "reduce-side plugin; TeraGen of $rows rows (2 maps), each TeraSort over it and TeraValidate of its output."
  echo
  echo "**Result: $native_total of $expected reduces merged by the NetMerger (job counters);"
  echo "$native_attempts reduce attempts logged their native merge and $off_lines a fallback (task logs).**"
  [[ $failed -eq 0 ]] && echo "Every run: all reduces native, no fallback, no failed or killed reduce attempt, TeraValidate clean, same checksum." \
    || echo "FAILED: see the verdict column (and fallbacks.log)."
  echo
  echo "| run | job | s | launched reduces | native | fallbacks | failed | killed | TeraValidate checksum | verdict |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  tail -n +2 "$out/runs.tsv" | awk -F'\t' '{ printf "| %s |\n", $1 " | " $2 " | " $3 " | " $4 " | " $5 " | " $6 " | " $7 " | " $8 " | " $9 " | " $10 }'
  echo
  echo "Seconds are wall time on a shared 2-core machine and say nothing about speed."
} > "$out/report.md"
cat "$out/report.md"
exit $failed
