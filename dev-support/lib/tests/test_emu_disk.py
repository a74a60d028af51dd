"""The hard-disk model of the emulated cluster's nodes (lib/emu_disk.py): its arithmetic."""
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from emu_disk import (  # noqa: E402
    ROTATION_SHARE,
    SEQUENTIAL_WINDOW,
    HddModel,
    parse_params,
)

GIB = 1 << 30
MB = 1_000_000


def test_a_sequential_stream_costs_its_transfer_only():
    m = HddModel(64 * GIB, read_bps=5.5 * MB, write_bps=5 * MB, access_s=0.14)
    took = sum(m.serve(i * 131072, 131072, False) for i in range(100))
    assert took == pytest.approx(100 * 131072 / (5.5 * MB))
    assert m.seeks == 0
    took = sum(m.serve(100 * 131072 + i * 131072, 131072, True) for i in range(10))
    assert took == pytest.approx(10 * 131072 / (5 * MB))


def test_random_requests_cost_the_mean_access_time_on_average():
    m = HddModel(64 * GIB, access_s=0.14)  # no rate: positioning only
    rnd = random.Random(1)
    n = 20000
    took = sum(m.serve(rnd.randrange(64 * GIB // 4096) * 4096, 4096, False) for _ in range(n))
    assert took / n == pytest.approx(0.14, rel=0.02)
    assert m.seeks >= n - 5  # a few land within the window of the last one


def test_a_seek_grows_with_its_distance_from_a_track_to_the_whole_disk():
    m = HddModel(64 * GIB, access_s=0.1)
    mean_seek = 0.1 * (1 - ROTATION_SHARE)
    assert m.seek_s(4096) == pytest.approx(0.1 * mean_seek, rel=0.01)
    assert m.seek_s(64 * GIB) == pytest.approx(mean_seek * (0.1 + 0.9 * 15 / 8))
    seeks = [m.seek_s(d) for d in (1 << 20, 1 << 24, 1 << 28, 1 << 32, 1 << 36)]
    assert seeks == sorted(seeks) and len(set(seeks)) == len(seeks)


def test_a_small_gap_ahead_passes_under_the_head_and_a_step_back_seeks():
    m = HddModel(GIB, read_bps=1 * MB, access_s=0.1)
    m.serve(0, 4096, False)
    assert m.serve(4096 + 8192, 4096, False) == pytest.approx((8192 + 4096) / MB)
    assert m.seeks == 0
    back = m.serve(0, 4096, False)
    assert back == pytest.approx(0.1 * ROTATION_SHARE + m.seek_s(16384) + 4096 / MB)
    assert m.seeks == 1
    m.serve(4096 + SEQUENTIAL_WINDOW + 1, 4096, False)
    assert m.seeks == 2
    assert m.busy_s > 0 and m.requests == 4
    assert m.positioning_s == pytest.approx(m.busy_s - 4 * 4096 / MB)


def test_no_limits_cost_nothing():
    m = HddModel(GIB)
    assert m.serve(12345 * 4096, 1 << 20, True) == 0
    assert m.serve(0, 4096, False) == 0


def test_the_control_file_takes_numbers_and_names_a_bad_one():
    assert parse_params("read_bps=5500000 access_s=0.14\n") == {
        "read_bps": 5.5e6,
        "access_s": 0.14,
    }
    with pytest.raises(ValueError, match="want key=value"):
        parse_params("read_bps")
    with pytest.raises(ValueError, match="write_bps: not a number"):
        parse_params("write_bps=fast")
    m = HddModel(GIB)
    with pytest.raises(ValueError, match="unknown model parameter iops"):
        m.set(iops=100)
    with pytest.raises(ValueError, match="access_s must be"):
        m.set(access_s=-1)
    with pytest.raises(ValueError, match="capacity"):
        HddModel(0)
    m.set(read_bps=1e6)
    assert "read_bps=1000000 " in m.describe()


def test_the_head_serves_back_to_back_requests_without_the_gaps_between_them(monkeypatch):
    import emu_disk

    clock = [100.0]
    monkeypatch.setattr(emu_disk.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(emu_disk.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    head = emu_disk.Head(HddModel(GIB, read_bps=1 * MB))
    assert head.serve(0, 10_000, False, lambda: "data") == "data"
    assert clock[0] == pytest.approx(100.01)
    clock[0] += 0.001  # this process's own latency: the disk was busy all along
    head.serve(10_000, 10_000, False, lambda: None)
    assert clock[0] == pytest.approx(100.02)
    clock[0] += 1.0  # idle: the next request starts when it arrives
    head.serve(20_000, 10_000, False, lambda: None)
    assert clock[0] == pytest.approx(101.03)
