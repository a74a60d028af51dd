#!/usr/bin/env python3
"""Measurements for `emu-cluster probe`, run inside a node (node-run) or on the host.

  cpu SECONDS [USAGE]         busy loop: share of one core this process got, and that of its
                              cgroup over the same window (USAGE: its cpuacct.usage or cpu.stat)
  make FILE BYTES             write FILE, fsync, drop it from the page cache (host side)
  drop FILE                   drop FILE from the page cache
  read FILE [BYTES|all] [MODEL]
                              sequential 1 MiB reads (buffered) of FILE or its first BYTES,
                              timed once its first page is in; with MODEL (a modelled disk's
                              control file) less the time its head spent positioning meanwhile
  write FILE BYTES            overwrite FILE: 1 MiB buffered writes, then fdatasync, twice
  riops FILE SECONDS          random 4 KiB O_DIRECT reads
  wiops FILE SECONDS          random 4 KiB O_DIRECT overwrites
  recv ADDR / send ADDR SECS  TCP: 200 one-byte pings (round trip), then bulk for SECS

Each prints one line: "<amount> <seconds>" (bytes, ops or a share), for cpu with USAGE also the
group's share, for send the payload in bit/s and the round trip in microseconds.
"""
from __future__ import annotations

import mmap
import os
import random
import re
import socket
import sys
import time

MIB = 1 << 20


def group_cpu_ns(usage: str) -> int:
    """CPU time a cgroup used: v1 cpuacct.usage (ns), or v2 cpu.stat's usage_usec."""
    with open(usage) as f:
        text = f.read()
    if usage.endswith("cpu.stat"):
        return 1000 * int(re.search(r"^usage_usec (\d+)", text, re.M).group(1))
    return int(text)


def cpu(seconds: float, usage: str | None) -> None:
    # The group's share is read inside the loop's own window: sampled from outside, the window
    # would also hold this interpreter's start, and a group that got its quota reads low.
    g0 = group_cpu_ns(usage) if usage else 0
    t0, c0 = time.monotonic(), time.process_time()
    while time.monotonic() - t0 < seconds:
        pass
    g1 = group_cpu_ns(usage) if usage else 0
    wall = time.monotonic() - t0
    group = f" {(g1 - g0) / 1e9 / wall:.3f}" if usage else ""
    print(f"{(time.process_time() - c0) / wall:.3f} 1{group}")


def drop(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def make(path: str, size: int) -> None:
    block = bytes(range(256)) * (MIB // 256)
    with open(path, "wb") as f:
        left = size
        while left > 0:
            left -= f.write(block[:min(left, MIB)])
        f.flush()
        os.fsync(f.fileno())
    drop(path)
    print(f"{size} 0")


def positioning_s(model: str | None) -> float:
    """A modelled disk's positioning time so far (emu_disk.py's control file), or 0."""
    if not model:
        return 0.0
    with open(model) as f:
        return float(re.search(r"positioning_s=([0-9.]+)", f.read()).group(1))


def read(path: str, limit: int | None, model: str | None = None) -> None:
    """The clock starts once the first page is in: finding the file (a seek on a modelled
    disk) is not bandwidth. That read brings only a few pages ahead (readahead starts small).
    On a modelled disk the seeks within the window (the file system's metadata, the file's
    next extent, another reader) are left out too: the rate is the bandwidth knob's."""
    fd = os.open(path, os.O_RDONLY)
    n = 0
    try:
        os.read(fd, 4096)
        os.lseek(fd, 0, os.SEEK_SET)
        p0 = positioning_s(model)
        t0 = time.perf_counter()
        while limit is None or n < limit:
            b = os.read(fd, MIB if limit is None else min(MIB, limit - n))
            if not b:
                break
            n += len(b)
        t = time.perf_counter() - t0 - (positioning_s(model) - p0)
    finally:
        os.close(fd)
    print(f"{n} {t:.6f}")


def write(path: str, size: int) -> None:
    """Overwrites FILE (made on the host, so its blocks are allocated) with buffered writes, then
    fdatasync; all of size and then a quarter of it. The rate is the difference of the two
    syncs: what every sync costs once cancels, and copying into the page cache (CPU, under the
    node's quota) is not the disk's. Overwriting allocated blocks needs no journal commit,
    which on a shared file system would wait for other writers' data (ext4 data=ordered)."""
    block = b"\xa5" * MIB

    def one(n_bytes: int) -> float:
        fd = os.open(path, os.O_WRONLY)
        try:
            n = 0
            while n < n_bytes:
                n += os.write(fd, block[: min(MIB, n_bytes - n)])
            t0 = time.perf_counter()
            os.fdatasync(fd)
            return time.perf_counter() - t0
        finally:
            os.close(fd)

    # Best of two: a throttle only ever slows down, and the kernel's dispatch of throttled
    # writes runs late on a loaded machine.
    small = size // 4
    t = min(one(size) - one(small) for _ in range(2))
    print(f"{size - small} {t:.6f}")


def iops(path: str, seconds: float, writing: bool) -> None:
    fd = os.open(path, (os.O_RDWR if writing else os.O_RDONLY) | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT wants
    buf.write(b"\x5a" * 4096)
    blocks = os.fstat(fd).st_size // 4096
    rnd = random.Random(7)
    io = os.pwritev if writing else os.preadv

    def one() -> float:
        # The clock starts once the first request is done: a throttle's first slice starts late.
        io(fd, [buf], 0)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            io(fd, [buf], rnd.randrange(blocks) * 4096)
            n += 1
        return n / (time.perf_counter() - t0)

    try:
        # Best of two, as for writes: dispatch of throttled requests runs late under load.
        print(f"{max(one(), one()):.3f} 1")
    finally:
        os.close(fd)


def net(mode: str, addr: str, seconds: float = 3.0) -> None:
    if mode == "recv":
        s = socket.create_server((addr, 5201))
        s.settimeout(30)
        c, _ = s.accept()
        c.settimeout(30)
        for _ in range(200):
            c.sendall(c.recv(1))
        n, t0 = 0, time.perf_counter()
        while b := c.recv(MIB):
            n += len(b)
        c.sendall(str(n / (time.perf_counter() - t0)).encode())
        return
    c = socket.create_connection((addr, 5201), timeout=30)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    t0 = time.perf_counter()
    for _ in range(200):
        c.sendall(b"x")
        c.recv(1)
    rtt = (time.perf_counter() - t0) / 200
    buf, end = b"x" * (64 * 1024), time.perf_counter() + seconds
    while time.perf_counter() < end:
        c.sendall(buf)
    c.shutdown(socket.SHUT_WR)
    print(f"{float(c.recv(64)) * 8:.0f} {rtt * 1e6:.0f}")


def main(argv: list[str]) -> None:
    op = argv[0]
    if op == "cpu":
        cpu(float(argv[1]), argv[2] if len(argv) > 2 else None)
    elif op == "make":
        make(argv[1], int(argv[2]))
    elif op == "drop":
        drop(argv[1])
    elif op == "read":
        limit = argv[2] if len(argv) > 2 else "all"
        read(argv[1], None if limit == "all" else int(limit), argv[3] if len(argv) > 3 else None)
    elif op == "write":
        write(argv[1], int(argv[2]))
    elif op in ("riops", "wiops"):
        iops(argv[1], float(argv[2]), op == "wiops")
    elif op in ("recv", "send"):
        net(op, argv[1], float(argv[2]) if len(argv) > 2 else 3.0)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
