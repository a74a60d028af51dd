#!/usr/bin/env python3
"""Attributes system calls and context switches to the streaming transport (shm_syscalls.sh).

Reads OUT/runs.txt ("name program-exe" lines) and, per run, OUT/<name>.strace (strace -f -y),
OUT/<name>.switches (written by --classify-switches from perf's sched_switch with kernel stacks:
"count TAB comm TAB prev_state TAB what it blocked in") and OUT/<name>.log (the job's counters).
Prints a table per record moved and writes OUT/counts.json.

  shm_transport_counts.py OUT
  perf script -F comm,tid,trace,ip,sym | shm_transport_counts.py --classify-switches
"""
import json
import re
import sys
from collections import Counter

# strace -f pads pids shorter than 5 digits with spaces.
CALL = re.compile(r"^(\d+) +(\w+)\((.*)\) += (.*)$")
UNFINISHED = re.compile(r"^(\d+) +(.*) <unfinished \.\.\.>$")
RESUMED = re.compile(r"^(\d+) +<\.\.\. \w+ resumed>(.*)$")
FD = re.compile(r"^(\d+)<([^>]*)>")
RING_FILE = "hadoop-shm-"
# The task's threads that move records: the map thread writes them ("LocalJobRunner Map Task
# Executor #0"), upstream's unnamed output thread reads them back ("Thread-N").
TRANSPORT_THREADS = ("LocalJobRunner", "Thread-")


def calls(path):
    """Yields (pid, syscall, args, result) with unfinished/resumed halves joined."""
    pending = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = UNFINISHED.match(line)
            if m:
                pending[m.group(1)] = m.group(1) + " " + m.group(2)
                continue
            m = RESUMED.match(line)
            if m:
                if m.group(1) not in pending:
                    continue
                line = pending.pop(m.group(1)) + m.group(2)
            m = CALL.match(line)
            if m:
                yield int(m.group(1)), m.group(2), m.group(3), m.group(4)


def syscall_counts(path, exe):
    rows = list(calls(path))
    program = {pid for pid, name, args, res in rows
               if name == "execve" and res.startswith("0")
               and args.split(",")[0].strip('"').rsplit("/", 1)[-1] == exe}
    if not program:
        raise SystemExit("%s: no execve of %s" % (path, exe))
    prog = Counter()
    pipes = set()
    for pid, name, args, _res in rows:
        if pid not in program:
            continue
        fd = FD.match(args)
        if name == "read" and fd and fd.group(1) == "0" and args.endswith(", 1"):
            prog["handshake"] += 1  # read byte by byte, once per task: setup, not per record
        elif name in ("read", "readv") and fd and fd.group(1) == "0" or \
                name in ("write", "writev") and fd and fd.group(1) == "1":
            prog[name] += 1
            if fd.group(2).startswith("pipe:"):
                pipes.add(fd.group(2))
        elif name == "futex":
            prog[name] += 1
            if "FUTEX_WAIT" in args:
                prog["futex_wait"] += 1
    rings = []  # (start, end) of ring mappings in the task JVM
    for pid, name, args, res in rows:
        if pid not in program and name == "mmap" and RING_FILE in args and res.startswith("0x"):
            length = int(args.split(",")[1])
            rings.append((int(res.split()[0], 16), int(res.split()[0], 16) + length))
    task = Counter()
    for pid, name, args, _res in rows:
        if pid in program:
            continue
        fd = FD.match(args)
        if name in ("read", "readv", "write", "writev") and fd and fd.group(2) in pipes:
            task[name] += 1
        elif name == "futex" and rings:
            addr = int(args.split(",")[0], 16)
            if any(a <= addr < b for a, b in rings):
                task[name] += 1
                if "FUTEX_WAIT" in args:
                    task["futex_wait"] += 1
    return prog, task


def blocked_in(stack):
    """What a switched-out thread was blocked in, from its kernel stack (innermost first)."""
    text = " ".join(stack)
    if re.search(r"\bpipe_(read|write)\b|\banon_pipe_(read|write)\b", text):
        return "pipe"
    if re.search(r"\bfutex_wait", text):
        return "futex"
    return "other"


def classify_switches(lines):
    """perf script text (sched_switch events with callchains) -> Counter of
    (prev_comm, prev_state, blocked_in)."""
    out = Counter()
    head, stack = None, []

    def flush():
        if head is None:
            return
        m = re.search(r"prev_comm=(.*?) prev_pid=\d+ .*?prev_state=(\S+)", head)
        if m:
            out[(m.group(1), m.group(2), blocked_in(stack))] += 1

    for line in lines:
        if not line.strip():
            continue
        if line[0] in " \t":
            parts = line.split()
            if len(parts) > 1:
                stack.append(parts[1])
        else:
            flush()
            head, stack = line, []
    flush()
    return out


def switch_counts(path, exe):
    """(voluntary, involuntary) switches of the program and of the task's transport threads.

    Voluntary switches (the thread blocked) are what moving records costs; involuntary ones
    (preempted on a busy machine) are shown apart.
    """
    prog, task = [0, 0], [0, 0]
    channel = {"prog_pipe": 0, "prog_futex": 0, "map_thread_pipe": 0}
    for line in open(path):
        count, comm, state, kind = line.rstrip("\n").split("\t")
        count = int(count)
        side = prog if comm.strip() == exe[:15] else \
            task if comm.startswith(TRANSPORT_THREADS) else None
        if side is None:
            continue
        voluntary = not state.startswith("R")
        side[0 if voluntary else 1] += count
        if voluntary and side is prog and kind in ("pipe", "futex"):
            channel["prog_" + kind] += count
        elif voluntary and comm.startswith("LocalJobRunner") and kind == "pipe":
            channel["map_thread_pipe"] += count
    return prog, task, channel


