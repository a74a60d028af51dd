#!/usr/bin/env bash
# JBS shuffle throughput against the link (seed 001 §V): one reduce's shuffle end to end
# (jbs_net_merger_e2e_bench: the daemon's EpollServer supplier, the NetMerger, a reducer
# draining the merged stream) inside a private network namespace whose loopback is shaped to
# BW with tbf, so every fetched byte crosses a BW link; the reducer's Unix socket does not.
# Interleaves shaped and unshaped runs; reports fetched MB/s per run and, for the shaped runs,
# the fraction of the link (OUT_DIR/results.json). Needs root (unshare -n, tc).
#   hadoop-mapreduce-project/hadoop-mapreduce-client-nativetask/src/test/bench/jbs_link.sh \
#     [--smoke] OUT_DIR [BW=1gbit] [RUNS=3] [MAPS=64] [MIB_PER_MAP=4]
# --smoke: one run of each, 4 maps of 1 MiB (what CI runs). The bench program is the module's
# -Pnative build (target/native/bench/jbs_net_merger_e2e_bench; JBS_E2E_BENCH overrides).
set -euo pipefail
smoke=
[[ ${1:-} != --smoke ]] || { smoke=1; shift; }
out=$1 bw=${2:-1gbit} runs=${3:-3} maps=${4:-64} mib=${5:-4}
[[ -z $smoke ]] || { runs=1 maps=4 mib=1; }
module=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
bench=${JBS_E2E_BENCH:-$module/target/native/bench/jbs_net_merger_e2e_bench}
[[ -x $bench ]] || { echo "no $bench: build with -Pnative" >&2; exit 1; }
mkdir -p "$out"
rate_mbps=$(python3 -c "
import re,sys; m=re.fullmatch(r'(\d+(?:\.\d+)?)([kmg]?)bit','$bw'.lower())
sys.exit('BW like 1gbit or 100mbit') if not m else print(float(m[1])*{'':1e-6,'k':1e-3,'m':1,'g':1e3}[m[2]]/8)")
run() {  # $1 = shaped|unshaped
  local qdisc=true
  [[ $1 == shaped ]] && qdisc="tc qdisc add dev lo root tbf rate $bw burst 512kb latency 100ms"
  unshare -n sh -c "ip link set lo up && $qdisc && exec '$bench' $maps $mib 128 256 epoll"
}
: > "$out/runs.txt"
for i in $(seq 1 "$runs"); do
  for mode in unshaped shaped; do
    line=$(run $mode)
    echo "$mode $line" | tee -a "$out/runs.txt"
  done
done
python3 - "$out" "$bw" "$rate_mbps" <<'PY'
import json, re, statistics, sys
out, bw, link = sys.argv[1], sys.argv[2], float(sys.argv[3])
runs = {"shaped": [], "unshaped": []}
for line in open(f"{out}/runs.txt"):
    mode = line.split()[0]
    runs[mode].append(float(re.search(r"fetched_MBps ([\d.]+)", line)[1]))
res = {"link": bw, "link_MBps": link,
       "fetched_MBps": {m: {"median": statistics.median(v), "min": min(v), "max": max(v)} for m, v in runs.items()},
       "shaped_over_link": {k: v / link for k, v in
                            {"median": statistics.median(runs["shaped"]), "min": min(runs["shaped"]),
                             "max": max(runs["shaped"])}.items()}}
json.dump(res, open(f"{out}/results.json", "w"), indent=1)
s = res["shaped_over_link"]
print(f"{bw} link ({link:.0f} MB/s): shaped {res['fetched_MBps']['shaped']['median']:.1f} MB/s = "
      f"{s['median']:.2f} of the link ({s['min']:.2f}-{s['max']:.2f}); unshaped "
      f"{res['fetched_MBps']['unshaped']['median']:.0f} MB/s")
PY
