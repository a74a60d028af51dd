#!/usr/bin/env python3
"""Index of a baseline directory: one row per workload's results.json, plus NOTES.md if present.

  baseline_index.py DIR [baseline.sh arguments ...]
"""
import json
import math
import sys
from pathlib import Path


def row(e, name):
    c = {x["metric"]: x for x in e["comparisons"]}
    a = c["wall_s"]["a"]
    job = (c.get("job_s") or {}).get("a") or {}
    pr = c["wall_s"]["pair_ratios"] or {}
    return (f"| [{e['workload']}]({name}/report.md) | {a['median']:.1f} [{a['min']:.1f}–{a['max']:.1f}] "
            f"| {job.get('median', math.nan):.1f} | {e['repetitions']} (+{e.get('warmup', 0)}) "
            f"| {c['wall_s']['ratio']:.3f} ({pr.get('min', 0):.3f}–{pr.get('max', 0):.3f}) "
            f"| {e['outputs_identical']} |")


def main(argv):
    out = Path(argv[1])
    results = [(json.loads(p.read_text()), p.parent.name) for p in sorted(out.glob("*/results.json"))]
    lines = [f"# Stock Hadoop 3.5.0 baseline: {out.name}", ""]
    if results:
        first = results[0][0]
        lines += [f"- machine: {first['machine']}",
                  f"- cluster: {first['cluster']}",
                  f"- input size: {first['size_bytes']} bytes; stock-vs-stock pairs (+warm-up pairs) per row",
                  f"- command: `dev-support/bench/baseline.sh {' '.join(argv[2:])}` "
                  "(workloads may come from several invocations; each report has its own date and command)",
                  ""]
    lines += ["| workload | wall s (median [min–max]) | job s | pairs | B/A wall (pair min–max) | outputs identical |",
              "|---|---|---|---|---|---|"]
    lines += [row(e, name) for e, name in results]
    notes = out / "NOTES.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print((out / "README.md").read_text())


if __name__ == "__main__":
    main(sys.argv)
