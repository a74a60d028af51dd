import shm_transport_counts as stc

# Two sched_switch events as `perf script -F comm,tid,trace,ip,sym` prints them: a C program
# blocked reading its stdin pipe, a JVM thread parked on a futex, then a preemption.
PERF = """\
shm_wordcount_m   842 prev_comm=shm_wordcount_m prev_pid=842 prev_prio=120 prev_state=S ==> next_comm=java next_pid=9 next_prio=120
\tffffffff821f8b58 __schedule
\tffffffff821f94c3 schedule
\tffffffff816c1234 anon_pipe_read
\tffffffff816c5678 vfs_read
\t          101829 read

LocalJobRunner    828 prev_comm=LocalJobRunner Map Task Executor #0 prev_pid=828 prev_prio=120 prev_state=S ==> next_comm=x next_pid=1 next_prio=120
\tffffffff821f8b58 __schedule
\tffffffff81400000 futex_wait_queue
\tffffffff81400100 __futex_wait

LocalJobRunner    828 prev_comm=LocalJobRunner Map Task Executor #0 prev_pid=828 prev_prio=120 prev_state=R+ ==> next_comm=x next_pid=1 next_prio=120
\tffffffff821f8b58 __schedule
\tffffffff81000000 irqentry_exit_to_user_mode
"""


def test_switches_are_classified_by_kernel_stack():
    c = stc.classify_switches(PERF.splitlines(True))
    assert c == {("shm_wordcount_m", "S", "pipe"): 1,
                 ("LocalJobRunner Map Task Executor #0", "S", "futex"): 1,
                 ("LocalJobRunner Map Task Executor #0", "R+", "other"): 1}


def test_strace_lines_with_padded_pids_are_parsed(tmp_path):
    trace = tmp_path / "t.strace"
    trace.write_text(
        '3824  execve("/x/shm_wordcount_mapper", ["/x/shm_wordcount_mapper"], 0x1 /* 4 vars */'
        ' <unfinished ...>\n'
        '3824  <... execve resumed>)             = 0\n'
        '3824  read(0<pipe:[77]>, "w1 w2\\n", 65536) = 6\n'
        '3824  write(1<pipe:[78]>, "w1\\t1\\n", 5) = 5\n'
        '12345 write(17<pipe:[78]>, "x", 1) = 1\n')
    prog, task = stc.syscall_counts(str(trace), "shm_wordcount_mapper")
    assert prog == {"read": 1, "write": 1}
    assert task == {"write": 1}  # the task end of the program's stdout pipe


def test_channel_switches_favour_pipes():
    pipes = {"channel": {"prog_pipe": 190, "prog_futex": 0, "map_thread_pipe": 140},
             "syscalls_program": {}, "syscalls_task": {}}
    rings = {"channel": {"prog_pipe": 1, "prog_futex": 12, "map_thread_pipe": 17},
             "syscalls_program": {"futex_wait": 15}, "syscalls_task": {"futex_wait": 10}}
    assert stc.channel_switches(pipes, rings=False) == 330
    # max(12 perf sleeps, 15 strace waits) + 10 task waits + 1 + 17 handshake pipe waits
    assert stc.channel_switches(rings, rings=True) == 43
