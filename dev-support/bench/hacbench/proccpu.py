"""CPU seconds spent on this machine between two points, from /proc (Linux).

The emulated cluster runs every node on this one machine in the host's pid namespace, so
/proc shows all of it: the whole machine's busy time, and the CPU of named helper processes
(e.g. native shuffle daemons) that a job's task counters do not include.
"""
from __future__ import annotations

import os
import re
from typing import Optional

_HZ = os.sysconf("SC_CLK_TCK")


def host_busy_s(stat: Optional[str] = None) -> float:
    """Busy CPU seconds since boot, all cores: everything but idle and iowait."""
    stat = stat if stat is not None else open("/proc/stat").read()
    fields = [int(x) for x in stat.splitlines()[0].split()[1:]]
    # user nice system idle iowait irq softirq steal [guest guest_nice: already in user/nice]
    busy = sum(fields[:8]) - fields[3] - fields[4]
    return busy / _HZ


def processes_cpu_s(pattern: str, proc: str = "/proc") -> dict[tuple[int, int], float]:
    """(pid, start time) -> user+system CPU seconds of live processes whose command line
    matches pattern (a regex searched for). The start time tells a restarted pid apart."""
    rx = re.compile(pattern)
    out = {}
    for name in os.listdir(proc):
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            if not rx.search(cmd):
                continue
            with open(f"{proc}/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # exited meanwhile
        # Fields after the parenthesised command name (which may hold spaces).
        rest = stat[stat.rindex(")") + 2:].split()
        utime, stime, start = int(rest[11]), int(rest[12]), int(rest[19])
        out[(int(name), start)] = (utime + stime) / _HZ
    return out


def processes_delta_s(before: dict, after: dict) -> float:
    """CPU the matched processes spent between two snapshots. A process that started in
    between counts whole; one that exited in between is lost (its last seconds unseen)."""
    return sum(cpu - before.get(key, 0.0) for key, cpu in after.items())
