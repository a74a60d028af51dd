"""Medians, spreads and B/A ratios over interleaved A/B repetitions."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Optional, Sequence


def measured_by_arm(results: dict, value) -> tuple[list[float], list[float]]:
    """value(run) of each measured (non-warm-up) run of an ab.py results.json, per arm in run
    order: (A's, B's), so that the i-th of each are the i-th interleaved pair."""
    arms: dict[str, list[float]] = {"A": [], "B": []}
    for run in results["runs"]:
        if not run["warmup"]:
            arms[run["config"]].append(value(run))
    return arms["A"], arms["B"]


@dataclass(frozen=True)
class Spread:
    median: float
    min: float
    max: float
    n: int

    @staticmethod
    def of(values: Sequence[float]) -> Optional["Spread"]:
        vals = [float(v) for v in values if v is not None]
        if not vals:
            return None
        return Spread(statistics.median(vals), min(vals), max(vals), len(vals))


@dataclass(frozen=True)
class Comparison:
    metric: str
    a: Optional[Spread]
    b: Optional[Spread]
    # Ratio of medians, and the spread of per-pair ratios B_i / A_i (pairs ran back to back).
    ratio: Optional[float]
    pair_ratios: Optional[Spread]


def compare(
    metric: str, a_vals: Sequence[Optional[float]], b_vals: Sequence[Optional[float]]
) -> Comparison:
    """Compares one metric; a_vals[i] and b_vals[i] are the i-th interleaved pair."""
    a, b = Spread.of(a_vals), Spread.of(b_vals)
    ratio = None
    if a and b and a.median != 0:
        ratio = b.median / a.median
    pairs = [bv / av for av, bv in zip(a_vals, b_vals) if av not in (None, 0) and bv is not None]
    return Comparison(metric, a, b, ratio, Spread.of(pairs))


def compare_runs(
    runs_a: Sequence[dict], runs_b: Sequence[dict], metrics: Sequence[str]
) -> list[Comparison]:
    """runs_x[i]['metrics'] maps metric name -> value; missing metrics compare as None."""
    return [
        compare(m, [r["metrics"].get(m) for r in runs_a], [r["metrics"].get(m) for r in runs_b])
        for m in metrics
    ]
