#!/usr/bin/env python3
"""A/B of reduce-side merges in one JVM: hundreds of map outputs per reducer without a cluster.

  hadoop-mapreduce-project/hadoop-accel-kism/src/test/bench/merge_ab.py \\
      --maps 500 --bytes-per-map 2m --values 4k-64k --codec none \\
      --a-name stock-f100 --a "stock mapreduce.task.io.sort.factor=100" \\
      --b-name kism --b "kism" -n 5 --drop-caches --out DIR

Map outputs (real IFile files, sorted, as map tasks write them) are generated once per shape;
each run starts a fresh JVM (MergeBench in hadoop-accel-kism's test classes) that feeds them to
upstream's MergeManagerImpl ("stock") or to KISM ("kism") exactly as fetchers do, from
mapreduce.reduce.shuffle.parallelcopies threads (5 unless an IMPL sets it), and a reduce
that checksums every record. A cluster job with 500 maps would spend its time starting map JVMs
on a 2-core machine; this isolates what KISM changes (seed 002 §4): the reduce side's merge.

Phases: shuffle (feeding every map output, incl. stock's background merges), merge (the
manager's close(): stock's final merge setup, KISM's value-log write), reduce (consuming the
merged stream). Writes the same results.json / report.md / charts as ab.py.

Runs on the module's build as `mvn verify` (dev-support/bin/run-tests) leaves it: test classes
and target/test.classpath, which the build writes with the reactor's own jars (no install).
--smoke: 8 tiny map outputs, one pair, no warm-up, no probes (what CI runs).
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

MODULE = Path(__file__).resolve().parents[3]
# The shared harness, dev-support/bench of the repository this module is in.
REPO = next(p for p in MODULE.parents if (p / "dev-support/bench/hacbench").is_dir())
sys.path.insert(0, str(REPO / "dev-support/bench"))

from ab import parse_size  # noqa: E402
from hacbench import probes, report  # noqa: E402


def classpath() -> str:
    """test-classes + classes + the module's test classpath, as the module's build left them."""
    cp_file = MODULE / "target/test.classpath"
    bench_class = (
        MODULE / "target/test-classes/io/hadoopaccel/mapreduce/kism/bench/MergeBench.class"
    )
    if not (bench_class.exists() and cp_file.exists()):
        # The module and what it needs, from the reactor: no SNAPSHOT has to be installed.
        print("building the KISM module's test classes and classpath", flush=True)
        subprocess.run(
            [
                "mvn",
                "-B",
                "-q",
                "process-test-classes",
                "-am",
                "-pl",
                str(MODULE.relative_to(REPO)),
            ],
            cwd=REPO,
            check=True,
        )
    return ":".join(
        [
            str(MODULE / "target/test-classes"),
            str(MODULE / "target/classes"),
            cp_file.read_text().strip(),
        ]
    )


def java(cp: str, heap: str, args: list[str]) -> str:
    cmd = [
        "java",
        f"-Xmx{heap}",
        "-XX:+UseSerialGC",
        "-cp",
        cp,
        "io.hadoopaccel.mapreduce.kism.bench.MergeBench",
    ] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(
            f"MergeBench failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        )
    return p.stdout


def as_run(key: str, index: int, warmup: bool, r: dict) -> dict:
    """A MergeBench result in ab.py's run shape, so report.py renders it unchanged."""
    counters = {
        "FILE_BYTES_WRITTEN": r["local_bytes_written"],
        "FILE_BYTES_READ": r["local_bytes_read"],
        "SPILLED_RECORDS": r["spilled_records"],
        "REDUCE_SHUFFLE_BYTES": r["shuffled_bytes"],
        "CPU_MILLISECONDS": 1000 * (r["cpu_shuffle_s"] + r["cpu_merge_reduce_s"]),
        "CPU_MERGE_REDUCE_MILLISECONDS": 1000 * r["cpu_merge_reduce_s"],
        "WRITTEN_PER_SHUFFLED_BYTE": r["local_bytes_written"] / r["shuffled_bytes"],
        "READ_PER_SHUFFLED_BYTE": r["local_bytes_read"] / r["shuffled_bytes"],
    }
    return {
        "config": key,
        "index": index,
        "warmup": warmup,
        "wall_s": r["total_s"],
        "job_ids": [],
        "job": {
            "job_s": r["total_s"],
            "phases": {
                "shuffle": r["shuffle_s"],
                "merge": r["merge_s"],
                "reduce": r["reduce_s"],
                "merge+reduce": r["merge_s"] + r["reduce_s"],
            },
            "counters": counters,
            "feature_counters": {k: v for k, v in r.items() if k.startswith("KISM_")},
            "timeline": [],
            "job_start": 0,
        },
        "output_md5": r["digest"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--maps", type=int, default=500, help="map outputs per reducer")
    ap.add_argument("--bytes-per-map", default="2m")
    ap.add_argument("--values", default="4k-64k", help="value size range MIN-MAX")
    ap.add_argument("--keys", type=int, default=20000, help="distinct keys (node ids)")
    ap.add_argument(
        "--codec", default="none", help="none, default, gzip, bzip2 (map output compression)"
    )
    ap.add_argument("--heap", default="256m", help="-Xmx of the reduce JVM")
    ap.add_argument(
        "--total-bytes",
        default="128m",
        help="mapreduce.reduce.memory.totalbytes: the reduce memory the shuffle budget is a "
        "share of",
    )
    ap.add_argument("--a-name", default="stock")
    ap.add_argument("--a", default="stock", help="IMPL [key=value ...], IMPL = stock or kism")
    ap.add_argument("--b-name", default="kism")
    ap.add_argument("--b", default="kism")
    ap.add_argument("-n", "--repetitions", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--drop-caches", action="store_true")
    ap.add_argument("--no-probes", action="store_true")
    ap.add_argument("--work-dir", default="/tmp/hadoop-accel-merge-bench")
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="8 map outputs of 64 KB, one pair, no warm-up, no probes (CI's check that it runs)",
    )
    args = ap.parse_args()
    if args.smoke:
        args.maps, args.bytes_per_map, args.values, args.keys = 8, "64k", "1k-4k", 500
        args.repetitions, args.warmup, args.no_probes = 1, 0, True

    lo, hi = (parse_size(x) for x in args.values.split("-"))
    shape = f"m{args.maps}-b{args.bytes_per_map}-v{args.values}-k{args.keys}-{args.codec}"
    work = Path(args.work_dir)
    data = work / "data" / shape
    cp = classpath()
    if not (data / "index.tsv").exists():
        shutil.rmtree(data, ignore_errors=True)
        java(
            cp,
            "1g",
            [
                "generate",
                str(data),
                str(args.maps),
                str(parse_size(args.bytes_per_map)),
                str(lo),
                str(hi),
                str(args.keys),
                args.codec,
                "1",
            ],
        )
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out or REPO / "target/bench" / f"merge-{shape}-{stamp}")
    out.mkdir(parents=True, exist_ok=True)

    total = str(parse_size(args.total_bytes))
    configs = {
        "A": {"name": args.a_name, "args": shlex.split(args.a)},
        "B": {"name": args.b_name, "args": shlex.split(args.b)},
    }
    runs = []
    for i in range(args.warmup + args.repetitions):
        for key in ("A", "B"):
            impl, *settings = configs[key]["args"]
            local = work / "local"
            shutil.rmtree(local, ignore_errors=True)
            if args.drop_caches:
                subprocess.run("sync; echo 3 > /proc/sys/vm/drop_caches", shell=True, check=True)
            stdout = java(
                cp,
                args.heap,
                ["run", impl, str(data), str(local), f"mapreduce.reduce.memory.totalbytes={total}"]
                + settings,
            )
            line = next(ln for ln in stdout.splitlines() if ln.startswith("RESULT "))
            result = json.loads(line[7:])
            leftovers = [p for p in local.rglob("*") if p.is_file()]
            if leftovers:
                raise SystemExit(f"{key} run {i} left files behind: {leftovers[:5]}")
            run = as_run(key, i, i < args.warmup, result)
            runs.append(run)
            print(
                f"{key} ({configs[key]['name']}) run {i}{' warm-up' if run['warmup'] else ''}: "
                f"total {result['total_s']:.2f}s shuffle {result['shuffle_s']:.2f}s "
                f"merge {result['merge_s']:.2f}s reduce {result['reduce_s']:.2f}s",
                flush=True,
            )

    digests = {r["output_md5"] for r in runs}
    workload = (
        f"reduce-side merge of {args.maps} map outputs x {args.bytes_per_map}, values "
        f"{args.values},"
        f" codec {args.codec}, reduce memory {args.total_bytes}"
    )
    exp = report.experiment(
        workload,
        args.maps * parse_size(args.bytes_per_map),
        f"one reduce JVM (-Xmx{args.heap}), MergeBench",
        args,
        configs,
        runs,
    )
    if not args.no_probes:
        exp["probes"] = probes.all_probes(str(out), quick=True)
    report.write(exp, out)
    print(f"report: {out / 'report.md'}")
    if len(digests) != 1:
        print(f"ERROR: merged records differ between runs: {sorted(digests)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
