#!/usr/bin/env python3
"""A testbed preset's stock calibration as one table: phases, utilisation, reduce merge profile.

  calibration_table.py OUT    (OUT: a testbed_matrix.py --out dir with calibration-* steps)

For each OUT/calibration-<workload>/ (ab.py, stock vs stock) and its utilisation.json, per run:
job, map, shuffle and reduce times; machine CPU idle; the workers' CPU (cores), and the busiest
worker's disk read, disk write and link as % of their limits; and, for jobs with reduces, the
reduce merge profile seed 002's Table 1 gives for stock (segments and shuffled MB per reduce, and
how many times the reduce side writes each shuffled byte and record to local disk). Prints
Markdown.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def merge_profile(job: dict) -> dict | None:
    """Per reduce: segments merged and MB shuffled; per shuffled byte and record: local bytes
    written and records spilled by the reduce side (1 = everything merged to disk once)."""
    c, r = job["counters"], job.get("reduce_counters") or {}
    reduces = c.get("TOTAL_LAUNCHED_REDUCES") or 0
    shuffled = c.get("REDUCE_SHUFFLE_BYTES") or 0
    if not reduces or not shuffled or "MERGED_MAP_OUTPUTS" not in r:
        return None
    records = r.get("REDUCE_INPUT_RECORDS") or 0
    return {
        "segments_per_reduce": r["MERGED_MAP_OUTPUTS"] / reduces,
        "shuffled_mb_per_reduce": shuffled / reduces / 2**20,
        "written_per_shuffled_byte": r.get("FILE_BYTES_WRITTEN", 0) / shuffled,
        "spilled_per_record": r.get("SPILLED_RECORDS", 0) / records if records else None,
    }


def rows(out: Path) -> list[dict]:
    table = []
    for step in sorted(out.glob("calibration-*")):
        if not (step / "results.json").exists():  # a step interrupted before its report
            continue
        results = json.loads((step / "results.json").read_text())
        util_file = step / "utilisation.json"
        util = json.loads(util_file.read_text()) if util_file.exists() else []
        by_run = {(u["config"], u["index"]): u for u in util}
        for run in results["runs"]:
            if run["warmup"]:
                continue
            job = run["job"]
            u = by_run.get((run["config"], run["index"]))
            workers = {n: v for n, v in (u or {}).get("nodes", {}).items() if n != "master"}
            table.append(
                {
                    "workload": step.name.removeprefix("calibration-"),
                    "job_s": job["job_s"],
                    "phases": job["phases"],
                    "idle_pct": u["machine_cpu_idle_pct"] if u else None,
                    "worker_cpu": [w["cpu_cores"] for w in workers.values()],
                    "max_pct": {
                        k: max((w[k] for w in workers.values()), default=None)
                        for k in ("disk_read_pct", "disk_write_pct", "link_in_pct")
                    },
                    "merge": merge_profile(job),
                }
            )
    return table


def _f(x, fmt: str = "{:.0f}") -> str:
    return "–" if x is None else fmt.format(x)


def markdown(table: list[dict]) -> str:
    lines = [
        "| workload | job s | map / shuffle / reduce s | machine CPU idle | worker CPU, cores "
        "| busiest disk read / write, link in (% of limit) | segments, MB per reduce "
        "| reduce-side bytes written / records spilled per shuffled one |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in table:
        p, m, g = r["phases"], r["max_pct"], r["merge"] or {}
        cpu = r["worker_cpu"]
        per_reduce = (
            f"{_f(g.get('segments_per_reduce'))}, {_f(g.get('shuffled_mb_per_reduce'), '{:.1f}')}"
        )
        lines.append(
            f"| {r['workload']} | {r['job_s']:.0f} "
            f"| {_f(p.get('map'))} / {_f(p.get('shuffle'))} / {_f(p.get('reduce'))} "
            f"| {_f(r['idle_pct'])} % "
            f"| {_f(min(cpu, default=None), '{:.2f}')}–{_f(max(cpu, default=None), '{:.2f}')} "
            f"| {_f(m['disk_read_pct'])} / {_f(m['disk_write_pct'])}, {_f(m['link_in_pct'])} "
            f"| {per_reduce} "
            f"| {_f(g.get('written_per_shuffled_byte'), '{:.2f}')} / "
            f"{_f(g.get('spilled_per_record'), '{:.2f}')} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    table = rows(args.out)
    if not table:
        raise SystemExit(f"no calibration-*/results.json under {args.out}")
    print(markdown(table), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
