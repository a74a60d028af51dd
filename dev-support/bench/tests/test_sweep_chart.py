import json
import sys

import sweep_chart


def results(stock, feature):
    runs = [{"config": "A", "warmup": True, "job": {"job_s": 999}}]  # left out
    for a, b in zip(stock, feature):
        runs += [{"config": "A", "warmup": False, "job": {"job_s": a}},
                 {"config": "B", "warmup": False, "job": {"job_s": b}}]
    return {"runs": runs}


def test_speedup_per_dilation_with_pair_range(tmp_path, monkeypatch):
    points = {0: ((100, 110, 120), (100, 100, 100)), 44.2: ((300, 330, 360), (200, 200, 300))}
    argv = ["sweep", "--title", "t", "--out", str(tmp_path / "o"), "--seed-point", "seed=44.2"]
    for d, (a, b) in points.items():
        f = tmp_path / f"{d}.json"
        f.write_text(json.dumps(results(a, b)))
        argv.append(f"{d}={f}")
    monkeypatch.setattr(sys, "argv", argv)
    assert sweep_chart.main() == 0
    out = json.loads((tmp_path / "o" / "sweep.json").read_text())
    assert [p["dilation"] for p in out["points"]] == [0, 44.2]
    assert out["points"][0]["speedup"] == 1.1
    assert out["points"][1]["speedup"] == 330 / 200
    assert out["points"][1]["pairs"] == [1.2, 1.65]
    assert out["seeds"] == [{"label": "seed", "dilation": 44.2}]
    assert (tmp_path / "o" / "sweep.png").stat().st_size > 0
