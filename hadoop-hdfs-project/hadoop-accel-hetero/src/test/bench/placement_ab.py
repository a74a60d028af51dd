#!/usr/bin/env python3
"""Heterogeneity-aware placement on the emulated cluster: the same input placed by stock HDFS
and by computing-ratio profiles, then Grep and WordCount A/B (ab.py) on each placement.

  hadoop-hdfs-project/hadoop-accel-hetero/src/test/bench/placement_ab.py
                  [--cpu 1.0,0.5,0.3,0.3,0.3] [--bw 1gbit] [--size 512m] [--block 16m]
                  [-n 3] [--warmup 1] [--workloads grep,wordcount] [--also even,all-in-c]
                  [--ratios nominal|FILE] [--emu-conf NAME=VALUE@FILE]...
                  [--job-args OPTIONS] [--feature NAME=OPTIONS] [--out DIR]
                  [--keep-cluster] [--drop-caches] [--cluster-env FILE] [--smoke]

Brings up `emu-cluster` with one worker per CPU share, replication 1 and the placement policy on
(no directory is bound at first, so stock placement applies everywhere). Placements, each a copy
of one generated input written from the master (not a DataNode, so stock places it at random):
  stock      /place/stock, unbound: stock HDFS
  grep, wordcount   /place/<workload>, bound to that workload's profile (our placement)
  even       every node ratio 1 (the seed's "480 in each")
  all-in-c   every block on node3 (the seed's "All-in-C")
Profiles: --ratios nominal derives ratios from the CPU shares (ratio = fastest share / share,
the seed's 1 : 2 : 3.3 for 1.0 : 0.5 : 0.3); --ratios FILE uses a profiles file measured with
`hdfs hetero profile` (profiles named after the workloads).
For each workload: ab.py stock vs its profile's placement (-n pairs), and, for each --also
placement, ab.py stock vs that one (one pair). Writes OUT/README.md (summary), OUT/layout.json
(blocks per node per placement) and one ab.py report per comparison.
--cluster-env FILE: a running emulated cluster (one worker per --cpu share) already started with
the policy, replication 1 and hadoop.accel.hetero.profiles.file=<its work dir>/hetero-profiles.conf
(as dev-support/bin/bench-smoke brings up); it is left running.
--job-args OPTIONS: job options for both arms of every comparison (e.g.
-Dmapreduce.map.speculative=false, so that data-local maps count original attempts only).
--feature NAME=OPTIONS: instead, compare each workload's placement alone (A) with the same
placement plus a job-level feature (B, named NAME, with job options OPTIONS): seed 003 runs
PSP on top of its placement (chapters 3 and 4 are one system). The feature's cluster side comes
through --emu-conf.
--drop-caches: ab.py drops the page cache before every run (a testbed's measurement: the nodes
then read their input from their throttled disks).
--smoke: 2 MB in 1 MB blocks, grep only, one pair, no warm-up (what CI runs).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

# The shared harness, dev-support/bench of the repository this module is in.
REPO = next(
    p for p in Path(__file__).resolve().parents if (p / "dev-support/bench/hacbench").is_dir()
)
HARNESS = REPO / "dev-support/bench"
sys.path.insert(0, str(HARNESS))

import ab  # noqa: E402
from hacbench import cluster as clusters  # noqa: E402

EMU = REPO / "dev-support/bin/emu-cluster"
POLICY = "org.apache.hadoop.hdfs.server.blockmanagement.HeteroBlockPlacementPolicy"


def nominal_ratios(shares: list[float]) -> dict[str, float]:
    best = max(shares)
    return {f"node{i + 1}": round(best / s, 3) for i, s in enumerate(shares)}


def profiles_text(ratios: dict[str, float], workloads: list[str], nodes: list[str]) -> str:
    lines = ["# written by placement_ab.py (hadoop-accel-hetero/src/test/bench)"]

    def profile(name: str, r: dict[str, float]) -> None:
        lines.append(f"profile {name}")
        lines.extend(f"node {n} {v:g}" for n, v in r.items())

    for w in workloads:
        profile(w, ratios)
    profile("even", {n: 1 for n in nodes})
    # "All-in-C": node3 takes every block; the others are a million times slower.
    profile("all-in-c", {n: (1 if n == "node3" else 1e6) for n in nodes})
    return "\n".join(lines) + "\n"


def layout(c: clusters.Cluster, path: str, nodes: list[str]) -> dict[str, int]:
    """Blocks per node under path, from fsck (replication 1: one location per block)."""
    out = c.sh(f"hdfs fsck {path} -files -blocks -locations").stdout
    counts = {n: 0 for n in nodes}
    ip_to_node = {f"198.18.0.{10 + i + 1}": n for i, n in enumerate(nodes)}
    for ip in re.findall(r"DatanodeInfoWithStorage\[([\d.]+):\d+", out):
        counts[ip_to_node.get(ip, ip)] = counts.get(ip_to_node.get(ip, ip), 0) + 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cpu", default="1.0,0.5,0.3,0.3,0.3")
    ap.add_argument("--bw", default="1gbit")
    ap.add_argument("--size", default="512m")
    ap.add_argument("--block", default="16m")
    ap.add_argument("-n", "--repetitions", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--workloads", default="grep,wordcount")
    ap.add_argument(
        "--also", default="", help="extra placements compared once with stock: even,all-in-c"
    )
    ap.add_argument("--ratios", default="nominal")
    ap.add_argument("--out", default=None)
    ap.add_argument("--job-args", default="", help="job options for both arms")
    ap.add_argument(
        "--feature",
        default="",
        metavar="NAME=OPTIONS",
        help="compare placement alone with placement plus this job-level feature",
    )
    ap.add_argument(
        "--emu-conf",
        action="append",
        default=[],
        help="extra NAME=VALUE@FILE for emu-cluster, e.g. a scheduler setting (repeatable)",
    )
    ap.add_argument("--keep-cluster", action="store_true")
    ap.add_argument(
        "--drop-caches", action="store_true", help="drop the page cache before every run"
    )
    ap.add_argument(
        "--cluster-env", help="cluster.env of a running emulated cluster set up for placement"
    )
    ap.add_argument("--smoke", action="store_true", help="2 MB, grep, one pair, no warm-up (CI)")
    args = ap.parse_args()
    if args.smoke:
        args.size, args.block, args.workloads, args.also = "2m", "1m", "grep", ""
        args.repetitions, args.warmup = 1, 0

    shares = [float(s) for s in args.cpu.split(",")]
    nodes = [f"node{i + 1}" for i in range(len(shares))]
    workloads = [w for w in args.workloads.split(",") if w]
    also = [p for p in args.also.split(",") if p]
    feature, _, feature_args = args.feature.partition("=")
    if args.feature and not (feature and feature_args):
        raise SystemExit(f"--feature wants NAME=OPTIONS, got {args.feature!r}")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out or REPO / "target/bench" / f"placement-{stamp}")
    out.mkdir(parents=True, exist_ok=True)
    own_cluster = args.cluster_env is None
    work = (
        Path("/tmp/hacc-emu")
        if own_cluster
        else Path(clusters.Cluster(Path(args.cluster_env)).env("CLUSTER_WORK"))
    )
    profiles_file = work / "hetero-profiles.conf"

    if own_cluster:
        subprocess.run(
            [
                str(EMU),
                "up",
                "--nodes",
                str(len(shares)),
                "--cpu",
                args.cpu,
                "--bw",
                args.bw,
                "--replication",
                "1",
                "--conf",
                f"dfs.block.replicator.classname={POLICY}@hdfs-site.xml",
                "--conf",
                f"hadoop.accel.hetero.profiles.file={profiles_file}@hdfs-site.xml",
                "--conf",
                "hadoop.accel.hetero.profiles.reload.ms=0@hdfs-site.xml",
                "--conf",
                f"dfs.blocksize={args.block}@hdfs-site.xml",
            ]
            + [a for kv in args.emu_conf for a in ("--conf", kv)],
            check=True,
        )
    try:
        c = clusters.Cluster(work / "cluster.env")
        if args.ratios == "nominal":
            ratios = nominal_ratios(shares)
            text = profiles_text(ratios, workloads, nodes)
        else:
            text = Path(args.ratios).read_text()
            ratios = {}
        placements = {"stock": None} | {w: w for w in workloads} | {p: p for p in also}
        if feature:  # only the workloads' own placements are compared
            placements = {w: w for w in workloads}
        text += "".join(f"bind /place/{p} {prof}\n" for p, prof in placements.items() if prof)
        profiles_file.write_text(text)

        values = ab.paths(c)
        size = ab.parse_size(args.size)
        src = "/bench/placement-src"
        c.sh(f"hdfs dfs -rm -r -f -skipTrash {src} /place")
        c.sh(
            f"hadoop jar {values['jar']} gen-text -Ddfs.blocksize={args.block} -bytes {size} "
            f"-seed 7 {src}",
            log=out / "generate.log",
        )
        lay = {}
        for p in placements:
            c.sh(
                f"hdfs dfs -mkdir -p /place/{p} && hdfs dfs -Ddfs.blocksize={args.block} -cp "
                f"{src}/part-* /place/{p}/"
            )
            lay[p] = layout(c, f"/place/{p}", nodes)
            print(f"placement {p}: {lay[p]}", flush=True)
        (out / "layout.json").write_text(
            json.dumps({"ratios": ratios, "cpu": shares, "layout": lay}, indent=1)
        )

        rows = []

        def compare(w: str, a: str, b: str, n: int, warmup: int, b_args: str = "") -> None:
            """ab.py: placement A against B (B's input is placement B, or A's with b_args)."""
            dest = out / f"{w}-{a}-vs-{b}"
            a_input = "stock" if a == "stock" else w
            b_input = w if b_args else b
            rc = subprocess.run(
                [
                    sys.executable,
                    str(HARNESS / "ab.py"),
                    "--workload",
                    w,
                    "--size",
                    args.size,
                    "--cluster-env",
                    str(work / "cluster.env"),
                    "--a-name",
                    a,
                    "--a-input",
                    f"/place/{a_input}",
                    "--b-name",
                    b,
                    "--b-input",
                    f"/place/{b_input}",
                    "-n",
                    str(n),
                    "--warmup",
                    str(warmup),
                    "--no-probes",
                    f"--a-args={args.job_args}",
                    f"--b-args={args.job_args} {b_args}".strip(),
                    "--out",
                    str(dest),
                ]
                + (["--drop-caches"] if args.drop_caches else [])
            ).returncode
            res = json.loads((dest / "results.json").read_text()) if rc == 0 else None
            rows.append((w, a, b, n, rc, res))

        for w in workloads:
            if feature:
                compare(
                    w,
                    "placement",
                    f"placement+{feature}",
                    args.repetitions,
                    args.warmup,
                    feature_args,
                )
                continue
            compare(w, "stock", w, args.repetitions, args.warmup)
            for p in also:
                compare(w, "stock", p, 1, 0)
        (out / "README.md").write_text(summary(args, shares, nodes, lay, rows))
        print(f"summary: {out / 'README.md'}")
        return 0 if all(rc == 0 for _w, _a, _b, _n, rc, _res in rows) else 1
    finally:
        if own_cluster and not args.keep_cluster:
            subprocess.run([str(EMU), "down"], check=False)


def metric(res: dict, name: str) -> dict | None:
    for c in res.get("comparisons", []):
        if c["metric"] == name:
            return c
    return None


def local_fraction(res: dict, config: str) -> str:
    fr = []
    for r in res["runs"]:
        if r["config"] == config and not r["warmup"] and r.get("job"):
            cnt = r["job"]["counters"]
            maps = cnt.get("TOTAL_LAUNCHED_MAPS") or 0
            if maps:
                fr.append(cnt.get("DATA_LOCAL_MAPS", 0) / maps)
    return f"{100 * min(fr):.0f}–{100 * max(fr):.0f} %" if fr else "–"


def summary(args, shares, nodes, lay, rows) -> str:
    L = [
        f"# Heterogeneity-aware placement on the emulated cluster ({datetime.date.today()})",
        "",
        f"- cluster: emulated {len(shares)} nodes, CPU shares {args.cpu}, {args.bw} links, "
        "replication 1, "
        f"block size {args.block}" + "".join(f", `{kv}`" for kv in args.emu_conf),
        f"- input: {args.size} of generated text; ratios: {args.ratios}; "
        f"job options (both arms): `{args.job_args or 'none'}`",
        f"- command: `{' '.join(sys.argv)}`",
        "",
        "## Blocks per node",
        "",
        "| placement | " + " | ".join(nodes) + " |",
        "|---|" + "---|" * len(nodes),
    ]
    for p, counts in lay.items():
        L.append(f"| {p} | " + " | ".join(str(counts.get(n, 0)) for n in nodes) + " |")
    L += [
        "",
        "## Jobs (B/A job time; ratio of medians, pair min–max)",
        "",
        "| workload | A | B | pairs | job s A → B | B/A job time | speed-up | "
        "data-local maps A → B |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w, a, b, n, rc, res in rows:
        if res is None:
            L.append(f"| {w} | {a} | {b} | {n} | failed (exit {rc}) | | | |")
            continue
        m = metric(res, "job_s") or metric(res, "wall_s")
        pr = m["pair_ratios"]
        L.append(
            f"| [{w}]({w}-{a}-vs-{b}/report.md) | {a} | {b} | {n} | {m['a']['median']:.1f} → "
            f"{m['b']['median']:.1f} | "
            f"{m['ratio']:.3f} ({pr['min']:.3f}–{pr['max']:.3f}) | {1 / m['ratio']:.2f}× | "
            f"{local_fraction(res, 'A')} → {local_fraction(res, 'B')} |"
        )
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
