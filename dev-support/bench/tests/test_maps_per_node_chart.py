import json
import sys

import maps_per_node_chart as chart
import testbed_matrix as tm


def run(config, index, map_seconds):
    maps = [{"type": "MAP", "start": 1000, "finish": 1000 + int(s * 1000)} for s in map_seconds]
    reduce = {"type": "REDUCE", "start": 0, "finish": 999_000}
    return {"config": config, "index": index, "warmup": False, "job": {"timeline": maps + [reduce]}}


def test_mean_map_time_per_k_and_ratios(tmp_path, monkeypatch):
    for k, (stock, coomr) in {1: ((10, 20), (5, 5)), 4: ((40, 40), (44, 44))}.items():
        d = tmp_path / f"coomr-{k}maps-terasort"
        d.mkdir()
        warm = dict(run("A", 0, (999,)), warmup=True)  # left out
        runs = [warm, run("A", 0, stock), run("B", 0, coomr), run("A", 1, stock),
                run("B", 1, coomr)]
        (d / "results.json").write_text(json.dumps({"runs": runs}))
    monkeypatch.setattr(sys, "argv", ["chart", "--out", str(tmp_path)])
    assert chart.main() == 0
    report = json.loads((tmp_path / "maps-per-node.json").read_text())
    assert set(report) == {"1", "4"}
    assert report["1"]["stock_s"]["median"] == 15
    assert report["1"]["ratio"] == 5 / 15
    assert report["4"]["pair_ratios"] == [1.1, 1.1]
    assert report["4"]["runs_per_arm"] == 2
    assert (tmp_path / "maps-per-node.png").stat().st_size > 0


def test_maps_per_node_fits_k_containers_in_a_coomr_worker():
    for k in (1, 2, 4):
        mb = int(tm.maps_per_node(k).split("mapreduce.map.memory.mb=")[1].split()[0])
        assert mb % 128 == 0 and 2304 // mb == k
