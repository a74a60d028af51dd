#!/usr/bin/env python3
"""ShmStreaming on the local job runner (seed 000 §V): one streaming job, several transports.

The job runs in one JVM with its program on this machine (no YARN), where the cost of moving
records is a larger share of the time than on a cluster; this is where ShmStreaming's stock
baselines were measured. Each variant runs once per round, rounds interleave the variants
(A B C ... A B C ...), after one warm-up round. Reports the median job time of each variant,
its ratio to the first variant's median and the min-max of the per-round ratios; checks that
every variant wrote the same output.

Job time runs from starting `hadoop jar` to the local runner's last "task executor complete."
log line (millisecond timestamps from a log4j configuration of our own), not to the process's
exit: streaming's client checks for completion once a second (StreamJob sleeps 1000 ms between
checks), which would round every streaming job up to its next whole second and make a 0.1 s
difference look like 1 s. Wall times to the exit are kept in the JSON too.

  hadoop-mapreduce-project/hadoop-accel-shmstreaming/src/test/bench/shm_local_ab.py \
      HADOOP_HOME OUT_DIR
      [--mb 64] [--rounds 5] [--suite python|c|inmem|grep|index|cat|wrapped] [--smoke]

Suites cat and wrapped are unmodified programs under `-io shm` (the task preloads the shim
itself): `cat` as mapper and reducer, and the stdlib WordCount scripts started through a bash
wrapper that execs the interpreter (as pyenv, conda and virtualenv shims do), each against the
same command over pipes.

--smoke: pipes against the rings (inmem suite's first two variants) on 1 MB, one round, no
warm-up (what CI runs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

# The shared harness, dev-support/bench of the repository this module is in.
REPO = next(
    p for p in Path(__file__).resolve().parents if (p / "dev-support/bench/hacbench").is_dir()
)
sys.path.insert(0, str(REPO / "dev-support/bench"))
from hacbench import stats  # noqa: E402

STDLIB_PY = REPO / "hadoop-mapreduce-project/hadoop-accel-workloads/src/main/python"
JAVA = "@java"  # marks a variant that runs the workloads jar instead of streaming
# Words with a 1 and a 7 in them: about one match per line of the generated text.
GREP_REGEX = "w1[0-9]*7"
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


def suites(home: Path, wrapper: Path) -> dict[str, list[tuple[str, list[str], dict]]]:
    """name -> [(variant, streaming args, extra environment)]; the first variant is the base.

    wrapper: a bash script that execs the Python interpreter with its arguments.
    """
    shm = home / "share/hadoop/tools/shmstreaming"
    ex = shm / "examples"
    shim = f"env LD_PRELOAD={home}/lib/native/libhadoop_shm_preload.so "
    unbuffered = {"PYTHONUNBUFFERED": "1"}
    stdlib = [
        f"{PYTHON} {STDLIB_PY}/wordcount_mapper.py",
        f"{PYTHON} {STDLIB_PY}/wordcount_reducer.py",
    ]
    print_mapper = f"{PYTHON} {STDLIB_PY}/wordcount_mapper_print.py"
    package = [
        f"{PYTHON} {shm}/python/examples/wordcount_mapper.py",
        f"{PYTHON} {shm}/python/examples/wordcount_reducer.py",
    ]

    def job(mapper: str, reducer: str, *more: str) -> list[str]:
        return ["-mapper", mapper, "-reducer", reducer, *more]

    index_py = job(
        f"{PYTHON} {shm}/python/examples/inverted_index_mapper.py",
        f"{PYTHON} {shm}/python/examples/inverted_index_reducer.py",
    )

    wrapped = job(
        f"{wrapper} {STDLIB_PY}/wordcount_mapper.py", f"{wrapper} {STDLIB_PY}/wordcount_reducer.py"
    )

    return {
        # Unmodified programs: no shim in the command, no API; over the rings the task preloads
        # the shim into the program, through any exec chain.
        "cat": [
            ("cat-pipes", job("cat", "cat"), {}),
            ("cat-shm", ["-io", "shm"] + job("cat", "cat"), {}),
        ],
        "wrapped": [
            ("wrapped-py-pipes", wrapped, {}),
            ("wrapped-py-shm", ["-io", "shm"] + wrapped, {}),
        ],
        # WordCount in Python: unmodified stdlib scripts over pipes (unbuffered, and buffered as
        # the control), the same scripts over the rings through the preload shim, and the
        # two-line-changed scripts over the rings.
        "python": [
            # One print() per word, unbuffered: a write() per record over pipes; the same
            # unmodified script over the rings through the preload shim.
            ("print-pipes-unbuffered", job(print_mapper, stdlib[1]), unbuffered),
            (
                "print-shim-unbuffered",
                ["-io", "shm"] + job(shim + print_mapper, shim + stdlib[1]),
                unbuffered,
            ),
            # A write() per input line (the harness's stdlib scripts), over pipes and through the
            # shim, and the two-line-changed scripts over the rings.
            ("line-pipes-unbuffered", job(*stdlib), unbuffered),
            (
                "line-shim-unbuffered",
                ["-io", "shm"] + job(shim + stdlib[0], shim + stdlib[1]),
                unbuffered,
            ),
            (
                "package-unbuffered",
                ["-io", "shm", "-cmdenv", f"PYTHONPATH={shm}/python"] + job(*package),
                unbuffered,
            ),
        ],
        # C programs: the same binaries over pipes and over the rings.
        "c": [
            (
                "inmem-pipes",
                job(f"{ex}/shm_wordcount_combining_mapper", f"{ex}/shm_wordcount_reducer"),
                {},
            ),
            (
                "inmem-shm",
                ["-io", "shm"]
                + job(f"{ex}/shm_wordcount_combining_mapper", f"{ex}/shm_wordcount_reducer"),
                {},
            ),
            (
                "wc-combiner-pipes",
                job(
                    f"{ex}/shm_wordcount_mapper",
                    f"{ex}/shm_wordcount_reducer",
                    "-combiner",
                    f"{ex}/shm_wordcount_reducer",
                ),
                {},
            ),
            (
                "wc-combiner-shm",
                ["-io", "shm"]
                + job(
                    f"{ex}/shm_wordcount_mapper",
                    f"{ex}/shm_wordcount_reducer",
                    "-combiner",
                    f"{ex}/shm_wordcount_reducer",
                ),
                {},
            ),
            # The native Java WordCount with its combiner (the harness's workloads jar).
            ("java-wordcount-combiner", [JAVA, "wordcount", "-combiner"], {}),
        ],
        # The in-memory-combining C mapper alone (run it on a large input: on 64 MB the job is
        # mostly start-up), over pipes, over the rings with bulk map input (the default) and
        # over the rings line by line.
        "inmem": [
            (
                "inmem-pipes",
                job(f"{ex}/shm_wordcount_combining_mapper", f"{ex}/shm_wordcount_reducer"),
                {},
            ),
            (
                "inmem-shm-bulk",
                ["-io", "shm"]
                + job(f"{ex}/shm_wordcount_combining_mapper", f"{ex}/shm_wordcount_reducer"),
                {},
            ),
            (
                "inmem-shm-lines",
                ["-D", "hadoop.accel.shm.streaming.bulk.input=false", "-io", "shm"]
                + job(f"{ex}/shm_wordcount_combining_mapper", f"{ex}/shm_wordcount_reducer"),
                {},
            ),
        ],
        # Grep (matches of GREP_REGEX, summed, with a combiner): C and Python over both
        # transports. Python: the harness's stdlib scripts over pipes, the package over rings.
        "grep": [
            (
                "grep-c-pipes",
                job(
                    f"{ex}/shm_grep_mapper {GREP_REGEX}",
                    f"{ex}/shm_wordcount_reducer",
                    "-combiner",
                    f"{ex}/shm_wordcount_reducer",
                ),
                {},
            ),
            (
                "grep-c-shm",
                ["-io", "shm"]
                + job(
                    f"{ex}/shm_grep_mapper {GREP_REGEX}",
                    f"{ex}/shm_wordcount_reducer",
                    "-combiner",
                    f"{ex}/shm_wordcount_reducer",
                ),
                {},
            ),
            (
                "grep-py-pipes-unbuffered",
                job(
                    f"{PYTHON} {STDLIB_PY}/grep_mapper.py {GREP_REGEX}",
                    f"{PYTHON} {STDLIB_PY}/grep_reducer.py",
                ),
                unbuffered,
            ),
            (
                "grep-py-package-unbuffered",
                ["-io", "shm", "-cmdenv", f"PYTHONPATH={shm}/python"]
                + job(f"{PYTHON} {shm}/python/examples/grep_mapper.py {GREP_REGEX}", package[1]),
                unbuffered,
            ),
        ],
        # InvertedIndex (word -> documents; the input is split into several files): the same C
        # binaries and the same package scripts over pipes and over the rings.
        "index": [
            (
                "index-c-pipes",
                job(f"{ex}/shm_inverted_index_mapper", f"{ex}/shm_inverted_index_reducer"),
                {},
            ),
            (
                "index-c-shm",
                ["-io", "shm"]
                + job(f"{ex}/shm_inverted_index_mapper", f"{ex}/shm_inverted_index_reducer"),
                {},
            ),
            (
                "index-py-pipes-unbuffered",
                ["-cmdenv", f"PYTHONPATH={shm}/python"] + index_py,
                unbuffered,
            ),
            (
                "index-py-package-unbuffered",
                ["-io", "shm", "-cmdenv", f"PYTHONPATH={shm}/python"] + index_py,
                unbuffered,
            ),
        ],
    }


def generate(path: Path, mb: int, files: int = 4) -> None:
    """Seed-000-style text in `files` files (documents for InvertedIndex): 15 words a line over
    a skewed 10,000-word vocabulary."""
    r = random.Random(7)
    path.mkdir(parents=True)
    for i in range(files):
        with open(path / f"doc-{i}.txt", "w") as f:
            n = 0
            while n < (mb << 20) // files:
                line = (
                    " ".join("w%d" % int(r.random() * r.random() * 10000) for _ in range(15)) + "\n"
                )
                f.write(line)
                n += len(line)


LOG4J_MS = """\
log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
"""
LOG4J_FILE = "log4j-ms.properties"
EXECUTOR_DONE = re.compile(
    rb"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) INFO mapred\.LocalJobRunner: "
    rb"(?:map|reduce) task executor complete\.$",
    re.M,
)


def job_end(log: bytes) -> float:
    """Epoch seconds of the local runner's last "task executor complete." line."""
    ends = EXECUTOR_DONE.findall(log)
    if not ends:
        raise ValueError("no 'task executor complete.' line in the job's log")
    return datetime.strptime(ends[-1].decode(), "%Y-%m-%d %H:%M:%S,%f").timestamp()


