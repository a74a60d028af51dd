#!/usr/bin/env bash
# Baseline of stock Hadoop on every workload: stock-vs-stock A/B runs (so the harness's own bias
# shows as the spread of the ratio around 1.0) on one cluster, reports under baselines/.
#
#   dev-support/bench/baseline.sh [--cluster-env FILE] [--size 64m] [-n 2] [WORKLOAD ...]
#
# Without --cluster-env it brings up a pseudo-distributed cluster and takes it down after.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
env_file=
size=64m
reps=2
workloads=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --cluster-env) env_file=$2; shift ;;
    --size) size=$2; shift ;;
    -n) reps=$2; shift ;;
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
out=$here/baselines/$(date +%Y-%m-%d)-$kind
mkdir -p "$out"

failed=()
for w in "${workloads[@]}"; do
  echo "=== $w"
  if ! python3 "$here/ab.py" --workload "$w" --size "$size" -n "$reps" --warmup 0 \
      --a-name stock --b-name stock-again --cluster-env "$env_file" --out "$out/$w"; then
    failed+=("$w")
  fi
  rm -rf "$out/$w/logs"  # client logs are large and machine-specific
done

python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
rows = ["| workload | wall s (median [min–max]) | job s | B/A wall (pair min–max) | outputs identical |",
        "|---|---|---|---|---|"]
first = None
for res in sorted(out.glob("*/results.json")):
    e = json.loads(res.read_text())
    first = first or e
    c = {x["metric"]: x for x in e["comparisons"]}
    a, j = c["wall_s"]["a"], c.get("job_s", {}).get("a") or {}
    pr = c["wall_s"]["pair_ratios"] or {}
    rows.append(f"| [{e['workload']}]({res.parent.name}/report.md) | {a['median']:.1f} [{a['min']:.1f}–{a['max']:.1f}] "
                f"| {j.get('median', float('nan')):.1f} | {c['wall_s']['ratio']:.3f} ({pr.get('min', 0):.3f}–{pr.get('max', 0):.3f}) "
                f"| {e['outputs_identical']} |")
head = [f"# Stock Hadoop 3.5.0 baseline: {out.name}", ""]
if first:
    head += [f"- date: {first['date']}", f"- machine: {first['machine']}", f"- cluster: {first['cluster']}",
             f"- input size: {first['size_bytes']} bytes; {first['repetitions']} stock-vs-stock pairs per workload",
             f"- command: `dev-support/bench/baseline.sh {' '.join(sys.argv[2:])}` (each row links its report)", ""]
(out / "README.md").write_text("\n".join(head + rows) + "\n")
print((out / "README.md").read_text())
PY
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
