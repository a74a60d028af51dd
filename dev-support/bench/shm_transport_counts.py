#!/usr/bin/env python3
"""Attributes system calls and context switches to the streaming transport (shm_syscalls.sh).

Reads OUT/runs.txt ("name program-exe" lines) and, per run, OUT/<name>.strace (strace -f -y),
OUT/<name>.switches (uniq -c of prev_comm/prev_state from perf's sched_switch) and OUT/<name>.log
(the job's counters). Prints a table per record moved and writes OUT/counts.json.
"""
import json
import re
import sys
from collections import Counter

CALL = re.compile(r"^(\d+) (\w+)\((.*)\) += (.*)$")
UNFINISHED = re.compile(r"^(\d+) (.*) <unfinished \.\.\.>$")
RESUMED = re.compile(r"^(\d+) <\.\.\. \w+ resumed>(.*)$")
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
    for pid, name, args, res in rows:
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
    for pid, name, args, res in rows:
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


def switch_counts(path, exe):
    """(voluntary, involuntary) switches of the program and of the task's transport threads.

    Voluntary switches (the thread blocked) are what moving records costs; involuntary ones
    (preempted on a busy machine) are shown apart.
    """
    prog, task = [0, 0], [0, 0]
    for line in open(path):
        count, rest = line.strip().split(" ", 1)
        comm, state = rest.rsplit("\t", 1)
        side = prog if comm.strip() == exe[:15] else \
            task if comm.startswith(TRANSPORT_THREADS) else None
        if side is not None:
            side[1 if state.startswith("prev_state=R") else 0] += int(count)
    return prog, task


def records(path):
    text = open(path, errors="replace").read()
    get = lambda key: int(re.search(key + r"=(\d+)", text).group(1))
    return get("Map input records") + get("Map output records")


def moving(counts):
    """System calls that move records: all but the handshake (futex_wait is a subset of futex)."""
    return sum(v for k, v in counts.items() if k not in ("handshake", "futex_wait"))


def main(out):
    result = {}
    for line in open(out + "/runs.txt"):
        name, exe = line.split()
        prog, task = syscall_counts("%s/%s.strace" % (out, name), exe)
        sw_prog, sw_task = switch_counts("%s/%s.switches" % (out, name), exe)
        result[name] = {"records_moved": records("%s/%s.log" % (out, name)),
                        "syscalls_program": dict(prog), "syscalls_task": dict(task),
                        "switches_program": sw_prog, "switches_task": sw_task}
    json.dump(result, open(out + "/counts.json", "w"), indent=1)
    head = "%-22s %10s %12s %12s %10s %10s" % (
        "run", "records", "syscalls", "per record", "vol. ctx sw", "per record")
    print("Transport system calls (program fd 0/1 + futex; task's reads/writes of those pipes or")
    print("futex on its rings) and voluntary context switches (program + the task's map thread")
    print("and output thread), per record moved (map input + output records).")
    print(head)
    for name, r in result.items():
        sc = moving(r["syscalls_program"]) + moving(r["syscalls_task"])
        sw = r["switches_program"][0] + r["switches_task"][0]
        n = r["records_moved"]
        print("%-22s %10d %12d %12.5f %10d %10.5f" % (name, n, sc, sc / n, sw, sw / n))
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
                print("  %-20s vs %-22s syscalls %8.1fx   context switches %8.1fx" % (
                    other, name, (sa / a["records_moved"]) / max(sb, 1) * b["records_moved"],
                    (wa / a["records_moved"]) / max(wb, 1) * b["records_moved"]))


if __name__ == "__main__":
    main(sys.argv[1])
