#!/usr/bin/env python3
"""A/B benchmark: one workload under configurations A and B, interleaved (A B A B ...).

  ab.py --workload wordcount --size 256m --a-name stock --b-name kism \
        --b-args="-Dmapreduce.job.reduce.shuffle.consumer.plugin.class=..." -n 5 --out DIR

By default it brings up a pseudo-distributed cluster from our tarball and takes it down after;
--cluster-env FILE uses a running cluster instead (e.g. the emulated one). --smoke is the tiny
stock-vs-stock run the test suite uses to keep the harness from rotting.
Writes DIR/results.json, DIR/report.md, DIR/phases.png and DIR/timeline.png.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import hashlib
import os
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hacbench import cluster as clusters  # noqa: E402
from hacbench import history, probes, proccpu, report  # noqa: E402
from hacbench.workloads import WORKLOADS, expand, with_job_args  # noqa: E402

REPO = clusters.REPO


def parse_size(s: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    s = s.strip().lower()
    if s[-1:] in units:
        return int(float(s[:-1]) * units[s[-1]])
    return int(s)


def paths(c: clusters.Cluster) -> dict:
    home = c.env("HADOOP_HOME")

    def one(pattern: str) -> str:
        hits = sorted(glob.glob(pattern))
        return hits[0] if hits else pattern

    return {
        "jar": one(f"{home}/share/hadoop/mapreduce/hadoop-accel-workloads-*.jar"),
        "examples": one(f"{home}/share/hadoop/mapreduce/hadoop-mapreduce-examples-*.jar"),
        "streaming": one(f"{home}/share/hadoop/tools/lib/hadoop-streaming-*.jar"),
        "bin": str(REPO / "target/native/bin"),
        "py": str(REPO / "hadoop-mapreduce-project/hadoop-accel-workloads/src/main/python"),
        "shm": f"{home}/share/hadoop/tools/shmstreaming",
        "native": f"{home}/lib/native",
        # The distribution's interpreter when there is one (optimised build, what tasks find on a
        # plain PATH), else this one; never a wrapper script such as a pyenv shim.
        "python": "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable,
    }


def output_digest(c: clusters.Cluster, out: str, ordered: bool) -> str:
    """Digest of a job's output, so A and B can be checked to produce the same result.

    Ordered output: the DataNodes' CRC32C of each part file, combined independently of the
    block layout (COMPOSITE_CRC), so that no byte crosses the (maybe slow, emulated) links to
    this host. Unordered output: its lines, sorted, through md5sum.
    """
    if ordered:
        p = c.sh(
            f"hdfs dfs -Ddfs.checksum.combine.mode=COMPOSITE_CRC -checksum "
            f"{shlex.quote(out)}/'part-*'"
        )
        parts = sorted(
            f"{line.split()[0].rsplit('/', 1)[-1]} {' '.join(line.split()[1:])}"
            for line in p.stdout.splitlines()
            if line.strip()
        )
        if not parts:
            raise SystemExit(f"no part files in {out}")
        return hashlib.md5("\n".join(parts).encode()).hexdigest()
    p = c.sh(f"hdfs dfs -cat {shlex.quote(out)}/part-* | LC_ALL=C sort | md5sum")
    return p.stdout.split()[0]


def fetch_job(c: clusters.Cluster, job_id: str, timeout_s: float = 60) -> dict:
    fetch = history.http_fetch(c.history_url)
    deadline = time.monotonic() + timeout_s
    while True:  # the history server sees a job once its AM has moved the history file
        try:
            return history.job_facts(fetch, job_id)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="wordcount")
    ap.add_argument("--size", default="64m", help="input size (k/m/g)")
    ap.add_argument("--a-name", default="stock")
    ap.add_argument("--a-args", default="", help="job options of A, e.g. '-Dkey=value ...'")
    ap.add_argument("--b-name", default="stock-again")
    ap.add_argument("--b-args", default="")
    ap.add_argument("--b-workload", choices=sorted(WORKLOADS),
                    help="B runs this workload instead (same input generator): e.g. a streaming "
                         "program against the equivalent Java job")
    ap.add_argument(
        "--a-input",
        help="HDFS input of A instead of the generated one (e.g. the same data placed differently)",
    )
    ap.add_argument("--b-input", help="HDFS input of B instead of the generated one")
    ap.add_argument(
        "--gen-args",
        default="",
        help="job options of the input generator, e.g. '-Dmapreduce.job.maps=8': with one "
        "replica each generating map's node holds its file, so this sets how the input spreads",
    )
    ap.add_argument("-n", "--repetitions", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="warm-up pairs, not in the statistics")
    ap.add_argument(
        "--drop-caches", action="store_true", help="drop the page cache before every run (root)"
    )
    ap.add_argument("--no-probes", action="store_true")
    ap.add_argument(
        "--cluster-env", help="cluster.env of a running cluster (default: start a pseudo one)"
    )
    ap.add_argument("--work-dir", default=f"/tmp/hadoop-accel-bench-{os.getuid()}")
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--cpu-of",
        action="append",
        default=[],
        metavar="NAME=REGEX",
        help="also report the CPU seconds per run of this machine's processes whose command "
        "line matches REGEX (e.g. helper daemons that task counters miss), as cpu_NAME_s",
    )
    ap.add_argument(
        "--reduce-side",
        action="append",
        default=[],
        metavar="NAME",
        help="a --cpu-of NAME that is reduce-side work: reduce_side_cpu_s = the reduce tasks' "
        "CPU + these",
    )
    ap.add_argument(
        "--smoke", action="store_true", help="tiny stock-vs-stock run for the test suite"
    )
    args = ap.parse_args()
    if args.smoke:
        args.size, args.repetitions, args.warmup = "2m", 1, 0
    wl = WORKLOADS[args.workload]
    wl_b = WORKLOADS[args.b_workload or args.workload]
    if wl_b.generate != wl.generate or wl_b.sizes != wl.sizes:
        raise SystemExit(f"--b-workload {wl_b.name} reads other input than {wl.name}")
    size = parse_size(args.size)
    cpu_of = dict(kv.split("=", 1) for kv in args.cpu_of)
    unknown = set(args.reduce_side) - set(cpu_of)
    if unknown:
        raise SystemExit(f"--reduce-side {sorted(unknown)} not named by --cpu-of")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out or REPO / "target/bench" / f"{args.workload}-{stamp}")
    work = Path(args.work_dir)

    own_cluster = args.cluster_env is None
    c = clusters.pseudo_up(work) if own_cluster else clusters.Cluster(Path(args.cluster_env))
    try:
        url = c.env("CLUSTER_HISTORY_URL")
        if url:
            c.history_url = url
        values = paths(c) | {"size": str(size)} | {k: str(f(size)) for k, f in wl.sizes.items()}
        # Inputs are named by what generates them, so workloads on the same data share it.
        gen_args = shlex.split(args.gen_args)
        gen_key = " ".join(gen_args + wl.generate[1:]).format(**values | {"input": ""})
        values["input"] = (
            f"/bench/{wl.generate[1]}-{hashlib.sha1(gen_key.encode()).hexdigest()[:10]}"
        )
        logs = out / "logs"
        logs.mkdir(parents=True, exist_ok=True)

        generated_needed = not (args.a_input and args.b_input)
        if (
            generated_needed
            and c.sh(f"hdfs dfs -test -e {values['input']}", check=False).returncode != 0
        ):
            gen = ["hadoop", "jar"] + with_job_args(expand(wl.generate, values), gen_args)
            wall, _, rc = c.run_job(gen, logs / "generate.log")
            if rc != 0:
                raise SystemExit(f"input generation failed, see {logs / 'generate.log'}")
            print(f"generated {values['input']} in {wall:.1f}s", flush=True)

        configs = {
            "A": {
                "name": args.a_name,
                "args": shlex.split(args.a_args),
                "input": args.a_input or values["input"],
                "workload": wl.name,
            },
            "B": {
                "name": args.b_name,
                "args": shlex.split(args.b_args),
                "input": args.b_input or values["input"],
                "workload": wl_b.name,
            },
        }
        runs = []
        for i in range(args.warmup + args.repetitions):
            for key in ("A", "B"):
                cfg = configs[key]
                values["output"] = f"/bench-out/{wl.name}-{key}-{i}"
                c.sh(f"hdfs dfs -rm -r -f -skipTrash {values['output']}")
                if args.drop_caches:
                    c.drop_caches()
                argv = ["hadoop", "jar"] + with_job_args(
                    expand(WORKLOADS[cfg["workload"]].run, values | {"input": cfg["input"]}),
                    cfg["args"],
                )
                host_before = proccpu.host_busy_s()
                procs_before = {n: proccpu.processes_cpu_s(rx) for n, rx in cpu_of.items()}
                wall, job_ids, rc = c.run_job(argv, logs / f"{key}-{i}.log")
                # Whole-machine busy CPU: on the emulated cluster every node shares these cores.
                cpu = {"host_busy_cpu_s": proccpu.host_busy_s() - host_before}
                for n, rx in cpu_of.items():
                    cpu[f"cpu_{n}_s"] = proccpu.processes_delta_s(
                        procs_before[n], proccpu.processes_cpu_s(rx)
                    )
                for job_id in job_ids:  # after the CPU counters: not the run's own work
                    c.keep_logs(job_id, logs / "daemons")
                if rc != 0 or not job_ids:
                    raise SystemExit(
                        f"{key} run {i} failed (exit {rc}), see {logs / f'{key}-{i}.log'}"
                    )
                run = {
                    "config": key,
                    "index": i,
                    "warmup": i < args.warmup,
                    "wall_s": wall,
                    "job_ids": job_ids,
                    "job": fetch_job(c, job_ids[-1]),
                    "cpu": cpu,
                    "output_md5": output_digest(c, values["output"],
                                                wl.sorted_output and wl_b.sorted_output),
                }
                if args.reduce_side:
                    cpu["reduce_side_cpu_s"] = run["job"]["reduce_cpu_s"] + sum(
                        cpu[f"cpu_{n}_s"] for n in args.reduce_side)
                c.sh(f"hdfs dfs -rm -r -f -skipTrash {values['output']}")
                runs.append(run)
                print(f"{key} ({cfg['name']}) run {i}{' warm-up' if run['warmup'] else ''}: "
                      f"{wall:.1f}s {job_ids[-1]}", flush=True)

        digests = {r["output_md5"] for r in runs}
        cluster = (
            "pseudo-distributed (1 node)"
            if own_cluster
            else c.env("CLUSTER_DESCRIPTION") or args.cluster_env
        )
        exp = report.experiment(wl.name, size, cluster, args, configs, runs)
        if not args.no_probes:
            exp["probes"] = probes.all_probes(str(out), quick=args.smoke)
        report.write(exp, out)
        print(f"report: {out / 'report.md'}")
        if len(digests) != 1:
            print(f"ERROR: outputs differ between runs: {sorted(digests)}", file=sys.stderr)
            return 1
        return 0
    finally:
        if own_cluster:
            clusters.pseudo_down(work)


if __name__ == "__main__":
    sys.exit(main())
