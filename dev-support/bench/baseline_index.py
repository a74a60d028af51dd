#!/usr/bin/env python3
"""Index of a baseline directory: one row per workload's results.json, plus NOTES.md if present.

  baseline_index.py DIR

The baseline.sh command lines are rebuilt from each report's ab.py command, one per distinct
size / pairs / warm-up / cluster, so a directory filled by several invocations says so truthfully.
"""
import json
import math
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hacbench.workloads import WORKLOADS  # noqa: E402


def row(e, name):
    c = {x["metric"]: x for x in e["comparisons"]}
    a = c["wall_s"]["a"]
    job = (c.get("job_s") or {}).get("a") or {}
    pr = c["wall_s"]["pair_ratios"] or {}
    return (
        f"| [{e['workload']}]({name}/report.md) "
        f"| {a['median']:.1f} [{a['min']:.1f}–{a['max']:.1f}] "
        f"| {job.get('median', math.nan):.1f} | {e['repetitions']} (+{e.get('warmup', 0)}) "
        f"| {c['wall_s']['ratio']:.3f} ({pr.get('min', 0):.3f}–{pr.get('max', 0):.3f}) "
        f"| {e['outputs_identical']} |"
    )


def invocations(results):
    """baseline.sh command lines equivalent to what produced the reports, oldest first."""
    groups = {}
    for e, _ in sorted(results, key=lambda r: r[0]["date"]):
        argv = shlex.split(e["command"])
        opt = {a: argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--size", "--cluster-env")}
        key = (opt.get("--cluster-env") if not e["cluster"].startswith("pseudo") else None,
               opt.get("--size", str(e["size_bytes"])), e["repetitions"], e.get("warmup", 0))
        groups.setdefault(key, []).append(e["workload"])
    lines = []
    for (env, size, reps, warmup), names in groups.items():
        cmd = ["dev-support/bench/baseline.sh"] + (["--cluster-env", env] if env else [])
        cmd += ["--size", size, "-n", str(reps), "--warmup", str(warmup)]
        if set(names) != set(WORKLOADS):
            cmd += [w for w in WORKLOADS if w in names]
        lines.append(f"  - `{' '.join(cmd)}`")
    return lines


def main(argv):
    out = Path(argv[1])
    results = [
        (json.loads(p.read_text()), p.parent.name) for p in sorted(out.glob("*/results.json"))
    ]
    lines = [f"# Stock Hadoop 3.5.0 baseline: {out.name}", ""]
    if results:
        first = results[0][0]
        lines += [
            f"- machine: {first['machine']}",
            f"- cluster: {first['cluster']}",
            f"- input size: {first['size_bytes']} bytes; "
            "stock-vs-stock pairs (+warm-up pairs) per row",
            "- commands (equivalent baseline.sh invocations, oldest first; each report has its own "
            "date and ab.py command):",
            *invocations(results),
            "",
        ]
    lines += [
        "| workload | wall s (median [min–max]) | job s | pairs "
        "| B/A wall (pair min–max) | outputs identical |",
        "|---|---|---|---|---|---|",
    ]
    lines += [row(e, name) for e, name in results]
    notes = out / "NOTES.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print((out / "README.md").read_text())


if __name__ == "__main__":
    main(sys.argv)
