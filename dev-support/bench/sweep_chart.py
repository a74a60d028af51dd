#!/usr/bin/env python3
"""A feature's speed-up against the I/O dilation of the cluster: the testbed sweep chart.

  sweep_chart.py --title T --out DIR --seed-point "LABEL=D" ... POINT ...
  POINT = D=RESULTS_JSON   (D: the link and disk dilation of the run, 0 for no limits)

Each RESULTS_JSON is one ab.py A/B (A = stock, B = the feature) on a testbed preset whose link
and disk rates were divided by D (testbed_matrix.py --rate-scale: D = preset D / scale), the CPU
unchanged. Per point: stock's median job time over the feature's (the speed-up), with the
min-max of the interleaved pairs' speed-ups. Seed points mark where a seed testbed sits on the
axis (its own D). Writes DIR/sweep.json, .md and .png.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from hacbench import charts
from hacbench.stats import measured_by_arm


def speedup(results: dict) -> dict:
    """Stock/feature job time: of the medians, and of each measured pair (in run order)."""
    a, b = measured_by_arm(results, lambda run: run["job"]["job_s"])
    if not a or not b:
        raise SystemExit("a point without measured runs of both arms")
    pairs = [x / y for x, y in zip(a, b)]
    return {
        "speedup": statistics.median(a) / statistics.median(b),
        "pairs": [min(pairs), max(pairs)],
        "stock_s": statistics.median(a),
        "feature_s": statistics.median(b),
        "n": len(pairs),
    }


def parse_point(text: str) -> tuple[float, str]:
    d, _, rest = text.partition("=")
    if not rest:
        raise argparse.ArgumentTypeError(f"want D=VALUE, got {text!r}")
    return float(d), rest


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--title", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed-point", action="append", default=[], metavar="LABEL=D")
    ap.add_argument("points", nargs="+", type=parse_point, metavar="D=RESULTS_JSON")
    args = ap.parse_args()
    rows = []
    for d, path in sorted(args.points):
        r = speedup(json.loads(Path(path).read_text()))
        rows.append({"dilation": d, "results": path, **r})
    seeds = []
    for s in args.seed_point:
        label, _, d = s.rpartition("=")
        seeds.append({"label": label, "dilation": float(d)})
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sweep.json").write_text(
        json.dumps({"title": args.title, "points": rows, "seeds": seeds}, indent=2) + "\n"
    )
    lines = [
        f"{args.title}",
        "",
        "| I/O dilation D | stock job s | feature job s | speed-up (pairs) | pairs |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        d = "none (no limits)" if r["dilation"] == 0 else f"{r['dilation']:g}"
        lines.append(
            f"| {d} | {r['stock_s']:.1f} | {r['feature_s']:.1f} | {r['speedup']:.3f} "
            f"({r['pairs'][0]:.3f}-{r['pairs'][1]:.3f}) | {r['n']} |"
        )
    (args.out / "sweep.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    xs = [r["dilation"] for r in rows]
    ys = [r["speedup"] for r in rows]
    err = [
        [y - r["pairs"][0] for y, r in zip(ys, rows)],
        [r["pairs"][1] - y for y, r in zip(ys, rows)],
    ]
    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label="measured (median, pair min-max)")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    for s in seeds:
        ax.axvline(s["dilation"], color="tab:red", linestyle=":", linewidth=1)
        ax.annotate(
            s["label"], (s["dilation"], 1.0), rotation=90, va="bottom", ha="right", fontsize=8
        )
    ax.set_xlabel("link and disk dilation D (0: no limits)")
    ax.set_ylabel("speed-up over stock (job time)")
    ax.set_title(args.title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    charts.save(fig, args.out / "sweep.png", dpi=120)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