def run(
    home: Path, out: Path, inp: Path, name: str, args: list[str], env_extra: dict
) -> tuple[float, float, str]:
    target = out / f"out-{name}"
    subprocess.run(["rm", "-rf", str(target)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # this shell sets it
    env |= {"HADOOP_HOME": str(home), "HADOOP_CONF_DIR": str(home / "etc/hadoop")}
    log4j = out / LOG4J_FILE  # written by main()
    env["HADOOP_CLIENT_OPTS"] = (
        env.get("HADOOP_CLIENT_OPTS", "") + f" -Dlog4j.configuration=file:{log4j}"
    ).strip()
    local = [
        "-D",
        "mapreduce.framework.name=local",
        "-D",
        "fs.defaultFS=file:///",
        "-D",
        "mapreduce.job.reduces=1",
    ]
    if args[0] == JAVA:  # jar program -D... options input output
        jar = next((home / "share/hadoop/mapreduce").glob("hadoop-accel-workloads-*.jar"))
        cmd = (
            [str(home / "bin/hadoop"), "jar", str(jar), args[1]]
            + local
            + args[2:]
            + [str(inp), str(target)]
        )
    else:
        streaming = next((home / "share/hadoop/tools/lib").glob("hadoop-streaming-*.jar"))
        generic = []  # leading "-D k=v" of a variant: generic options go before streaming's
        while args[:1] == ["-D"]:
            generic, args = generic + args[:2], args[2:]
        cmd = [str(home / "bin/hadoop"), "jar", str(streaming)] + local + generic
        cmd += [a for k, v in env_extra.items() for a in ("-cmdenv", f"{k}={v}")]
        cmd += args + ["-input", str(inp), "-output", str(target)]
    start_wall = time.time()
    start = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    if p.returncode != 0:
        (out / f"{name}.log").write_bytes(p.stdout)
        raise SystemExit(f"{name} failed (exit {p.returncode}): {out / (name + '.log')}")
    digest = hashlib.md5(
        b"".join(f.read_bytes() for f in sorted(target.glob("part-*")))
    ).hexdigest()
    try:
        took = job_end(p.stdout) - start_wall
    except ValueError as e:
        (out / f"{name}.log").write_bytes(p.stdout)
        raise SystemExit(f"{name}: {e}: {out / (name + '.log')}") from e
    return took, wall, digest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--suite",
        choices=["python", "c", "inmem", "grep", "index", "cat", "wrapped"],
        default="python",
    )
    ap.add_argument(
        "--smoke", action="store_true", help="pipes vs rings, 1 MB, one round, no warm-up (CI)"
    )
    a = ap.parse_args()
    if a.smoke:
        a.suite, a.mb, a.rounds = "inmem", 1, 1
    warmup = 0 if a.smoke else 1
    home, out = a.home.resolve(), a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / LOG4J_FILE).write_text(LOG4J_MS)
    inp = out / f"input-{a.mb}m"
    if not inp.exists():
        generate(inp, a.mb)
    wrapper = out / "python-wrapper.sh"
    wrapper.write_text(f'#!/bin/bash\nexec {PYTHON} "$@"\n')
    wrapper.chmod(0o755)
    variants = suites(home, wrapper)[a.suite][: 2 if a.smoke else None]
    times: dict[str, list[float]] = {v[0]: [] for v in variants}
    walls: dict[str, list[float]] = {v[0]: [] for v in variants}
    digests: dict[str, set] = {v[0]: set() for v in variants}
    for rnd in range(1 - warmup, a.rounds + 1):
        for name, args, env_extra in variants:
            took, wall, digest = run(home, out, inp, name, args, env_extra)
            digests[name].add(digest)
            print(
                f"round {rnd}{' (warm-up)' if rnd == 0 else ''} {name}: job {took:.2f}s"
                f" (exit after {wall:.1f}s)",
                flush=True,
            )
            if rnd > 0:
                times[name].append(took)
                walls[name].append(wall)
    all_digests = set().union(*digests.values())
    base = variants[0][0]
    rows = []
    for name in times:
        c = stats.compare("job_s", times[base], times[name])
        rows.append(
            {
                "variant": name,
                "median_s": c.b.median,
                "min_s": c.b.min,
                "max_s": c.b.max,
                "vs_" + base: c.ratio,
                "pair_ratio_min": c.pair_ratios.min,
                "pair_ratio_max": c.pair_ratios.max,
                "times_s": times[name],
                "wall_times_s": walls[name],
            }
        )
    result = {
        "suite": a.suite,
        "input_mb": a.mb,
        "rounds": a.rounds,
        "python": PYTHON,
        "identical_outputs": len(all_digests) == 1,
        "variants": rows,
    }
    (out / f"{a.suite}.json").write_text(json.dumps(result, indent=1))
    lines = [
        f"local job runner, {a.mb} MB, {a.rounds} interleaved rounds after {warmup} warm-up; "
        "job time to the last task executor's end; outputs identical: "
        f"{result['identical_outputs']}",
        f"| variant | median s [min–max] | time / {base} (speed-up) | per-round ratios |",
        "|---|---|---|---|",
    ]
    for r in rows:
        ratio = r["vs_" + base]
        lines.append(
            f"| {r['variant']} | {r['median_s']:.2f} [{r['min_s']:.2f}–{r['max_s']:.2f}] | "
            f"{ratio:.3f} ({1 / ratio:.2f}×) | "
            f"{r['pair_ratio_min']:.3f}–{r['pair_ratio_max']:.3f} |"
        )
    (out / f"{a.suite}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if not result["identical_outputs"]:
        raise SystemExit(
            "outputs differ between variants: "
            + json.dumps({k: sorted(v) for k, v in digests.items()})
        )


if __name__ == "__main__":
    main()
