#!/usr/bin/env python3
"""Ring / pipe tables from RingVsPipeBenchmark's JMH JSON (shm_jmh.sh runs both).

  shm_jmh_table.py JMH_JSON

Prints Markdown: the settings, then for each ring benchmark (ring: the task's stream as under
-io shm; ringUnbuffered: one JNI write per record) a table of ring / pipe records/s by record
size (rows) and ring batch (columns), and one of the absolute rates (records/s; GB/s for
records of 4 KiB and more). A ratio is of the medians of the measured iterations; in brackets
the lowest and highest ratio any ring iteration makes with any pipe iteration of that size.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

# The shared harness, dev-support/bench of the repository this module is in.
REPO = next(
    p for p in Path(__file__).resolve().parents if (p / "dev-support/bench/hacbench").is_dir()
)
sys.path.insert(0, str(REPO / "dev-support/bench"))
from hacbench.stats import Spread  # noqa: E402

PIPE = "pipe"
RING_BENCHMARKS = {
    "ring": "the task's stream as under -io shm: DataOutputStream over RingOutputStream, "
    "64 KiB per JNI call",
    "ringUnbuffered": "one JNI ShmRing.write per record, no Java buffer",
}
DEFAULT_CAPACITY = (
    "1048576"  # the benchmark's default ring, as hadoop.accel.shm.streaming.buffer.bytes
)
BANDWIDTH_FROM = 4096  # record size from which GB/s is the number to read


def load(path: str) -> dict[tuple[str, int, Optional[int]], Spread]:
    """(benchmark method, size, batch or None) -> spread of the iterations' records/s. A ring
    capacity other than the default (-p capacity=...) makes its own tables: "ring@65536"."""
    cells = {}
    for r in json.loads(Path(path).read_text()):
        method = r["benchmark"].rsplit(".", 1)[-1]
        params = r.get("params", {})
        batch = int(params["batch"]) if "batch" in params else None
        if params.get("capacity", DEFAULT_CAPACITY) != DEFAULT_CAPACITY:
            method += "@" + params["capacity"]
        scores = [s for fork in r["primaryMetric"]["rawData"] for s in fork]
        cells[(method, int(params["size"]), batch)] = Spread.of(scores)
    return cells


def batch_name(b: int) -> str:
    return "auto" if b == 0 else str(b)


def rate(spread: Optional[Spread], size: int) -> str:
    if spread is None:
        return "–"
    recs = spread.median
    text = f"{recs / 1e6:.3g} M rec/s" if recs >= 1e5 else f"{recs:,.0f} rec/s"
    if size >= BANDWIDTH_FROM:
        text += f", {recs * size / 1e9:.3g} GB/s"
    return text


def ratio(ring: Optional[Spread], pipe: Optional[Spread]) -> str:
    if ring is None or pipe is None or pipe.median == 0 or pipe.min == 0:
        return "–"
    return f"{ring.median / pipe.median:.2f}× [{ring.min / pipe.max:.2f}–{ring.max / pipe.min:.2f}]"


def settings(path: str) -> str:
    r = json.loads(Path(path).read_text())[0]
    return (
        f"JMH {r['jmhVersion']}, {r['vmName']} {r['vmVersion']}; per point {r['forks']} fork(s), "
        f"{r['warmupIterations']} × {r['warmupTime']} warm-up, "
        f"{r['measurementIterations']} × {r['measurementTime']} measured; one op = one record"
    )


def tables(path: str) -> str:
    cells = load(path)
    sizes = sorted({size for (_, size, _) in cells})
    out = [settings(path), ""]
    methods = sorted(
        {m for (m, _, _) in cells if m.split("@")[0] in RING_BENCHMARKS},
        key=lambda m: (list(RING_BENCHMARKS).index(m.split("@")[0]), m),
    )
    for method in methods:
        name, _, capacity = method.partition("@")
        what = RING_BENCHMARKS[name] + (f"; ring of {capacity} B" if capacity else "")
        batches = sorted({b for (m, _, b) in cells if m == method}, key=lambda b: (b == 0, b))
        head = "| record | " + " | ".join(f"batch {batch_name(b)}" for b in batches) + " |"
        rule = "|---|" + "---|" * len(batches)
        out += [f"**{method} / pipe**, records/s ({what}):", "", head, rule]
        for size in sizes:
            pipe = cells.get((PIPE, size, None))
            out.append(
                f"| {size} B | "
                + " | ".join(ratio(cells.get((method, size, b)), pipe) for b in batches)
                + " |"
            )
        out += [
            "",
            f"**{method}** and **pipe**, absolute:",
            "",
            "| record | pipe | " + " | ".join(f"batch {batch_name(b)}" for b in batches) + " |",
            "|---|---|" + "---|" * len(batches),
        ]
        for size in sizes:
            out.append(
                f"| {size} B | {rate(cells.get((PIPE, size, None)), size)} | "
                + " | ".join(rate(cells.get((method, size, b)), size) for b in batches)
                + " |"
            )
        out.append("")
    if not methods:
        out += ["**pipe**, absolute:", "", "| record | pipe |", "|---|---|"]
        out += [f"| {s} B | {rate(cells.get((PIPE, s, None)), s)} |" for s in sizes] + [""]
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(tables(sys.argv[1]))
