#!/usr/bin/env python3
"""Mean map task time with 1, 2 and 4 concurrent maps per node, stock vs feature (seed 002
Fig. 8), from testbed_matrix.py's coomr-{1,2,4}maps-terasort steps.

  maps_per_node_chart.py --out DIR    (DIR holds coomr-Kmaps-terasort/results.json)

A map's time is its task's finish minus start in the job's timeline (speculative attempts
included, as the timeline lists them). Per run it takes the mean over the job's maps; per arm
and k it reports the median of the runs with their min and max, and the feature/stock ratio of
the medians with the min-max of the per-pair ratios. Writes DIR/maps-per-node.json, .md and .png.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from hacbench import charts
from hacbench.stats import measured_by_arm

KS = (1, 2, 4)


def mean_map_s(run: dict) -> float:
    maps = [t for t in run["job"]["timeline"] if t["type"] == "MAP"]
    return statistics.mean((t["finish"] - t["start"]) / 1000 for t in maps)


def per_k(results: dict) -> dict:
    """Mean map s of each measured run of A (stock) and B (the feature), in run order, and
    the pairs' ratios."""
    a, b = measured_by_arm(results, mean_map_s)
    return {"stock": a, "feature": b, "ratios": [y / x for x, y in zip(a, b)]}


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    table = {}
    for k in KS:
        f = args.out / f"coomr-{k}maps-terasort" / "results.json"
        if f.exists():
            table[k] = per_k(json.loads(f.read_text()))
    if not table:
        raise SystemExit(f"no coomr-Kmaps-terasort results under {args.out}")
    report = {
        str(k): {
            "stock_s": summary(v["stock"]),
            "feature_s": summary(v["feature"]),
            "ratio": statistics.median(v["feature"]) / statistics.median(v["stock"]),
            "pair_ratios": [min(v["ratios"]), max(v["ratios"])],
            "runs_per_arm": len(v["stock"]),
        }
        for k, v in table.items()
    }
    (args.out / "maps-per-node.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "| maps per node | stock mean map s | CooMR mean map s | CooMR / stock (pairs) |",
        "|---|---|---|---|",
    ]
    for k, r in report.items():
        s, f = r["stock_s"], r["feature_s"]
        lines.append(
            f"| {k} | {s['median']:.1f} [{s['min']:.1f}-{s['max']:.1f}] "
            f"| {f['median']:.1f} [{f['min']:.1f}-{f['max']:.1f}] "
            f"| {r['ratio']:.3f} ({r['pair_ratios'][0]:.3f}-{r['pair_ratios'][1]:.3f}) |"
        )
    (args.out / "maps-per-node.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [int(k) for k in report]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for i, (arm, label) in enumerate((("stock_s", "stock"), ("feature_s", "CooMR"))):
        med = [report[str(k)][arm]["median"] for k in ks]
        err = [
            [m - report[str(k)][arm]["min"] for k, m in zip(ks, med)],
            [report[str(k)][arm]["max"] - m for k, m in zip(ks, med)],
        ]
        x = [j + (i - 0.5) * 0.35 for j in range(len(ks))]
        ax.bar(x, med, width=0.35, yerr=err, capsize=3, label=label)
    ax.set_xticks(range(len(ks)), [str(k) for k in ks])
    ax.set_xlabel("concurrent maps per node")
    ax.set_ylabel("mean map task time, s (median, min-max)")
    ax.set_title("TeraSort maps, testbed coomr (seed 002 Fig. 8)")
    ax.legend()
    fig.tight_layout()
    charts.save(fig, args.out / "maps-per-node.png", dpi=120)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
