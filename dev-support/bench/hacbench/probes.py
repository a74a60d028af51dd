"""Physical limits of this machine, measured the same way in every report.

Python drives the probes, so memcpy and TCP figures are lower bounds of what C reaches;
they are there to read each ratio against, not to compare machines.
"""
from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import threading
import time


def _best(fn, repeat: int = 3) -> float:
    return max(fn() for _ in range(repeat))


def memcpy_gbps(size: int = 256 << 20) -> float:
    src = bytearray(size)
    dst = bytearray(size)

    def once() -> float:
        t = time.perf_counter()
        dst[:] = src
        return size / (time.perf_counter() - t) / 1e9

    return _best(once)


def pipe_gbps(total: int = 1 << 30, chunk: int = 64 << 10) -> float:
    def once() -> float:
        r, w = os.pipe()
        buf = b"\0" * chunk

        def writer() -> None:
            left = total
            while left > 0:
                left -= os.write(w, buf)
            os.close(w)

        th = threading.Thread(target=writer)
        t = time.perf_counter()
        th.start()
        got = 0
        while True:
            b = os.read(r, chunk)
            if not b:
                break
            got += len(b)
        th.join()
        os.close(r)
        return got / (time.perf_counter() - t) / 1e9

    return _best(once)


def tcp_loopback_gbps(total: int = 1 << 30, chunk: int = 256 << 10) -> float:
    def once() -> float:
        srv = socket.create_server(("127.0.0.1", 0))
        port = srv.getsockname()[1]

        def sender() -> None:
            with socket.create_connection(("127.0.0.1", port)) as c:
                buf = b"\0" * chunk
                left = total
                while left > 0:
                    c.sendall(buf)
                    left -= chunk

        th = threading.Thread(target=sender)
        th.start()
        conn, _ = srv.accept()
        t = time.perf_counter()
        got = 0
        mv = memoryview(bytearray(chunk))
        while True:
            n = conn.recv_into(mv)
            if n == 0:
                break
            got += n
        el = time.perf_counter() - t
        th.join()
        conn.close()
        srv.close()
        return got / el / 1e9

    return _best(once)


def disk_gbps(directory: str, size_mb: int = 512) -> tuple[float, float]:
    """Sequential direct-I/O write and read with dd (bypasses the page cache)."""
    with tempfile.TemporaryDirectory(dir=directory) as d:
        f = os.path.join(d, "probe")

        def dd(*args: str) -> float:
            t = time.perf_counter()
            subprocess.run(
                ["dd", *args, "bs=4M", f"count={size_mb // 4}", "status=none"], check=True
            )
            return size_mb * (1 << 20) / (time.perf_counter() - t) / 1e9

        w = dd("if=/dev/zero", f"of={f}", "oflag=direct")
        r = dd(f"if={f}", "of=/dev/null", "iflag=direct")
        return w, r


def all_probes(scratch: str, quick: bool = False) -> dict:
    scale = 8 if quick else 1
    w, r = disk_gbps(scratch, 512 // scale)
    return {
        "memcpy GB/s (1 thread, Python)": round(memcpy_gbps((256 << 20) // scale), 2),
        "pipe GB/s (64 KB writes)": round(pipe_gbps((1 << 30) // scale), 2),
        "loopback TCP GB/s (1 stream)": round(tcp_loopback_gbps((1 << 30) // scale), 2),
        "disk seq write GB/s (O_DIRECT)": round(w, 2),
        "disk seq read GB/s (O_DIRECT)": round(r, 2),
    }
