#!/usr/bin/env python3
"""Bytes each reducer received over time, per run of an ab.py experiment (seed 003 Fig. 5.1).

  shuffle_timeline.py --results OUT/results.json --userlogs 'WORK/nodes/*/logs/userlogs'
                      [--out DIR]

Reads the task logs of every measured run's job while its cluster is still up: a stock
reducer logs each fetch ("about to shuffle output of map ... len: N"), a Preshuffle reducer
each pushed segment ("Received spill S of ... : N bytes") as well. Writes DIR/timeline.json
(per run: seconds from job start to the first spill of any map, to the first byte a reducer
got, and the cumulative bytes per reducer) and DIR/timeline.png (the first measured run of A
and of B). Times are the task logs' wall clocks: on the emulated cluster every node shares
the machine's clock.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import re
from pathlib import Path

from hacbench import charts

STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")
FETCHED = re.compile(r"about to shuffle output of map \S+ decomp: \d+ len: (\d+)")
PUSHED = re.compile(r"Received spill \d+ of \S+: (\d+) bytes")
FIRST_SPILL = "Finished spill 0"


def epoch_ms(line: str) -> int | None:
    m = STAMP.match(line)
    if not m:
        return None
    t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
    return int(t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def scan(app_dirs: list[str]) -> tuple[int | None, dict[str, list[tuple[int, int]]]]:
    """(first spill ms, {container: [(ms, bytes), ...]}) over one application's containers."""
    first_spill, received = None, {}
    for app in app_dirs:
        for syslog in glob.glob(f"{app}/container_*/syslog*"):  # reducers: syslog.shuffle
            events = []
            with open(syslog, errors="replace") as f:
                for line in f:
                    if FIRST_SPILL in line:
                        t = epoch_ms(line)
                        if t is not None and (first_spill is None or t < first_spill):
                            first_spill = t
                        continue
                    m = FETCHED.search(line) or PUSHED.search(line)
                    if m:
                        t = epoch_ms(line)
                        if t is not None:
                            events.append((t, int(m.group(1))))
            if events:
                c = received.setdefault(Path(syslog).parent.name, [])
                c.extend(events)
                c.sort()
    return first_spill, received


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--results", required=True)
    ap.add_argument("--userlogs", required=True, help="glob of the nodes' userlogs dirs")
    ap.add_argument("--out", help="default: the results file's directory")
    args = ap.parse_args()
    results = json.loads(Path(args.results).read_text())
    out = Path(args.out or Path(args.results).parent)
    runs = []
    for run in results["runs"]:
        if run.get("warmup") or not run.get("job"):
            continue
        job = run["job"]
        app = job["job_id"].replace("job_", "application_", 1)
        start = job["job_start"]
        first_spill, received = scan(glob.glob(f"{args.userlogs}/{app}"))
        firsts = [ev[0][0] for ev in received.values()]
        runs.append(
            {
                "config": results["configs"][run["config"]]["name"],
                "index": run["index"],
                "job_id": job["job_id"],
                "job_s": job["job_s"],
                "first_spill_s": (first_spill - start) / 1000 if first_spill else None,
                "first_received_s": (min(firsts) - start) / 1000 if firsts else None,
                "reducers": {
                    c: [[(t - start) / 1000, b] for t, b in ev] for c, ev in received.items()
                },
            }
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / "timeline.json").write_text(json.dumps(runs, indent=1) + "\n")
    for r in runs:
        print(
            f"{r['config']:>12} run {r['index']}: first spill at {r['first_spill_s']} s, first "
            f"byte at a reducer at {r['first_received_s']} s, job {r['job_s']} s"
        )
    chart(runs, out / "timeline.png")
    return 0


def chart(runs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    seen = set()
    for r in runs:
        if r["config"] in seen:
            continue
        seen.add(r["config"])
        events = sorted(e for ev in r["reducers"].values() for e in ev)
        xs, ys, total = [0.0], [0.0], 0
        for t, b in events:
            total += b
            xs.append(t)
            ys.append(total / 2**20)
        xs.append(r["job_s"])
        ys.append(ys[-1])
        ax.step(xs, ys, where="post", label=f"{r['config']} (job {r['job_s']:.0f} s)")
    ax.set_xlabel("seconds since job start")
    ax.set_ylabel("MB received by the reducers")
    ax.set_title("Shuffle timeline: bytes at the reducers (first measured run of each)")
    ax.legend()
    fig.tight_layout()
    charts.save(fig, path)


if __name__ == "__main__":
    raise SystemExit(main())
