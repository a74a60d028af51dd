"""Markdown table and charts (matplotlib) for one A/B experiment."""
from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Optional

from .charts import save as save_chart
from .stats import Comparison, Spread, compare_runs

PHASES = ["map", "shuffle", "merge", "reduce"]


def machine() -> str:
    """Cores, CPU model, memory and kernel of this machine, for every report's header."""
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    cpu = "unknown cpu"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}"
    )


def experiment(
    workload: str, size_bytes: int, cluster: str, args, configs: dict, runs: list[dict]
) -> dict:
    """The record of one A/B experiment (args: the runner's repetitions, warmup, drop_caches)."""
    return {
        "workload": workload,
        "size_bytes": size_bytes,
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(),
        "cluster": cluster,
        "repetitions": args.repetitions,
        "warmup": args.warmup,
        "drop_caches": args.drop_caches,
        "command": " ".join(shlex.quote(a) for a in sys.argv),
        "configs": configs,
        "outputs_identical": len({r["output_md5"] for r in runs}) == 1,
        "runs": runs,
    }


def run_metrics(run: dict) -> dict:
    """Flattens a run record into metric name -> value, the unit of comparison."""
    m = {"wall_s": run["wall_s"]}
    job = run.get("job") or {}
    if job:
        m["job_s"] = job["job_s"]
        for p, v in job["phases"].items():
            m[f"{p}_s"] = v
        for c, v in job["counters"].items():
            m[c] = v
        for c, v in job.get("reduce_attempts", {}).items():
            m[f"reduce_attempts_{c}"] = v
        for c, v in job.get("reduce_counters", {}).items():
            m[f"reduce_{c}"] = v
        if "reduce_cpu_s" in job:
            m["reduce_task_cpu_s"] = job["reduce_cpu_s"]
        for c, v in job["feature_counters"].items():
            m[c] = v
    for k, v in (run.get("cpu") or {}).items():
        m[k] = v
    return m


def metric_names(runs: list[dict]) -> list[str]:
    names: list[str] = []
    for r in runs:
        for k in r["metrics"]:
            if k not in names:
                names.append(k)
    return names


def _fmt(x: Optional[float]) -> str:
    if x is None:
        return "–"
    if abs(x) >= 1e6:
        return f"{x:.4g}"
    if float(x).is_integer():
        return f"{int(x)}"
    return f"{x:.2f}"


def _spread(s: Optional[Spread]) -> str:
    return "–" if s is None else f"{_fmt(s.median)} [{_fmt(s.min)}–{_fmt(s.max)}]"


def _ratio_spread(s: Spread) -> str:
    return f"{s.median:.3f} [{s.min:.3f}–{s.max:.3f}]"


def markdown(exp: dict, comparisons: list[Comparison], probes: Optional[dict]) -> str:
    a, b = exp["configs"]["A"], exp["configs"]["B"]
    lines = [
        f"# {exp['workload']}: {b['name']} vs {a['name']}",
        "",
        f"- date: {exp['date']}; cluster: {exp['cluster']}; machine: {exp['machine']}",
        f"- repetitions: {exp['repetitions']} interleaved pairs (A B A B …) "
        f"after {exp['warmup']} warm-up pair(s);"
        f" page cache dropped between runs: {exp['drop_caches']}",
        f"- A = `{a['name']}` {a.get('workload', exp['workload'])} "
        f"{' '.join(a['args']) or '(stock settings)'}",
        f"- B = `{b['name']}` {b.get('workload', exp['workload'])} "
        f"{' '.join(b['args']) or '(stock settings)'}",
        f"- command: `{exp['command']}`",
        "",
        "Medians with [min–max]; B/A is the ratio of medians; pair ratios are B/A of each "
        "back-to-back pair, median [min–max]. On a shared host whose speed drifts between "
        "runs, the pairs' median is the steadier of the two.",
        "",
        f"| metric | A: {a['name']} | B: {b['name']} | B/A | pair ratios |",
        "|---|---|---|---|---|",
    ]
    for c in comparisons:
        ratio = "–" if c.ratio is None else f"{c.ratio:.3f}"
        pr = "–" if c.pair_ratios is None else _ratio_spread(c.pair_ratios)
        lines.append(f"| {c.metric} | {_spread(c.a)} | {_spread(c.b)} | {ratio} | {pr} |")
    lines += [
        "",
        "## Runs",
        "",
        "| run | job s | AM on | maps per node (s each, min–max) |",
        "|---|---|---|---|",
    ]
    for r in exp["runs"]:
        job = r.get("job") or {}
        name = f"{r['config']}{r['index']}{' (warm-up)' if r['warmup'] else ''}"
        secs = _fmt(job.get("job_s"))
        am = ", ".join(job.get("am_hosts") or []) or "–"
        lines.append(f"| {name} | {secs} | {am} | {_map_nodes(job.get('map_nodes'))} |")
    if probes:
        lines += ["", "## Machine limits (probes)", "", "| probe | value |", "|---|---|"]
        for k, v in probes.items():
            lines.append(f"| {k} | {v} |")
    lines += ["", "![phases](phases.png)", "", "![timeline](timeline.png)", ""]
    return "\n".join(lines)


