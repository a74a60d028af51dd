import os

from hacbench import proccpu


def test_host_busy_leaves_out_idle_and_iowait():
    hz = os.sysconf("SC_CLK_TCK")
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat = f"cpu  {hz} 0 {hz} {100 * hz} {50 * hz} 0 0 {hz} 7 7\ncpu0 ...\n"
    assert proccpu.host_busy_s(stat) == 3.0


def fake_proc(tmp_path, pid, cmd, utime, stime, start):
    d = tmp_path / str(pid)
    d.mkdir()
    (d / "cmdline").write_bytes(cmd.replace(" ", "\0").encode() + b"\0")
    # comm with a space and a parenthesis, as the kernel may show it
    fields = ["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 6 + [str(start)]
    (d / "stat").write_text(f"{pid} (a (b) c) " + " ".join(fields) + "\n")


def test_processes_matched_by_command_line_and_restarts_counted_whole(tmp_path):
    hz = os.sysconf("SC_CLK_TCK")
    fake_proc(tmp_path, 10, "/opt/bin/jbs_net_merger --port 1", 2 * hz, hz, 500)
    fake_proc(tmp_path, 11, "java -Xmx1g Child", 9 * hz, 0, 600)
    (tmp_path / "self").mkdir()
    before = proccpu.processes_cpu_s("jbs_net_merger", str(tmp_path))
    assert before == {(10, 500): 3.0}
    after = {(10, 500): 5.0, (12, 900): 1.5}  # pid 10 ran 2 s more; a restarted one ran 1.5 s
    assert proccpu.processes_delta_s(before, after) == 3.5
