#!/usr/bin/env bash
# ShmStreaming's job benchmarks (seed 000 §V): each line is one interleaved A/B experiment of ab.py
# on a running cluster (pseudo-cluster or emulated; needs a tarball built with -Pnative).
#   hadoop-mapreduce-project/hadoop-accel-shmstreaming/src/test/bench/shm_ab.sh \
#     [--smoke] CLUSTER_ENV OUT_DIR [SIZE_C] [SIZE_PY] [PAIRS]
# --smoke: only the C WordCount experiment, ab.py's tiny run (what CI runs).
# Reports land in OUT_DIR/<experiment>/report.md; summarise them with the
# benchmarks/shmstreaming/README.md table (repository root). Exits 1 if any experiment failed.
set -euo pipefail
smoke=
[[ ${1:-} != --smoke ]] || { smoke=1; shift; }
env_file=$1 out=$2 size_c=${3:-128m} size_py=${4:-64m} n=${5:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.." && pwd)
harness=$root/dev-support/bench
[[ -d $harness/hacbench ]] || { echo "no shared harness under $harness" >&2; exit 1; }
failed=0
ab() {
  local name=$1
  shift
  local sizing=(-n "$n")
  [[ -z $smoke ]] || sizing=(--smoke)
  python3 "$harness/ab.py" --cluster-env "$env_file" --no-probes --out "$out/$name" "$@" "${sizing[@]}" \
    > "$out/$name.log" 2>&1 || { echo "$name failed: $out/$name.log"; failed=1; return 0; }
  echo "$name: $out/$name/report.md"
}
mkdir -p "$out"
if [[ -n $smoke ]]; then
  ab c-wc --workload shm-wc-c --a-name pipes --b-name shm --b-args="-io shm"
  exit $failed
fi
unbuffered="-cmdenv PYTHONUNBUFFERED=1"
# Python, seed 000 §III: an unmodified stdin/stdout script over pipes vs the two-line-changed
# script over the rings, both with PYTHONUNBUFFERED=1 (common in container images).
ab py-wc-unbuffered --workload streaming-wc-py --b-workload shm-wc-py --size "$size_py" \
  --a-name pipes --a-args="$unbuffered" --b-name shm --b-args="$unbuffered -io shm"
# The same unmodified stdlib scripts, unbuffered, over pipes vs the rings through the preload shim.
ab py-wc-unbuffered-shim --workload streaming-wc-py --b-workload shim-wc-py --size "$size_py" \
  --a-name pipes --a-args="$unbuffered" --b-name shim --b-args="$unbuffered -io shm"
ab c-wc-inmem --workload shm-wc-c-inmem --size "$size_c" --a-name pipes --b-name shm --b-args="-io shm"
ab c-wc --workload shm-wc-c --size "$size_c" --a-name pipes --b-name shm --b-args="-io shm"
ab c-grep --workload shm-grep-c --size "$size_c" --a-name pipes --b-name shm --b-args="-io shm"
# C WordCount with a combiner over the rings against the native Java job (combiner on).
ab c-wc-combiner-vs-java --workload wordcount --b-workload shm-wc-c-combiner --size "$size_c" \
  --a-name java --b-name shm-c --b-args="-io shm"
# The transport alone: the same hadoop_shm script (buffered either way) over pipes and rings.
ab py-wc --workload shm-wc-py --size "$size_py" --a-name pipes --b-name shm --b-args="-io shm"
exit $failed