def _map_nodes(nodes: dict | None) -> str:
    """'node1 9 (31–39), node2 4 (…)': how many maps each node ran and how long they took."""
    if not nodes:
        return "–"
    return ", ".join(f"{n} {len(v)} ({v[0]:.0f}–{v[-1]:.0f})" for n, v in nodes.items())


def charts(exp: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [exp["configs"][k]["name"] for k in ("A", "B")]
    runs = {k: [r for r in exp["runs"] if r["config"] == k and not r["warmup"]] for k in ("A", "B")}

    # Bars with min-max whiskers per phase.
    metrics = ["wall_s", "job_s"] + [f"{p}_s" for p in PHASES]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.38
    for i, key in enumerate(("A", "B")):
        meds, lo, hi = [], [], []
        for m in metrics:
            s = Spread.of([r["metrics"].get(m) for r in runs[key]])
            meds.append(s.median if s else 0)
            lo.append(s.median - s.min if s else 0)
            hi.append(s.max - s.median if s else 0)
        xs = [x + (i - 0.5) * width for x in range(len(metrics))]
        ax.bar(xs, meds, width, yerr=[lo, hi], capsize=3, label=f"{key}: {names[i]}")
    ax.set_xticks(range(len(metrics)))
    ax.set_xticklabels(metrics)
    ax.set_ylabel("seconds (median, min–max)")
    ax.set_title(f"{exp['workload']}: phases")
    ax.legend()
    fig.tight_layout()
    save_chart(fig, out / "phases.png")
    plt.close(fig)

    # Progress timeline of the median-wall run of each config (cf. seed 003 Fig. 5.1).
    fig, ax = plt.subplots(figsize=(8, 4))
    for key, style in (("A", "-"), ("B", "--")):
        with_job = [r for r in runs[key] if r.get("job")]
        if not with_job:
            continue
        run = sorted(with_job, key=lambda r: r["wall_s"])[len(with_job) // 2]
        t0 = run["job"]["job_start"]
        for ttype in ("MAP", "REDUCE"):
            done = sorted(t["finish"] for t in run["job"]["timeline"] if t["type"] == ttype)
            if not done:
                continue
            xs = [0] + [(f - t0) / 1000 for f in done]
            ys = [0] + [100 * (i + 1) / len(done) for i in range(len(done))]
            ax.step(
                xs, ys, style, where="post", label=f"{key} {ttype.lower()} ({names[key == 'B']})"
            )
    if not ax.lines:  # no task timeline (e.g. merge_ab.py runs in one JVM)
        plt.close(fig)
        return
    ax.set_xlabel("seconds since job start")
    ax.set_ylabel("% tasks complete")
    ax.set_title(f"{exp['workload']}: task completion")
    ax.legend()
    fig.tight_layout()
    save_chart(fig, out / "timeline.png")
    plt.close(fig)


def write(exp: dict, out: Path) -> list[Comparison]:
    """Writes results.json, report.md, phases.png and timeline.png into out."""
    out.mkdir(parents=True, exist_ok=True)
    for r in exp["runs"]:
        r["metrics"] = run_metrics(r)
    measured = [r for r in exp["runs"] if not r["warmup"]]
    comparisons = compare_runs(
        [r for r in measured if r["config"] == "A"],
        [r for r in measured if r["config"] == "B"],
        metric_names(measured),
    )
    exp["comparisons"] = [
        {
            "metric": c.metric,
            "a": c.a.__dict__ if c.a else None,
            "b": c.b.__dict__ if c.b else None,
            "ratio": c.ratio,
            "pair_ratios": c.pair_ratios.__dict__ if c.pair_ratios else None,
        }
        for c in comparisons
    ]
    (out / "results.json").write_text(json.dumps(exp, indent=1))
    (out / "report.md").write_text(markdown(exp, comparisons, exp.get("probes")))
    charts(exp, out)
    return comparisons
