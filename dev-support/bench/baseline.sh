#!/usr/bin/env bash
# Baseline of stock Hadoop on every workload: stock-vs-stock A/B runs (so the harness's own bias
# shows as the spread of the ratio around 1.0) on one cluster, reports under benchmarks/baselines/.
#
#   dev-support/bench/baseline.sh [--cluster-env FILE] [--size 64m] [-n 2] [--warmup 1] [WORKLOAD ...]
#
# Without --cluster-env it brings up a pseudo-distributed cluster and takes it down after.
# Re-running with some workloads adds them to the day's directory; the index covers all of them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
env_file=
size=64m
reps=2
warmup=1
workloads=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --cluster-env) env_file=$2; shift ;;
    --size) size=$2; shift ;;
    -n) reps=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    -*) sed -n '2,8p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
    *) workloads+=("$1") ;;
  esac
  shift
done
if [[ ${#workloads[@]} -eq 0 ]]; then
  mapfile -t workloads < <(cd "$here" && python3 -c 'from hacbench.workloads import WORKLOADS; print("\n".join(WORKLOADS))')
fi

own=false
if [[ -z $env_file ]]; then
  own=true
  work=${TMPDIR:-/tmp}/hadoop-accel-baseline
  trap '"$repo/dev-support/bin/pseudo-cluster" down --work-dir "$work"' EXIT
  "$repo/dev-support/bin/pseudo-cluster" up --work-dir "$work"
  env_file=$work/cluster.env
fi
kind=$($own && echo pseudo || echo emulated)
out=$repo/benchmarks/baselines/$(date +%Y-%m-%d)-$kind
mkdir -p "$out"

failed=()
for w in "${workloads[@]}"; do
  echo "=== $w"
  if ! python3 "$here/ab.py" --workload "$w" --size "$size" -n "$reps" --warmup "$warmup" \
      --a-name stock --b-name stock-again --cluster-env "$env_file" --out "$out/$w"; then
    failed+=("$w")
  fi
  rm -rf "$out/$w/logs"  # client logs are large and machine-specific
done

python3 "$here/baseline_index.py" "$out"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
