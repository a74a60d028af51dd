from hacbench import history

JOB = "job_1_0001"


def fake_history():
    """A minimal JobHistoryServer: two maps and one reduce, times in ms."""
    base = f"/ws/v1/history/mapreduce/jobs/{JOB}"
    pages = {
        base: {"job": {"state": "SUCCEEDED", "startTime": 1000, "finishTime": 21000}},
        base + "/counters": {
            "jobCounters": {
                "counterGroup": [
                    {
                        "counterGroupName": "org.apache.hadoop.mapreduce.TaskCounter",
                        "counter": [
                            {
                                "name": "SPILLED_RECORDS",
                                "totalCounterValue": 40,
                                "mapCounterValue": 25,
                                "reduceCounterValue": 15,
                            },
                            {"name": "REDUCE_SHUFFLE_BYTES", "totalCounterValue": 1234},
                        ],
                    },
                    {
                        "counterGroupName": "org.apache.hadoop.mapreduce.JobCounter",
                        "counter": [{"name": "DATA_LOCAL_MAPS", "totalCounterValue": 2}],
                    },
                    # A group of one counter comes as a bare object, not a list.
                    {
                        "counterGroupName": "Kism",
                        "counter": {"name": "VALUE_BYTES_WRITTEN", "totalCounterValue": 0},
                    },
                ]
            }
        },
        base + "/tasks": {
            "tasks": {
                "task": [
                    {
                        "id": "t_m_0",
                        "type": "MAP",
                        "state": "SUCCEEDED",
                        "startTime": 2000,
                        "finishTime": 6000,
                    },
                    {
                        "id": "t_m_1",
                        "type": "MAP",
                        "state": "SUCCEEDED",
                        "startTime": 2500,
                        "finishTime": 8000,
                        "successfulAttempt": "a_m_1",
                    },
                    {
                        "id": "t_m_2",
                        "type": "MAP",
                        "state": "SUCCEEDED",
                        "startTime": 2600,
                        "finishTime": 7000,
                        "successfulAttempt": "a_m_2",
                    },
                    {
                        "id": "t_r_0",
                        "type": "REDUCE",
                        "state": "SUCCEEDED",
                        "startTime": 5000,
                        "finishTime": 20000,
                        "successfulAttempt": "a_r_0",
                    },
                ]
            }
        },
        # One AM attempt comes as a bare object, not a list.
        base + "/jobattempts": {
            "jobAttempts": {"jobAttempt": {"id": 1, "nodeHttpAddress": "node3:8042"}}
        },
        base + "/tasks/t_m_1/attempts/a_m_1": {
            "taskAttempt": {"nodeHttpAddress": "node2:8042", "elapsedTime": 5500}
        },
        base + "/tasks/t_m_2/attempts/a_m_2": {
            "taskAttempt": {"nodeHttpAddress": "node2:8042", "elapsedTime": 4400}
        },
        base + "/tasks/t_r_0/attempts/a_r_0": {
            "taskAttempt": {
                "startTime": 5000,
                "shuffleFinishTime": 9000,
                "mergeFinishTime": 12000,
                "finishTime": 20000,
            }
        },
        base + "/tasks/t_r_0/attempts": {
            "taskAttempts": {
                "taskAttempt": [
                    {
                        "id": "a_r_0_0",
                        "state": "KILLED",
                        "diagnostics": "Reducer preempted to make room for pending map attempts",
                    },
                    {"id": "a_r_0", "state": "SUCCEEDED", "diagnostics": ""},
                    {
                        "id": "a_r_0_2",
                        "state": "KILLED",
                        "diagnostics": "Speculation: a_r_0 succeeded first!",
                    },
                ]
            }
        },
        base + "/tasks/t_r_0/counters": {
            "jobTaskCounters": {
                "id": "t_r_0",
                "taskCounterGroup": [
                    {
                        "counterGroupName": "org.apache.hadoop.mapreduce.TaskCounter",
                        "counter": [
                            {"name": "SPILLED_RECORDS", "value": 40},
                            {"name": "CPU_MILLISECONDS", "value": 2500},
                        ],
                    }
                ],
            }
        },
    }
    return lambda path: pages[path]


def test_phases_counters_and_timeline():
    f = history.job_facts(fake_history(), JOB)
    assert f["job_s"] == 20.0
    assert f["phases"] == {"map": 6.0, "shuffle": 4.0, "merge": 3.0, "reduce": 8.0}
    assert f["counters"]["SPILLED_RECORDS"] == 40
    assert f["counters"]["DATA_LOCAL_MAPS"] == 2
    assert f["counters"]["FILE_BYTES_READ"] is None  # absent stays absent, not 0
    assert f["feature_counters"] == {"Kism.VALUE_BYTES_WRITTEN": 0}
    # reduce-side values where the page gives them, nothing invented where it does not
    assert f["reduce_counters"] == {"SPILLED_RECORDS": 15}
    assert f["reduce_cpu_s"] == 2.5  # the reduce task's counter, not the job's (maps + reduces)
    assert f["reduce_attempts"] == {
        "launched": 3,
        "preempted": 1,
        "speculation": 1,
        "failed": 0,
        "killed_other": 0,
    }
    assert [t["finish"] for t in f["timeline"]] == [6000, 7000, 8000, 20000]
    assert f["am_hosts"] == ["node3"]
    # t_m_0 names no successful attempt (an old history): left out, not guessed
    assert f["map_nodes"] == {"node2": [4.4, 5.5]}
