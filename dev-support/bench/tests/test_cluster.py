from hacbench import cluster


def test_keep_logs_copies_the_am_syslog_and_the_rm_log(tmp_path):
    work = tmp_path / "work"
    am = work / "nodes/master/logs/userlogs/application_17_0003/container_17_0003_01_000001"
    task = work / "nodes/node1/logs/userlogs/application_17_0003/container_17_0003_01_000002"
    for d in (am, task):
        d.mkdir(parents=True)
    (am / "syslog").write_text("the AM\n")
    (task / "syslog").write_text("a map\n")
    (work / "nodes/master/logs/hadoop-root-resourcemanager-master.log").write_text("the RM\n")
    env = tmp_path / "cluster.env"
    env.write_text(f"export CLUSTER_WORK='{work}'\n")

    dest = tmp_path / "out"
    cluster.Cluster(env).keep_logs("job_17_0003", dest)

    assert (dest / "job_17_0003-am.log").read_text() == "the AM\n"
    assert (dest / "resourcemanager.log").read_text() == "the RM\n"
    assert sorted(p.name for p in dest.iterdir()) == ["job_17_0003-am.log", "resourcemanager.log"]
