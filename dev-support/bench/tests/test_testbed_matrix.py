import json

import testbed_matrix as tm


def test_scaled_sizes():
    assert tm.scaled("1500m", 1.0) == "1500m"
    assert tm.scaled("1500m", 0.1) == "150m"
    assert tm.scaled("2g", 0.5) == "1024m"
    assert tm.scaled("1m", 0.01) == "1m"


def test_rate_of_per_worker_lists():
    assert tm.rate_of("4.5m", "node3", 1000) == 4.5e6
    assert tm.rate_of("40m,20m", "node2", 1000) == 20e6
    assert tm.rate_of("725mbit", "node1", 1000) == 725e6
    assert tm.rate_of("none", "node1", 1000) is None


def sample(t, busy, idle, rbytes, link_rx, wbytes=0, wios=0, disk=None):
    s = {
        "work": "/w",
        "time": t,
        "cpu_busy": busy,
        "cpu_idle": idle,
        "knobs": {"disk-read-bw": "10m", "disk-write-bw": "none", "bw": "80mbit"},
        "nodes": {
            "node1": {
                "cpu_ns": t * 3e8,
                "rbytes": rbytes,
                "wbytes": wbytes,
                "wios": wios,
                "link_rx": link_rx,
                "link_tx": 0,
            }
        },
    }
    if disk:  # a modelled disk's busy ms and seeks
        s["nodes"]["node1"].update(disk_busy_ms=disk[0], disk_seeks=disk[1])
    return s


def test_utilisation_over_a_jobs_span(tmp_path):
    samples = tmp_path / "samples"
    samples.mkdir()
    # 10 s apart: 50 MB read (5 MB/s = 50 % of 10 MB/s), 50 MB sent (40 Mbit/s = 50 % of 80),
    # 1500 busy and 500 idle jiffies (25 % idle), 0.3 core.
    rows = [
        sample(100, 0, 0, 0, 0),
        sample(110, 1500, 500, 50e6, 50e6, wbytes=20e6, wios=40),
        sample(200, 9e9, 0, 9e12, 9e12),
    ]
    (samples / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    step = tmp_path / "step"
    step.mkdir()
    run = {
        "config": "A",
        "index": 0,
        "job": {"job_start": 101_000, "job_s": 8.0, "counters": {"REDUCE_SHUFFLE_BYTES": 2e8}},
    }
    (step / "results.json").write_text(
        json.dumps({"runs": [run, {"config": "B", "index": 0, "job": None}]})
    )
    tm.utilisation(step, samples)
    [u] = json.loads((step / "utilisation.json").read_text())
    assert u["machine_cpu_idle_pct"] == 25
    n = u["nodes"]["node1"]
    assert n["disk_read_MBps"] == 5 and n["disk_read_pct"] == 50
    assert n["link_out_Mbps"] == 40 and n["link_out_pct"] == 50
    assert n["disk_write_pct"] is None
    # 40 write requests of 20 MB in all, for 200 MB of map output: 200 per GB.
    assert u["disk_write_requests"] == 40 and u["disk_write_MB"] == 20
    assert "| 8.0 | 40 | 20 | 500 | 200 | 200 |" in (step / "utilisation.md").read_text()
    assert abs(n["cpu_cores"] - 0.3) < 1e-9
    assert "| node1 | 0.30 | 5.0 (50 %) | 2.0 | – |" in (step / "utilisation.md").read_text()
    assert n["disk_busy_pct"] is None


def test_rate_scale_divides_the_io_dilation():
    knobs = {"cpu": "0.3", "bw": "23mbit", "disk-read-bw": "4.5m", "disk-write-bw": "40m,20m",
             "disk-access": "560.0"}
    assert tm.rate_args(knobs, 1) == []
    assert tm.rate_args(knobs, 4) == [
        "--bw", "92mbit", "--disk-read-bw", "18m", "--disk-write-bw", "160m,80m",
        "--disk-access", "140",
    ]
    assert tm.rate_args(knobs, float("inf")) == [
        "--bw", "none", "--disk-read-bw", "none", "--disk-write-bw", "none",
        "--disk-access", "none",
    ]
    assert tm.scaled_time("20,40", 2) == "10,20"
    assert tm.scaled_rate("none", 4) == "none"


def test_every_preset_size_is_a_known_workload():
    from hacbench.workloads import WORKLOADS

    for preset, sizes in tm.SIZES.items():
        unknown = set(sizes) - set(WORKLOADS)
        assert not unknown, f"{preset}: {unknown}"


def test_sample_of_a_cluster_going_down_is_skipped(tmp_path, monkeypatch):
    (tmp_path / "cluster.env").write_text("# knob cpu=0.3\n")

    def stats(stdout):
        return lambda *a, **k: tm.subprocess.CompletedProcess(a, 0, stdout=stdout, stderr="")

    monkeypatch.setattr(tm.subprocess, "run", stats("host=node1 cpu_ns=5 rbytes=7\n"))
    s = tm.sample(tmp_path)
    assert s["nodes"]["node1"] == {"cpu_ns": 5.0, "rbytes": 7.0}
    assert s["knobs"] == {"cpu": "0.3"}
    # A node's cgroups removed mid-sample leave a counter empty.
    monkeypatch.setattr(tm.subprocess, "run", stats("host=node1 cpu_ns= rbytes=7\n"))
    assert tm.sample(tmp_path) is None


def test_a_modelled_disk_reports_its_busy_time_and_seeks(tmp_path):
    samples = tmp_path / "samples"
    samples.mkdir()
    rows = [sample(100, 0, 0, 0, 0, disk=(0, 0)), sample(110, 1, 1, 0, 0, disk=(7500, 120))]
    (samples / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    step = tmp_path / "step"
    step.mkdir()
    run = {"config": "A", "index": 0, "job": {"job_start": 101_000, "job_s": 8.0}}
    (step / "results.json").write_text(json.dumps({"runs": [run]}))
    tm.utilisation(step, samples)
    [u] = json.loads((step / "utilisation.json").read_text())
    assert u["nodes"]["node1"]["disk_busy_pct"] == 75
    assert u["nodes"]["node1"]["disk_seeks_per_s"] == 12
    assert "| 75 % (12.0) |" in (step / "utilisation.md").read_text()
