import json

import shm_jmh_table

BENCH = "io.hadoopaccel.streaming.shm.RingVsPipeBenchmark."


def result(method, scores, **params):
    return {"jmhVersion": "1.37", "benchmark": BENCH + method, "vmName": "VM", "vmVersion": "17",
            "forks": 1, "warmupIterations": 2, "warmupTime": "1 s", "measurementIterations": 3,
            "measurementTime": "1 s", "params": {k: str(v) for k, v in params.items()},
            "primaryMetric": {"score": sum(scores) / len(scores), "rawData": [scores]}}


def test_ratios_by_size_and_batch(tmp_path):
    data = [
        result("pipe", [9e6, 10e6, 11e6], size=16),
        result("pipe", [50e3, 60e3, 70e3], size=65536),
        result("ring", [20e6, 30e6, 40e6], size=16, batch=1, capacity=1048576),
        result("ring", [40e6, 44e6, 22e6], size=16, batch=0, capacity=1048576),
        result("ring", [300e3, 360e3, 420e3], size=65536, batch=0, capacity=1048576),
        result("ring", [1e6, 1e6, 1e6], size=16, batch=0, capacity=65536),
    ]
    path = tmp_path / "jmh.json"
    path.write_text(json.dumps(data))
    md = shm_jmh_table.tables(str(path))
    # Medians 30e6 / 10e6; extremes 20/11 and 40/9. Auto comes last; a missing cell is a dash.
    assert "| record | batch 1 | batch auto |" in md
    assert "| 16 B | 3.00× [1.82–4.44] | 4.00× [2.00–4.89] |" in md
    assert "| 65536 B | – | 6.00× [4.29–8.40] |" in md
    # GB/s from 4 KiB records on: 60e3 * 65536 B.
    assert "| 65536 B | 60,000 rec/s, 3.93 GB/s | – | 0.36 M rec/s, 23.6 GB/s |" in md
    # Another ring capacity gets its own tables.
    assert "**ring@65536 / pipe**" in md and "ring of 65536 B" in md
    assert "ringUnbuffered" not in md
