"""The Python package against a task side made with the C library: a script that changed its two
lines gets every line of awkward input and its output arrives byte for byte. Run by ctest."""
import ctypes
import os
import subprocess
import sys
import tempfile
import threading

LIB = os.environ["HADOOP_SHM_LIB"]
PACKAGE_DIR = os.environ["HADOOP_SHM_PYTHONPATH"]
lib = ctypes.CDLL(LIB)
lib.hshm_ring_create.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_void_p)]
lib.hshm_ring_wait_peer.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.hshm_ring_write.restype = ctypes.c_ssize_t
lib.hshm_ring_write.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
lib.hshm_ring_read.restype = ctypes.c_ssize_t
lib.hshm_ring_read.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
lib.hshm_ring_close.argtypes = [ctypes.c_void_p]
READER, WRITER = 0, 1

SCRIPT = """
import hadoop_shm
out = hadoop_shm.writer()
for line in hadoop_shm.lines():
    out.write(b"%d\\t" % len(line) + line)
"""


def main():
    lines = [b"\n", b"hello\tworld\n", b"x" * 700000 + b"\n", b"\xff\xfe\x80 not utf-8\n"]
    lines += [b"w%d\n" % i for i in range(50000)]
    lines.append(b"last without newline")
    data = b"".join(lines)
    expected = b"".join(b"%d\t" % len(l) + l for l in lines)
    with tempfile.TemporaryDirectory() as d:
        attempt = "attempt_1_0001_m_000001_0"
        base = os.path.join(d, "hadoop-shm-" + attempt)
        ring_in, ring_out = ctypes.c_void_p(), ctypes.c_void_p()
        assert lib.hshm_ring_create((base + ".in").encode(), 1 << 20, WRITER, ctypes.byref(ring_in)) == 0
        assert lib.hshm_ring_create((base + ".out").encode(), 1 << 20, READER, ctypes.byref(ring_out)) == 0
        env = dict(os.environ, mapreduce_task_attempt_id=attempt, hadoop_accel_shm_streaming_dir=d,
                   PYTHONPATH=PACKAGE_DIR)
        proc = subprocess.Popen([sys.executable, "-c", SCRIPT], env=env)
        assert lib.hshm_ring_wait_peer(ring_in, 10000) == 0

        def feed():
            assert lib.hshm_ring_write(ring_in, data, len(data)) == len(data)
            lib.hshm_ring_close(ring_in)

        feeder = threading.Thread(target=feed)
        feeder.start()
        got = []
        buf = ctypes.create_string_buffer(1 << 16)
        while True:
            n = lib.hshm_ring_read(ring_out, buf, len(buf))
            assert n >= 0, n
            if n == 0:
                break
            got.append(buf.raw[:n])
        feeder.join()
        lib.hshm_ring_close(ring_out)
        assert proc.wait(30) == 0
        got = b"".join(got)
        assert got == expected, (len(got), len(expected))
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
