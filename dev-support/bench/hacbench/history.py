"""Per-run facts from the MapReduce JobHistoryServer REST API (/ws/v1/history)."""
from __future__ import annotations

import json
import statistics
import urllib.request
from typing import Callable, Optional

# Counters every report shows (group-independent names), in this order.
COUNTERS = [
    "FILE_BYTES_READ",
    "FILE_BYTES_WRITTEN",
    "HDFS_BYTES_READ",
    "HDFS_BYTES_WRITTEN",
    "SPILLED_RECORDS",
    "REDUCE_SHUFFLE_BYTES",
    "CPU_MILLISECONDS",
    "GC_TIME_MILLIS",
    "DATA_LOCAL_MAPS",
    "RACK_LOCAL_MAPS",
    "TOTAL_LAUNCHED_MAPS",
    "TOTAL_LAUNCHED_REDUCES",
]
# Reduce-side values of these (a job counter's reduceCounterValue) profile the reduce merge:
# how many times each shuffled byte and record is written to local disk (CooMR's Table 1).
REDUCE_COUNTERS = [
    "FILE_BYTES_READ",
    "FILE_BYTES_WRITTEN",
    "SPILLED_RECORDS",
    "MERGED_MAP_OUTPUTS",
    "REDUCE_INPUT_RECORDS",
]
# Counter groups that are stock Hadoop's; counters of any other group are feature counters.
STOCK_GROUPS = (
    "org.apache.hadoop.mapreduce.FileSystemCounter",
    "org.apache.hadoop.mapreduce.TaskCounter",
    "org.apache.hadoop.mapreduce.JobCounter",
    "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter",
    "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter",
    "Shuffle Errors",
)

Fetch = Callable[[str], dict]


def http_fetch(base: str) -> Fetch:
    def fetch(path: str) -> dict:
        with urllib.request.urlopen(base.rstrip("/") + path, timeout=30) as r:
            return json.load(r)
    return fetch


def _list(x) -> list:
    """Jersey renders a one-element array as a bare object: accept both."""
    if x is None:
        return []
    return x if isinstance(x, list) else [x]


def _avg(values: list[float]) -> Optional[float]:
    return statistics.fmean(values) if values else None


def _task_counter(page: dict, name: str) -> float:
    """One counter's value from a task's /counters page (0 when absent)."""
    for group in _list((page.get("jobTaskCounters") or {}).get("taskCounterGroup")):
        for c in _list(group.get("counter")):
            if c["name"] == name:
                return c["value"]
    return 0


# Why a reduce attempt other than the successful one ended, from its diagnostics (the MR AM's
# texts: RMContainerAllocator.RAMPDOWN_DIAGNOSTIC, TaskImpl's "Speculation: " kills).
ATTEMPT_CAUSES = (("preempted", "Reducer preempted"), ("speculation", "Speculation: "))


def reduce_attempts(fetch: Fetch, base: str, tasks: list[dict]) -> dict[str, int]:
    """Reduce attempts launched, and those that did not succeed by cause: preempted for maps,
    killed as a speculation's loser, failed, or killed otherwise."""
    kinds = {"launched": 0, "preempted": 0, "speculation": 0, "failed": 0, "killed_other": 0}
    for t in tasks:
        if t["type"] != "REDUCE":
            continue
        page = fetch(f"{base}/tasks/{t['id']}/attempts").get("taskAttempts") or {}
        for a in _list(page.get("taskAttempt")):
            kinds["launched"] += 1
            if a["state"] == "SUCCEEDED":
                continue
            diag = a.get("diagnostics") or ""
            cause = next((k for k, text in ATTEMPT_CAUSES if text in diag), None)
            if cause is None:
                cause = "failed" if a["state"] == "FAILED" else "killed_other"
            kinds[cause] += 1
    return kinds


def job_facts(fetch: Fetch, job_id: str) -> dict:
    """Phase times (s), counters and a task timeline for one finished job."""
    base = f"/ws/v1/history/mapreduce/jobs/{job_id}"
    job = fetch(base)["job"]
    counters: dict[str, float] = {}
    reduce_side: dict[str, float] = {}
    feature: dict[str, float] = {}
    for group in _list(fetch(base + "/counters")["jobCounters"].get("counterGroup")):
        for c in _list(group.get("counter")):
            name, total = c["name"], c["totalCounterValue"]
            if group["counterGroupName"] in STOCK_GROUPS:
                counters[name] = counters.get(name, 0) + total
                if name in REDUCE_COUNTERS and "reduceCounterValue" in c:
                    reduce_side[name] = reduce_side.get(name, 0) + c["reduceCounterValue"]
            else:
                feature[f"{group['counterGroupName']}.{name}"] = total

    tasks = _list((fetch(base + "/tasks").get("tasks") or {}).get("task"))
    timeline = []
    shuffle, merge, reduce = [], [], []
    reduce_cpu_ms = 0.0
    # Where each map ran and how long it took: what placement and prefetching change per node.
    map_nodes: dict[str, list[float]] = {}
    for t in tasks:
        timeline.append({"type": t["type"], "start": t["startTime"], "finish": t["finishTime"]})
        if t["state"] != "SUCCEEDED" or not t.get("successfulAttempt"):
            continue
        attempt = fetch(f"{base}/tasks/{t['id']}/attempts/{t['successfulAttempt']}")["taskAttempt"]
        if t["type"] == "MAP":
            node = attempt["nodeHttpAddress"].split(":")[0]
            map_nodes.setdefault(node, []).append(attempt["elapsedTime"] / 1000)
            continue
        if t["type"] != "REDUCE":
            continue
        shuffle.append((attempt["shuffleFinishTime"] - attempt["startTime"]) / 1000)
        merge.append((attempt["mergeFinishTime"] - attempt["shuffleFinishTime"]) / 1000)
        reduce.append((attempt["finishTime"] - attempt["mergeFinishTime"]) / 1000)
        reduce_cpu_ms += _task_counter(
            fetch(f"{base}/tasks/{t['id']}/counters"), "CPU_MILLISECONDS"
        )

    # Where each AM attempt ran: on a worker under a small CPU quota it slows that worker's maps.
    attempts = (fetch(base + "/jobattempts").get("jobAttempts") or {}).get("jobAttempt")
    am_hosts = [a["nodeHttpAddress"].split(":")[0] for a in _list(attempts)]

    maps = [x for x in timeline if x["type"] == "MAP"]
    map_phase = (
        (max(m["finish"] for m in maps) - min(m["start"] for m in maps)) / 1000 if maps else None
    )
    return {
        "job_id": job_id,
        "state": job["state"],
        "job_s": (job["finishTime"] - job["startTime"]) / 1000,
        "phases": {
            "map": map_phase,
            "shuffle": _avg(shuffle),
            "merge": _avg(merge),
            "reduce": _avg(reduce),
        },
        "counters": {k: counters.get(k) for k in COUNTERS},
        # The reduce side's own CPU: the job counter sums maps and reduces.
        "reduce_cpu_s": reduce_cpu_ms / 1000,
        "am_hosts": am_hosts,
        "map_nodes": {n: sorted(v) for n, v in sorted(map_nodes.items())},
        "reduce_attempts": reduce_attempts(fetch, base, tasks),
        "reduce_counters": {k: reduce_side[k] for k in REDUCE_COUNTERS if k in reduce_side},
        "feature_counters": feature,
        "timeline": sorted(timeline, key=lambda x: x["finish"]),
        "job_start": job["startTime"],
    }
