#!/usr/bin/env python3
"""A hard disk for a node of the emulated cluster (`emu-cluster up --node-disks hdd`).

  emu_disk.py serve BACKING MOUNTPOINT     serve BACKING as MOUNTPOINT/disk until unmounted

The node's loop device sits on MOUNTPOINT/disk, a FUSE file whose every request takes the time
one disk head would take to serve it; the bytes go to BACKING, a sparse file on the host. The
cgroup throttles (blkio, io.max) count a request alike wherever it lands; a disk does not:

    service = positioning + bytes / rate
    positioning = gap / rate                 if the request starts where the last one ended
                                             or up to 1 MiB after (the gap passes under the head)
                = rotation + seek(distance)  otherwise

with rotation the mean half turn and seek(d) = seek_avg * (0.1 + 0.9 * sqrt(d / C) / (8/15)):
0.1 * seek_avg between neighbouring tracks, 1.79 * seek_avg across the whole disk C, and
seek_avg on average over uniformly random pairs of positions (E[sqrt|x - y|] = 8/15). ACCESS,
the one timing knob, is the mean random access time, seek_avg + rotation, split as a 7200 rpm
disk's is (8.5 ms + 4.17 ms). One head serves reads and writes alike, one request at a time,
in the order the kernel queued them (a single-threaded FUSE loop: the wait is the service).

MOUNTPOINT/model is the disk's control file: writing "read_bps=B write_bps=B access_s=S" (any
of them; 0 = no limit) changes the model at once; reading it gives the model and counters.
"""
from __future__ import annotations

import errno
import math
import os
import stat
import sys
import time

SEQUENTIAL_WINDOW = 1 << 20   # a request this far past the last one's end is still on track
ROTATION_SHARE = 4.17 / 12.67  # a 7200 rpm disk: 4.17 ms half turn of a 12.67 ms random access
TRACK_SEEK = 0.1               # neighbouring tracks, as a share of the mean seek
MEAN_SQRT_DISTANCE = 8 / 15    # E[sqrt|x - y|] for x, y uniform on [0, 1]


class HddModel:
    """Service times of one disk head; all times in seconds (already dilated, like the rates)."""

    def __init__(self, capacity: int, read_bps: float = 0, write_bps: float = 0,
                 access_s: float = 0) -> None:
        if capacity <= 0:
            raise ValueError(f"capacity must be positive, got {capacity}")
        self.capacity = capacity
        self.head = 0
        self.requests = self.seeks = 0
        self.busy_s = self.positioning_s = 0.0
        self.set(read_bps=read_bps, write_bps=write_bps, access_s=access_s)

    def set(self, **params: float) -> None:
        for key, value in params.items():
            if key not in ("read_bps", "write_bps", "access_s"):
                raise ValueError(f"unknown model parameter {key}")
            if not value >= 0 or math.isinf(value):
                raise ValueError(f"{key} must be a finite number >= 0, got {value}")
            setattr(self, key, float(value))

    def seek_s(self, distance: int) -> float:
        mean_seek = self.access_s * (1 - ROTATION_SHARE)
        spread = math.sqrt(min(distance, self.capacity) / self.capacity) / MEAN_SQRT_DISTANCE
        return mean_seek * (TRACK_SEEK + (1 - TRACK_SEEK) * spread)

    def serve(self, offset: int, length: int, write: bool) -> float:
        """The time the request takes; moves the head to its end."""
        rate = self.write_bps if write else self.read_bps
        gap = offset - self.head
        if 0 <= gap <= SEQUENTIAL_WINDOW:
            positioning = gap / rate if rate else 0.0
        else:
            positioning = self.access_s * ROTATION_SHARE + self.seek_s(abs(gap))
            self.seeks += 1
        took = positioning + (length / rate if rate else 0.0)
        self.head = offset + length
        self.requests += 1
        self.busy_s += took
        self.positioning_s += positioning
        return took

    def describe(self) -> str:
        return (f"read_bps={self.read_bps:.0f} write_bps={self.write_bps:.0f} "
                f"access_s={self.access_s:.6f} requests={self.requests} seeks={self.seeks} "
                f"busy_s={self.busy_s:.3f} positioning_s={self.positioning_s:.3f}\n")


def parse_params(text: str) -> dict[str, float]:
    """ "read_bps=5500000 access_s=0.14" -> its parameters; ValueError names a bad one."""
    params = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"want key=value, got '{token}'")
        try:
            params[key] = float(value)
        except ValueError:
            raise ValueError(f"{key}: not a number: '{value}'") from None
    return params


class Head:
    """When each request is done. A request that arrives within GRACE of the last one's end
    starts at that end: the gap is this process's own latency (FUSE, Python), not the disk's,
    and charging it would slow a stream by it for every request (about 1 ms in 3 at 40 MB/s)."""

    GRACE = 0.005

    def __init__(self, model: HddModel) -> None:
        self.model = model
        self.free_at = 0.0

    def serve(self, offset: int, length: int, write: bool, io):
        """io()'s result, returned when the head has served the request."""
        now = time.monotonic()
        start = self.free_at if now - self.free_at < self.GRACE else now
        self.free_at = start + self.model.serve(offset, length, write)
        result = io()
        delay = self.free_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        return result


def serve(backing: str, mountpoint: str) -> None:
    import fusepy  # Debian's python3-fusepy; only the server needs it

    class DiskFs(fusepy.Operations):
        """Two files: `disk` (the modelled disk) and `model` (its control file)."""

        def __init__(self) -> None:
            self.fd = os.open(backing, os.O_RDWR | os.O_CLOEXEC)
            self.size = os.fstat(self.fd).st_size
            self.model = HddModel(self.size)
            self.head = Head(self.model)

        def getattr(self, path, fh=None):
            if path == "/":
                return {"st_mode": stat.S_IFDIR | 0o700, "st_nlink": 2}
            if path == "/disk":
                return {"st_mode": stat.S_IFREG | 0o600, "st_nlink": 1, "st_size": self.size}
            if path == "/model":
                return {"st_mode": stat.S_IFREG | 0o600, "st_nlink": 1, "st_size": 4096}
            raise fusepy.FuseOSError(errno.ENOENT)

        def readdir(self, path, fh):
            return [".", "..", "disk", "model"]

        def open(self, path, flags):
            return 0

        def read(self, path, size, offset, fh):
            if path == "/model":
                return self.model.describe().encode()[offset:offset + size]
            return self.head.serve(offset, size, False, lambda: os.pread(self.fd, size, offset))

        def write(self, path, data, offset, fh):
            if path == "/model":
                try:
                    self.model.set(**parse_params(data.decode()))
                except ValueError as e:
                    print(f"emu_disk: {mountpoint}/model: {e}", file=sys.stderr)
                    raise fusepy.FuseOSError(errno.EINVAL) from None
                return len(data)
            return self.head.serve(offset, len(data), True,
                                   lambda: os.pwrite(self.fd, data, offset))

        def truncate(self, path, length, fh=None):
            return 0

        def flush(self, path, fh):
            return 0

        def fsync(self, path, datasync, fh):
            # The model charges every write when it is served, as a disk without a write cache.
            return 0

    fs = DiskFs()
    fs.use_ns = True
    fusepy.FUSE(fs, mountpoint, foreground=True, direct_io=True, nothreads=True,
                fsname="emu-disk", max_read=1 << 20)


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[1] != "serve":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    serve(argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
