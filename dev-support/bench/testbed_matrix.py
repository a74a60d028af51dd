#!/usr/bin/env python3
"""One testbed preset's whole matrix: stock calibration, then the feature A/B runs.

  testbed_matrix.py --testbed NAME [--out DIR] [-n PAIRS] [--warmup N] [--size-scale F]
                    [--rate-scale F|inf] [--steps STEP,...] [--workloads W,...] [--placements P,...]
                    [--dry-run]

Steps (see dev-support/TESTBEDS.md for the sizes):
  every preset  calibration-terasort, -wordcount, -grep: two stock runs each (ab.py, stock vs
                stock) on `emu-cluster up --testbed NAME`, with the per-phase breakdown
  jbs           jbs-<rate>: jbs_ab.sh at the preset's 1 GigE and 10 GigE link rates, TeraSort,
                SelfJoin, InvertedIndex, AdjacencyList
  xie-hetero    placement: placement_ab.py, Grep and WordCount on stock vs ratio placement
                (--placements even,all-in-c: each also once against stock, as in seed Fig. 3.3);
                placement-psp: the same placement alone against it with PSP on top
  xie-psp       psp-grep, psp-wordcount: ab.py stock vs PSP on one text input (the preset's
                cluster runs PSP's prefetcher plugin on every DataNode, idle for stock jobs);
                psp-{grep,wordcount}-smallfiles: the same on 1,000 files of 1 MB, and
                psp-combine-*: both arms with CombineTextInputFormat (64 MB splits);
                preshuffle-wordcount, preshuffle-sort: ab.py stock vs Preshuffle;
                jbs-sort: ab.py stock vs JBS's native pull, beside Preshuffle (the preset's
                cluster runs JBS's aux service on every NodeManager, idle for other jobs)
  coomr         kism-terasort, kism-adjacencylist: ab.py stock vs KISM;
                coomr-terasort, coomr-wordcount: ab.py stock vs CooMR's map side (the preset's
                cluster runs the coordinator and CoomrShuffleHandler on every NodeManager);
                coomr-kism-terasort: stock vs CooMR's map side with KISM's merge;
                coomr-kism-pool-{terasort,selfjoin,invertedindex,adjacencylist}: the same,
                the reduces' fetched outputs in the pool (with the map outputs in LOCS logs,
                the cluster's default: the whole of CooMR);
                coomr-{1,2,4}maps-terasort: stock vs CooMR with k maps per node at once (Fig. 8;
                maps_per_node_chart.py plots them)
The feature drivers bring up their own cluster; HACC_TESTBED=NAME makes it the preset's, and
HACC_EMU_ARGS carries --cluster-args and --rate-scale's rates to it.
--rate-scale F multiplies the preset's link and disk rates by F, CPU unchanged: the I/O
dilation becomes D/F (TESTBEDS.md), the axis of the gain-vs-I/O-boundness sweep
(sweep_chart.py); inf lifts the link and disk limits, as on the unthrottled cluster.
Every run, stock and feature, gets the preset's JOB_ARGS (the seed's reduce count: 2 per node
for jbs and coomr).

Resumable: a step (or a driver's workload) whose results.json (placement: README.md) exists is
skipped, so after an interruption the same command goes on where it stopped. While a step runs,
`emu-cluster stats` is sampled every 2 s into OUT/samples/<step>.jsonl; after each step,
OUT/<step>/utilisation.md (and .json) give per run: the machine's CPU idle %, each node's CPU
(cores), disk read/write (MB/s and % of its throttle) and link in/out (Mbit/s and % of its rate).
Needs root, a tarball (-Pdist; JBS also -Pnative) and a python3 with matplotlib (ab.py's
charts). Takes hours: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EMU = REPO / "dev-support/bin/emu-cluster"
WORK = Path(os.environ.get("TMPDIR", "/tmp")) / "hacc-emu-matrix"
# Where a running step's cluster lives: ours, placement_ab.py's, jbs_ab.sh's.
WORK_DIRS = [WORK, Path("/tmp/hacc-emu"), Path(os.environ.get("TMPDIR", "/tmp")) / "hacc-emu-jbs"]
KISM = (
    "-Dmapreduce.job.reduce.shuffle.consumer.plugin.class=io.hadoopaccel.mapreduce.kism.KismShuffle"
)
# PSP: the DataNodes' prefetcher (cluster-wide, idle unless a PSP AM asks) and, per job, the AM
# class after stock's default AM heap; the planner told the preset's disk rate.
PSP_CLUSTER = [
    "--conf",
    "dfs.datanode.plugins=org.apache.hadoop.hdfs.server.datanode.PspPrefetchPlugin@hdfs-site.xml",
]


def psp_args(disk_read_rate: str) -> str:
    return (
        "-Dyarn.app.mapreduce.am.command-opts="
        "'-Xmx1024m org.apache.hadoop.mapreduce.v2.app.PspMRAppMaster'"
        f" -Dhadoop.accel.psp.read.bytes.per.sec={disk_read_rate}"
    )


PSP = psp_args("5m")  # xie-psp: 5.5 MB/s
# Small files combined into splits of up to one 64 MB block, as a user would set it.
COMBINE = (
    "-Dmapreduce.job.inputformat.class="
    "org.apache.hadoop.mapreduce.lib.input.CombineTextInputFormat"
    " -Dmapreduce.input.fileinputformat.split.maxsize=67108864"
)

# JBS beside Preshuffle on xie-psp: the aux service on every NodeManager (idle for other jobs;
# stock's ShuffleHandler still serves the rest) and, per job, JBS's reduce-side plugin.
JBS_CLUSTER = [
    "--conf",
    "yarn.nodemanager.aux-services=mapreduce_shuffle,jbs_shuffle@yarn-site.xml",
    "--conf",
    "yarn.nodemanager.aux-services.jbs_shuffle.class="
    "io.hadoopaccel.mapreduce.jbs.JbsAuxService@yarn-site.xml",
    "--conf",
    "yarn.nodemanager.aux-services.mapreduce_shuffle.class="
    "io.hadoopaccel.mapreduce.jbs.JbsShuffleHandler@yarn-site.xml",
    "--conf",
    "hadoop.accel.jbs.merger.socket=/tmp/hacc-jbs-{host}/merger.sock@core-site.xml",
]
JBS = (
    "-Dmapreduce.job.reduce.shuffle.consumer.plugin.class="
    "org.apache.hadoop.mapreduce.task.reduce.JbsShuffle"
)
# JBS's daemons work outside the tasks: their CPU per run too (the NetMerger is reduce side).
JBS_CPU = [
    "--cpu-of",
    "netmerger=jbs_net_merger",
    "--cpu-of",
    "mofsupplier=jbs_mof_supplier",
    "--reduce-side",
    "netmerger",
]

# CooMR on coomr: the coordinator on every NodeManager and the shuffle that serves outputs from
# its pool (stock's lookup for every other job), each worker's pool 256 MB of its memory; per
# job, the map side.
COOMR_CLUSTER = [
    "--conf",
    "yarn.nodemanager.aux-services=mapreduce_shuffle,coomr@yarn-site.xml",
    "--conf",
    "yarn.nodemanager.aux-services.coomr.class="
    "io.hadoopaccel.mapreduce.coomr.CoomrAuxService@yarn-site.xml",
    "--conf",
    "yarn.nodemanager.aux-services.mapreduce_shuffle.class="
    "org.apache.hadoop.mapred.CoomrShuffleHandler@yarn-site.xml",
    "--conf",
    "hadoop.accel.coomr.coordinator.socket=/tmp/hacc-coomr-{host}/coordinator.sock@core-site.xml",
    "--conf",
    "hadoop.accel.coomr.pool.dir=/dev/shm/hacc-coomr-{host}@yarn-site.xml",
    "--conf",
    "hadoop.accel.coomr.pool.bytes=256m@yarn-site.xml",
]
COOMR = (
    "-Dmapreduce.job.map.output.collector.class="
    "org.apache.hadoop.mapred.CoomrMapOutputCollector,"
    "org.apache.hadoop.mapred.MapTask$MapOutputBuffer"
)


def maps_per_node(k: int) -> str:
    """Job args that let each coomr worker (2304 MB NodeManager, 128 MB allocation steps) run
    k map containers at once, with the reduces held back until every map is done, so that the
    maps share their node with nothing but each other (seed 002 Fig. 8)."""
    mb = {1: 1280, 2: 1024, 4: 512}[k]
    return f"-Dmapreduce.map.memory.mb={mb} -Dmapreduce.job.reduce.slowstart.completedmaps=1.0"


# With KISM: the reduces' fetched outputs in the node's pool too, instead of on disk.
COOMR_REDUCES = (
    "-Dhadoop.accel.kism.shared.memory.class=io.hadoopaccel.mapreduce.coomr.CoomrReduceMemory"
)


# Preshuffle: both halves per job (stock's default slowstart for both runs).
PRESHUFFLE = (
    "-Dmapreduce.job.map.output.collector.class="
    "org.apache.hadoop.mapred.PreshuffleMapOutputCollector,"
    "org.apache.hadoop.mapred.MapTask$MapOutputBuffer"
    " -Dmapreduce.job.reduce.shuffle.consumer.plugin.class="
    "org.apache.hadoop.mapreduce.task.reduce.PreshuffleShuffle"
)

# Input sizes per preset (TESTBEDS.md: the seed's per-node data times S, times the nodes).
JBS_SIZES = {
    "terasort": "1500m",
    "wordcount": "1500m",
    "grep": "1500m",
    "selfjoin": "340m",
    "invertedindex": "340m",
    "adjacencylist": "340m",
}
SIZES = {
    "xie-hetero": {"terasort": "1300m", "wordcount": "1300m", "grep": "1300m"},
    "xie-psp": {
        "terasort": "1536m",
        "wordcount": "1536m",
        "grep": "1536m",
        "sort": "512m",
        # Seed 003 ch.4's 1,000 files of 1 MB.
        "grep-smallfiles": "1000m",
        "wordcount-smallfiles": "1000m",
    },
    "jbs": JBS_SIZES,
    # CooMR's seed ran the same benchmarks on the same kind of cluster.
    "coomr": JBS_SIZES,
}
CALIBRATION = ("terasort", "wordcount", "grep")
# Job options every run of a preset gets, stock and feature alike: the seeds' reduce counts.
# JBS/CooMR ran 2 reduces per node (001 §V: "4 maps + 2 reduces"); the 003 testbeds ran
# Hadoop 0.20's default of one reduce, which is also stock's default here.
JOB_ARGS = {
    "xie-hetero": "",
    "xie-psp": "",
    "jbs": "-Dmapreduce.job.reduces=8",
    "coomr": "-Dmapreduce.job.reduces=8",
}
# Input generators' options. xie-psp has one replica, so a generating map's node holds its whole
# file: two generating maps per node spread the input evenly, as the seed's loaded file was.
GEN_ARGS = {"xie-psp": "-Dmapreduce.job.maps=8"}
JBS_WORKLOADS = ("terasort", "selfjoin", "invertedindex", "adjacencylist")


def driver(name: str) -> Path:
    """A feature driver by name, wherever it lives now (dev-support/bench or a module)."""
    p = HERE / name
    if p.exists():
        return p
    files = subprocess.run(
        ["git", "ls-files", f"*/{name}"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    if not files:
        raise SystemExit(f"no {name} in the repository")
    return REPO / min(files, key=len)


def scaled(size: str, f: float) -> str:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    n = float(size[:-1]) * units[size[-1]] if size[-1] in units else float(size)
    return f"{max(1, round(n * f / (1 << 20)))}m"


RATE_KNOBS = ("bw", "disk-read-bw", "disk-write-bw")


def scaled_rate(value: str, f: float) -> str:
    """A rate knob ("23mbit", "4.5m", per-worker lists) times f; "none" when f is infinite."""
    if math.isinf(f) or value == "none":
        return "none"
    out = []
    for v in value.split(","):
        suffix = "bit" if v.endswith("bit") else ""
        v = v.removesuffix("bit")
        unit = v[-1] if v[-1] in "kmg" else ""
        n = float(v.rstrip("kmg")) * f
        out.append(f"{n:.4g}{unit}{suffix}")
    return ",".join(out)


def scaled_time(value: str, f: float) -> str:
    """A time knob (the modelled disk's access in ms, per-worker lists) over f: "none" when f
    is infinite."""
    if math.isinf(f) or value == "none":
        return "none"
    return ",".join(f"{float(v) / f:.4g}" for v in value.split(","))


def rate_args(knobs: dict[str, str], f: float) -> list[str]:
    """`emu-cluster up` options that scale the preset's link and disk rates by f (and the
    modelled disk's access time by 1/f)."""
    if f == 1:
        return []
    out = [x for k in RATE_KNOBS if k in knobs for x in (f"--{k}", scaled_rate(knobs[k], f))]
    if "disk-access" in knobs:
        out += ["--disk-access", scaled_time(knobs["disk-access"], f)]
    return out


def preset(name: str) -> dict[str, str]:
    """The preset's knobs, as `emu-cluster testbed NAME` prints them."""
    out = subprocess.run(
        [str(EMU), "testbed", name], capture_output=True, text=True, check=True
    ).stdout.split()
    return {out[i][2:]: out[i + 1] for i in range(0, len(out), 2) if out[i] != "--conf"}


class Sampler:
    """`emu-cluster stats` of whichever cluster is up, every 2 s, into a JSON-lines file."""

    def __init__(self, path: Path):
        self.path, self.stop = path, threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def loop(self) -> None:
        with open(self.path, "a") as f:
            while not self.stop.wait(2):
                for w in WORK_DIRS:
                    if (w / "cluster.env").exists():
                        s = sample(w)
                        if s:
                            f.write(json.dumps(s) + "\n")
                            f.flush()
                        break


def sample(work: Path) -> dict | None:
    p = subprocess.run(
        [str(EMU), "stats", "--work-dir", str(work)], capture_output=True, text=True, check=False
    )
    if p.returncode != 0:
        return None
    s: dict = {"work": str(work), "nodes": {}}
    try:
        for line in p.stdout.splitlines():
            kv = dict(x.split("=", 1) for x in line.split())
            if "host" in kv:
                host = kv.pop("host")
                s["nodes"][host] = {k: float(v) for k, v in kv.items()}
            else:
                s.update({k: float(v) for k, v in kv.items()})
        env = (work / "cluster.env").read_text()
    except (ValueError, OSError):
        # A cluster going down mid-sample (cgroups removed, cluster.env deleted): no sample.
        return None
    s["knobs"] = {
        ln.split("=", 1)[0][len("# knob ") :]: ln.split("=", 1)[1]
        for ln in env.splitlines()
        if ln.startswith("# knob ")
    }
    return s


def rate_of(knob: str, node: str, unit: float) -> float | None:
    """A node's knob (per-worker list) in bytes/s (or bit/s for links), None when unset."""
    vals = knob.split(",")
    v = (
        vals[0]
        if len(vals) == 1
        else vals[int(node[4:]) - 1]
        if node.startswith("node")
        else vals[0]
    )
    v = v.removesuffix("bit")
    if v == "none":
        return None
    mult = {"k": unit, "m": unit**2, "g": unit**3}.get(v[-1], 1)
    return float(v.rstrip("kmg")) * mult


def utilisation(step_dir: Path, samples: Path) -> None:
    """Per run of every results.json under step_dir: the sampled counters (any step's file in
    the samples dir) over the job's span."""
    ss = sorted(
        (
            json.loads(x)
            for f in sorted(samples.glob("*.jsonl"))
            for x in f.read_text().splitlines()
            if x.strip()
        ),
        key=lambda s: s["time"],
    )
    if not ss:
        return
    rows = []
    for res in sorted(step_dir.rglob("results.json")):
        for r in json.loads(res.read_text()).get("runs", []):
            job = r.get("job") or {}
            if "job_start" not in job:
                continue
            t0, t1 = job["job_start"] / 1000, job["job_start"] / 1000 + job["job_s"]
            a = [s for s in ss if s["time"] <= t0]
            b = [s for s in ss if s["time"] >= t1]
            if not a or not b or a[-1]["work"] != b[0]["work"]:
                continue
            a, b = a[-1], b[0]
            dt = b["time"] - a["time"]
            busy, idle = b["cpu_busy"] - a["cpu_busy"], b["cpu_idle"] - a["cpu_idle"]
            row = {
                "results": str(res.relative_to(step_dir)),
                "config": r["config"],
                "index": r["index"],
                "job_s": job["job_s"],
                "machine_cpu_idle_pct": 100 * idle / max(1, busy + idle),
                "nodes": {},
                # Write requests the workers' disks served (blkio io_serviced), against the
                # map output the reduces fetched: what LOCS cuts (seed 002 §6).
                "disk_write_requests": 0,
                "disk_write_MB": 0.0,
                "map_output_MB": (job.get("counters") or {}).get("REDUCE_SHUFFLE_BYTES", 0) / 1e6,
            }
            for n, x in b["nodes"].items():
                y = a["nodes"].get(n)
                if not y:
                    continue
                d = {k: (x[k] - y[k]) / dt for k in x}
                row["disk_write_requests"] += x.get("wios", 0) - y.get("wios", 0)
                row["disk_write_MB"] += (x["wbytes"] - y["wbytes"]) / 1e6
                u = {
                    "cpu_cores": d["cpu_ns"] / 1e9,
                    "disk_read_MBps": d["rbytes"] / 1e6,
                    "disk_write_MBps": d["wbytes"] / 1e6,
                    "link_in_Mbps": d["link_tx"] * 8 / 1e6,
                    "link_out_Mbps": d["link_rx"] * 8 / 1e6,
                    # A modelled disk (--node-disks hdd): the share of time its head was busy.
                    "disk_busy_pct": d["disk_busy_ms"] / 10 if "disk_busy_ms" in d else None,
                    "disk_seeks_per_s": d.get("disk_seeks"),
                }
                for key, knob, unit, val in (
                    ("disk_read_pct", "disk-read-bw", 1000, d["rbytes"]),
                    ("disk_write_pct", "disk-write-bw", 1000, d["wbytes"]),
                    ("link_in_pct", "bw", 1000, d["link_tx"] * 8),
                    ("link_out_pct", "bw", 1000, d["link_rx"] * 8),
                ):
                    lim = rate_of(b["knobs"].get(knob, "none"), n, unit)
                    u[key] = 100 * val / lim if lim else None
                row["nodes"][n] = u
            rows.append(row)
    (step_dir / "utilisation.json").write_text(json.dumps(rows, indent=1))

    def pct(v):
        return "" if v is None else f" ({v:.0f} %)"

    def busy(u):
        if u.get("disk_busy_pct") is None:
            return "–"
        return f"{u['disk_busy_pct']:.0f} % ({u['disk_seeks_per_s']:.1f})"

    md = [
        "# Utilisation per run (sampled every 2 s over the job's span)",
        "",
        "| run | job s | machine CPU idle | node | CPU cores | disk read MB/s | disk write MB/s "
        "| disk busy (seeks/s) | link in Mbit/s | link out Mbit/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        for i, (n, u) in enumerate(sorted(r["nodes"].items())):
            head = (
                f"{r['results']} {r['config']}{r['index']} | {r['job_s']:.1f} | "
                f"{r['machine_cpu_idle_pct']:.0f} %"
                if i == 0
                else " | | "
            )
            md.append(
                f"| {head} | {n} | {u['cpu_cores']:.2f} | "
                f"{u['disk_read_MBps']:.1f}{pct(u['disk_read_pct'])} | "
                f"{u['disk_write_MBps']:.1f}{pct(u['disk_write_pct'])} | "
                f"{busy(u)} | "
                f"{u['link_in_Mbps']:.1f}{pct(u['link_in_pct'])} | "
                f"{u['link_out_Mbps']:.1f}{pct(u['link_out_pct'])} |"
            )
    md += [
        "",
        "Disk writes of all workers over each job's span (blkio `io_serviced`, "
        "`io_service_bytes`):",
        "",
        "| run | job s | write requests | written MB | KB per request | map output MB "
        "| write requests per GB of map output |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        n, mb, out = r["disk_write_requests"], r["disk_write_MB"], r["map_output_MB"]
        md.append(
            f"| {r['results']} {r['config']}{r['index']} | {r['job_s']:.1f} | {n:.0f} | "
            f"{mb:.0f} | {1000 * mb / n if n else 0:.0f} | {out:.0f} | "
            f"{(n / (out / 1000)) if out else 0:.0f} |"
        )
    (step_dir / "utilisation.md").write_text("\n".join(md) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--testbed", required=True, choices=sorted(SIZES))
    ap.add_argument("--out", type=Path)
    ap.add_argument("-n", "--pairs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument(
        "--size-scale",
        type=float,
        default=1.0,
        help="multiplies every input size (a quick pass: 0.1)",
    )
    ap.add_argument(
        "--rate-scale",
        type=float,
        default=1.0,
        help="multiplies the preset's link and disk rates (inf: no limits); CPU unchanged",
    )
    ap.add_argument("--steps", default="", help="only these steps (comma list)")
    ap.add_argument(
        "--workloads", default="", help="only these workloads in the feature steps (comma list)"
    )
    for extra, what in (
        ("--job-args", "more job options for both arms (e.g. the same slowstart)"),
        (
            "--feature-args",
            "more job options for the feature arm of every feature step run "
            "(run steps of different features separately when their options differ)",
        ),
        ("--cluster-args", "more `emu-cluster up` options, after the preset's"),
        (
            "--gen-args",
            "more options of the input generator, after the preset's (e.g. "
            "-Ddfs.blocksize=16m for a block-size sweep)",
        ),
    ):
        ap.add_argument(extra, default="", metavar="OPTIONS", help=what)
    ap.add_argument(
        "--placements",
        default="",
        help="xie-hetero: more placements each compared once with stock (placement_ab.py --also: "
        "even, all-in-c)",
    )
    ap.add_argument(
        "--dry-run", action="store_true", help="print the steps, their commands and what is done"
    )
    args = ap.parse_args()
    tb = args.testbed
    out = (args.out or REPO / "target/testbed" / tb).resolve()
    sizes = {w: scaled(s, args.size_scale) for w, s in SIZES[tb].items()}
    knobs = preset(tb)
    cluster_args = rate_args(knobs, args.rate_scale) + shlex.split(args.cluster_args)
    knobs.update({k: scaled_rate(v, args.rate_scale) for k, v in knobs.items() if k in RATE_KNOBS})
    if "disk-access" in knobs:
        knobs["disk-access"] = scaled_time(knobs["disk-access"], args.rate_scale)
    job_args = f"{JOB_ARGS[tb]} {args.job_args}".strip()

    def chosen(workloads) -> list[str]:
        """--workloads' subset of a feature step's workloads, in their order."""
        want = set(args.workloads.split(",")) if args.workloads else None
        return [w for w in workloads if want is None or w in want]

    gen_args = f"{GEN_ARGS.get(tb, '')} {args.gen_args}".strip()
    # JOB_ARGS: jbs_ab.sh's; HACC_EMU_ARGS: emu-cluster's, for the drivers' own clusters.
    env = dict(
        os.environ, HACC_TESTBED=tb, JOB_ARGS=job_args, HACC_EMU_ARGS=shlex.join(cluster_args)
    )
    ab = [
        sys.executable,
        str(HERE / "ab.py"),
        "--cluster-env",
        str(WORK / "cluster.env"),
        "--no-probes",
        "--drop-caches",
    ]

    # (step, done?, needs our own cluster, command)
    steps: list[tuple[str, bool, bool, list[str]]] = []
    for w in CALIBRATION:
        d = out / f"calibration-{w}"
        steps.append(
            (
                f"calibration-{w}",
                (d / "results.json").exists(),
                True,
                ab
                + [
                    "--workload",
                    w,
                    "--size",
                    sizes[w],
                    "-n",
                    "1",
                    "--warmup",
                    "0",
                    "--a-name",
                    "stock",
                    "--b-name",
                    "stock",
                    f"--a-args={job_args}",
                    f"--b-args={job_args}",
                    "--out",
                    str(d),
                ],
            )
        )
    if tb == "jbs":
        ten_gige = subprocess.run(
            ["bash", "-c", f". {REPO}/dev-support/lib/testbeds.sh; echo $TESTBED_10GIGE_BW"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        # The preset's 1 GigE and 10 GigE, re-rated (one "none" when the links are unlimited).
        for bw in dict.fromkeys((knobs["bw"], scaled_rate(ten_gige, args.rate_scale))):
            for size in sorted({sizes[w] for w in chosen(JBS_WORKLOADS)}):
                todo = [
                    w
                    for w in chosen(JBS_WORKLOADS)
                    if sizes[w] == size and not (out / "jbs" / bw / w / "results.json").exists()
                ]
                steps.append(
                    (
                        f"jbs-{bw}-{size}",
                        not todo,
                        False,
                        [str(driver("jbs_ab.sh")), "--warmup", str(args.warmup), str(out / "jbs")]
                        + [size, str(args.pairs), bw]
                        + todo,
                    )
                )
    if tb == "xie-hetero":
        d = out / "placement"
        steps.append(
            (
                "placement",
                (d / "README.md").exists(),
                False,
                [
                    sys.executable,
                    str(driver("placement_ab.py")),
                    "--cpu",
                    knobs["cpu"],
                    "--bw",
                    knobs["bw"],
                    "--size",
                    sizes["grep"],
                    "--block",
                    "64m",
                    "-n",
                    str(args.pairs),
                    "--warmup",
                    str(args.warmup),
                    "--workloads",
                    ",".join(chosen(("grep", "wordcount"))),
                    "--drop-caches",
                    f"--job-args={job_args}",
                    f"--also={args.placements}",
                    "--out",
                    str(d),
                ],
            )
        )
        # Seed 003 runs PSP on its placement (chapters 3 and 4 are one system): placement
        # alone against placement + PSP, the prefetcher on every DataNode.
        d = out / "placement-psp"
        steps.append(
            (
                "placement-psp",
                (d / "README.md").exists(),
                False,
                steps[-1][3][:-3]
                + [
                    f"--feature=psp={psp_args(knobs['disk-read-bw'])}",
                    "--emu-conf",
                    PSP_CLUSTER[1],
                    "--out",
                    str(d),
                ],
            )
        )
    # Feature steps that are one ab.py A/B on the matrix's own cluster: stock vs FEATURE.
    ab_features = {
        "xie-psp": [
            ("psp", PSP, ("grep", "wordcount", "grep-smallfiles", "wordcount-smallfiles")),
            # What a user would try first on small files, in both arms (no target: the report's).
            ("psp-combine", PSP, ("grep-smallfiles", "wordcount-smallfiles"), COMBINE),
            ("preshuffle", PRESHUFFLE, ("wordcount", "sort")),
            ("jbs", JBS, ("sort",)),
        ],
        "coomr": [
            ("kism", KISM, ("terasort", "adjacencylist")),
            ("coomr", COOMR, ("terasort", "wordcount")),
            ("coomr-kism", f"{COOMR} {KISM}", ("terasort",)),
            # The whole of CooMR: COMS on both sides, LOCS (the cluster's default), KISM.
            (
                "coomr-kism-pool",
                f"{COOMR} {KISM} {COOMR_REDUCES}",
                ("terasort", "selfjoin", "invertedindex", "adjacencylist"),
            ),
            # Seed 002 Fig. 8: 1, 2 and 4 concurrent maps per node (both arms), maps alone.
            *((f"coomr-{k}maps", COOMR, ("terasort",), maps_per_node(k)) for k in (1, 2, 4)),
        ],
    }
    for feature, feature_args, workloads, *both in ab_features.get(tb, []):
        arm_args = " ".join([job_args, *both])
        for w in chosen(workloads):
            d = out / f"{feature}-{w}"
            steps.append(
                (
                    f"{feature}-{w}",
                    (d / "results.json").exists(),
                    True,
                    ab
                    + [
                        "--workload",
                        w,
                        "--size",
                        sizes[w],
                        "-n",
                        str(args.pairs),
                        "--warmup",
                        str(args.warmup),
                        "--a-name",
                        "stock",
                        f"--a-args={arm_args}",
                        "--b-name",
                        feature,
                        f"--b-args={arm_args} {feature_args} {args.feature_args}",
                        f"--gen-args={gen_args}",
                        *(JBS_CPU if feature == "jbs" else []),
                        "--out",
                        str(d),
                    ],
                )
            )
    if args.steps:
        want = set(args.steps.split(","))
        steps = [s for s in steps if s[0] in want]

    print(
        f"testbed {tb}: {' '.join(f'--{k} {v}' for k, v in knobs.items())}; sizes {sizes}; out "
        f"{out}"
    )
    for name, done, own, cmd in steps:
        print(
            f"  {'done' if done else 'todo'}  {name:28s} "
            f"{'(own cluster) ' if own else ''}{shlex.join(cmd)}"
        )
    if args.dry_run:
        return 0
    out.mkdir(parents=True, exist_ok=True)
    failed, up = [], False
    try:
        for name, done, own, cmd in steps:
            if done:
                continue
            if own and not up:
                subprocess.run(
                    [str(EMU), "up", "--testbed", tb, "--work-dir", str(WORK)]
                    + (PSP_CLUSTER + JBS_CLUSTER if tb == "xie-psp" else [])
                    + (COOMR_CLUSTER if tb == "coomr" else [])
                    + cluster_args,
                    check=True,
                )
                up = True
            elif not own and up:
                subprocess.run([str(EMU), "down", "--work-dir", str(WORK)], check=True)
                up = False
            print(f"== {name}: {shlex.join(cmd)}", flush=True)
            step_dir = out / ("jbs" if tb == "jbs" and name.startswith("jbs-") else name)
            with Sampler(out / "samples" / f"{name}.jsonl"):
                rc = subprocess.run(cmd, env=env, check=False).returncode
            utilisation(step_dir, out / "samples")
            if name.startswith("preshuffle-") and (step_dir / "results.json").exists():
                # While the cluster's task logs are still there: the Fig. 5.1 timeline.
                subprocess.run(
                    [
                        sys.executable,
                        str(HERE / "shuffle_timeline.py"),
                        "--results",
                        str(step_dir / "results.json"),
                        "--userlogs",
                        str(WORK / "nodes/*/logs/userlogs"),
                    ],
                    check=False,
                )
            if rc != 0:
                failed.append(name)
                print(
                    f"== {name} failed (exit {rc}); the matrix goes on, a rerun retries it",
                    flush=True,
                )
    finally:
        if up:
            subprocess.run([str(EMU), "down", "--work-dir", str(WORK)], check=False)
    print(
        f"matrix {tb}: {len(steps) - len(failed)} of {len(steps)} steps done; failed: "
        f"{failed or 'none'}; out {out}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