def channel_switches(r, rings):
    """Voluntary switches spent waiting on the record channel, counted to favour pipes: over
    pipes, the program's switches blocked in a pipe read/write plus the map thread's (the
    output thread is unnamed, so its pipe waits are left out); over rings, the program's futex
    sleeps (perf) or futex waits (strace), whichever is more, plus every futex wait of the task
    JVM on a ring address (strace), whether or not it slept, plus both sides' pipe waits (the
    set-up handshake still runs over the pipes)."""
    c = r["channel"]
    if rings:
        return max(c["prog_futex"], r["syscalls_program"].get("futex_wait", 0)) \
            + r["syscalls_task"].get("futex_wait", 0) + c["prog_pipe"] + c["map_thread_pipe"]
    return c["prog_pipe"] + c["map_thread_pipe"]


def records(path):
    text = open(path, errors="replace").read()

    def get(key):
        return int(re.search(key + r"=(\d+)", text).group(1))

    return get("Map input records") + get("Map output records")


def moving(counts):
    """System calls that move records: all but the handshake (futex_wait is a subset of futex)."""
    return sum(v for k, v in counts.items() if k not in ("handshake", "futex_wait"))


def main(out):
    result = {}
    for line in open(out + "/runs.txt"):
        name, exe = line.split()
        prog, task = syscall_counts("%s/%s.strace" % (out, name), exe)
        sw_prog, sw_task, channel = switch_counts("%s/%s.switches" % (out, name), exe)
        result[name] = {"records_moved": records("%s/%s.log" % (out, name)),
                        "syscalls_program": dict(prog), "syscalls_task": dict(task),
                        "switches_program": sw_prog, "switches_task": sw_task,
                        "channel": channel}
    json.dump(result, open(out + "/counts.json", "w"), indent=1)
    head = "%-22s %10s %10s %12s %11s %11s %12s" % (
        "run", "records", "syscalls", "per record", "vol. ctx sw", "on channel", "per record")
    print("Transport system calls (program fd 0/1 + futex; task's reads/writes of those pipes or")
    print("futex on its rings) and voluntary context switches (program + the task's map thread")
    print("and output thread), per record moved (map input + output records). 'on channel': the")
    print("voluntary switches spent waiting on the record channel, by kernel stack, counted to")
    print("favour pipes (pipes: the program's pipe waits + the map thread's; rings: the program's")
    print("futex waits + every futex wait of the task on a ring address, slept or not, + both")
    print("sides' pipe waits, i.e. the set-up handshake).")
    print(head)
    for name, r in result.items():
        sc = moving(r["syscalls_program"]) + moving(r["syscalls_task"])
        sw = r["switches_program"][0] + r["switches_task"][0]
        ch = channel_switches(r, not name.endswith("-pipes"))
        n = r["records_moved"]
        print("%-22s %10d %10d %12.5f %11d %11d %12.6f" % (name, n, sc, sc / n, sw, ch, ch / n))
    print()
    print("futex waits on the rings (each at most one of the voluntary switches above; the rest")
    print("are the same threads blocking for other reasons):",
          ", ".join("%s %d" % (k, r["syscalls_program"].get("futex_wait", 0)
                               + r["syscalls_task"].get("futex_wait", 0))
                    for k, r in result.items() if not k.endswith("-pipes")))
    print("handshake reads per task (setup, not counted above):",
          ", ".join("%s %d" % (k, r["syscalls_program"].get("handshake", 0))
                    for k, r in result.items() if not k.endswith("-pipes")))
    print("involuntary switches of the same threads (preemption, not transport):",
          ", ".join("%s %d" % (k, r["switches_program"][1] + r["switches_task"][1])
                    for k, r in result.items()))
    print()
    print("pipes/rings ratios (higher = rings cheaper):")
    for name in result:
        if not name.endswith("-pipes"):
            continue
        base = name[:-len("-pipes")]
        for other in (base + "-shm", base + "-shim"):
            if other in result:
                a, b = result[name], result[other]
                sa = moving(a["syscalls_program"]) + moving(a["syscalls_task"])
                sb = moving(b["syscalls_program"]) + moving(b["syscalls_task"])
                wa = a["switches_program"][0] + a["switches_task"][0]
                wb = b["switches_program"][0] + b["switches_task"][0]
                ca, cb = channel_switches(a, False), channel_switches(b, True)

                def per(x, r):
                    return x / r["records_moved"]

                print("  %-20s vs %-22s syscalls %8.1fx   context switches %6.1fx"
                      "   on channel %6.1fx" % (
                          other, name, per(sa, a) / max(per(sb, b), 1e-12),
                          per(wa, a) / max(per(wb, b), 1e-12),
                          per(ca, a) / max(per(cb, b), 1e-12)))


if __name__ == "__main__":
    if sys.argv[1:] == ["--classify-switches"]:
        for (comm, state, kind), n in sorted(classify_switches(sys.stdin).items()):
            print("%d\t%s\t%s\t%s" % (n, comm, state, kind))
    else:
        main(sys.argv[1])
