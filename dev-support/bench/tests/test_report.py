import json

from hacbench import history, report
from test_history import JOB, fake_history


def experiment():
    facts = history.job_facts(fake_history(), JOB)
    runs = []
    for i, (a, b) in enumerate([(30.0, 31.0), (20.0, 10.0), (22.0, 11.0)]):
        for key, wall in (("A", a), ("B", b)):
            runs.append({"config": key, "index": i, "warmup": i == 0, "wall_s": wall, "job": facts,
                         "job_ids": [JOB], "output_md5": "x"})
    return {
        "workload": "wordcount",
        "date": "2026-11-22T00:00:00",
        "machine": "test",
        "cluster": "test",
        "repetitions": 2,
        "warmup": 1,
        "drop_caches": False,
        "command": "ab.py",
        "configs": {"A": {"name": "stock", "args": []}, "B": {"name": "fast", "args": ["-Dx=y"]}},
        "runs": runs,
        "probes": {"pipe GB/s": 4.0},
    }


def test_report_files_and_ratios(tmp_path):
    comparisons = report.write(experiment(), tmp_path)
    wall = next(c for c in comparisons if c.metric == "wall_s")
    # Warm-up pair (30, 31) is left out: medians 21 vs 10.5.
    assert wall.ratio == 0.5
    md = (tmp_path / "report.md").read_text()
    assert "| wall_s | 21 [20–22] | 10.50 [10–11] | 0.500 | 0.500 [0.500–0.500] |" in md
    assert "pipe GB/s" in md
    # each run's job time, its AM's node, and its maps per node
    assert "| A0 (warm-up) | 20 | node3 | node2 2 (4–6) |" in md
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["comparisons"][0]["metric"] == "wall_s"
    for png in ("phases.png", "timeline.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
