import json

import calibration_table


def write_step(out, workload, runs, util):
    d = out / f"calibration-{workload}"
    d.mkdir(parents=True)
    (d / "results.json").write_text(json.dumps({"runs": runs}))
    (d / "utilisation.json").write_text(json.dumps(util))


def run(config, index, job_s, counters, reduce_counters, warmup=False):
    return {
        "config": config,
        "index": index,
        "warmup": warmup,
        "job": {
            "job_s": job_s,
            "phases": {"map": 50.0, "shuffle": 30.0, "merge": 1.0, "reduce": 9.0},
            "counters": counters,
            "reduce_counters": reduce_counters,
        },
    }


def node(cpu, rd, wr, link):
    return {"cpu_cores": cpu, "disk_read_pct": rd, "disk_write_pct": wr, "link_in_pct": link}


def test_rows_pair_runs_with_their_utilisation_and_profile_the_merge(tmp_path):
    counters = {"TOTAL_LAUNCHED_REDUCES": 2, "REDUCE_SHUFFLE_BYTES": 4 * 2**20}
    reduce_counters = {
        "MERGED_MAP_OUTPUTS": 20,
        "FILE_BYTES_WRITTEN": 8 * 2**20,
        "SPILLED_RECORDS": 300,
        "REDUCE_INPUT_RECORDS": 100,
    }
    write_step(
        tmp_path,
        "terasort",
        [
            run("A", 0, 999.0, counters, reduce_counters, warmup=True),
            run("A", 1, 100.0, counters, reduce_counters),
            run("B", 1, 110.0, counters, reduce_counters),
        ],
        [
            {
                "config": "A",
                "index": 1,
                "machine_cpu_idle_pct": 40.0,
                "nodes": {
                    "master": node(0.1, 0, 0, 99),
                    "node1": node(0.2, 10, 30, 5),
                    "node2": node(0.3, 20, 15, 7),
                },
            }
        ],
    )
    (tmp_path / "calibration-grep" / "logs").mkdir(parents=True)  # interrupted: skipped
    rows = calibration_table.rows(tmp_path)
    assert [r["job_s"] for r in rows] == [100.0, 110.0]  # the warm-up is left out
    a, b = rows
    assert a["idle_pct"] == 40.0 and b["idle_pct"] is None  # B's run was not sampled
    assert sorted(a["worker_cpu"]) == [0.2, 0.3]  # the master is not a worker
    assert a["max_pct"] == {"disk_read_pct": 20, "disk_write_pct": 30, "link_in_pct": 7}
    assert a["merge"] == {
        "segments_per_reduce": 10,
        "shuffled_mb_per_reduce": 2.0,
        "written_per_shuffled_byte": 2.0,
        "spilled_per_record": 3.0,
    }
    md = calibration_table.markdown(rows)
    assert "| terasort | 100 | 50 / 30 / 9 | 40 % | 0.20–0.30 | 20 / 30, 7 | 10, 2.0 |" in md


def test_map_only_job_has_no_merge_profile():
    job = {"counters": {"TOTAL_LAUNCHED_REDUCES": 0}, "reduce_counters": {}}
    assert calibration_table.merge_profile(job) is None
