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


def run_program(argv, data, env_extra=None):
    """Runs argv as a streaming program would run under -io shm: the test is the task, it
    creates both rings, feeds `data` from a second thread and returns what the program wrote."""
    with tempfile.TemporaryDirectory() as d:
        attempt = "attempt_1_0001_m_000001_0"
        base = os.path.join(d, "hadoop-shm-" + attempt)
        ring_in, ring_out = ctypes.c_void_p(), ctypes.c_void_p()
        assert (
            lib.hshm_ring_create((base + ".in").encode(), 1 << 20, WRITER, ctypes.byref(ring_in))
            == 0
        )
        assert (
            lib.hshm_ring_create((base + ".out").encode(), 1 << 20, READER, ctypes.byref(ring_out))
            == 0
        )
        env = dict(os.environ, PYTHONPATH=PACKAGE_DIR, **(env_extra or {}),
                   stream_map_input_writer_class="io.hadoopaccel.streaming.shm.ShmTextInputWriter")
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE)
        proc.stdin.write(b"hadoop-shm 1\t%s.in\t%s.out\n" % (base.encode(), base.encode()))
        proc.stdin.close()
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
        assert proc.wait(30) == 0, argv
        return b"".join(got)


def test_python_script():
    lines = [b"\n", b"hello\tworld\n", b"x" * 700000 + b"\n", b"\xff\xfe\x80 not utf-8\n"]
    lines += [b"w%d\n" % i for i in range(50000)]
    lines.append(b"last without newline")
    expected = b"".join(b"%d\t" % len(ln) + ln for ln in lines)
    got = run_program([sys.executable, "-c", SCRIPT], b"".join(lines))
    assert got == expected, (len(got), len(expected))


def test_c_wordcount():
    words = [b"w%d" % (i * 7919 % 1000) for i in range(100000)]
    text = b"".join(b" ".join(words[i:i + 13]) + b"\n" for i in range(0, len(words), 13))
    examples = os.environ["HADOOP_SHM_EXAMPLES"]
    mapped = run_program([os.path.join(examples, "shm_wordcount_mapper")], text)
    assert mapped == b"".join(w + b"\t1\n" for w in words)
    shuffled = b"".join(
        sorted(mapped.splitlines(keepends=True))
    )  # what the shuffle would hand over
    reduced = run_program([os.path.join(examples, "shm_wordcount_reducer")], shuffled)
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    assert reduced == b"".join(b"%s\t%d\n" % (w, counts[w]) for w in sorted(counts))


def main():
    tests = [test_python_script, test_c_wordcount]
    for t in tests:
        t()
    print("%d passed, 0 failed" % len(tests))


if __name__ == "__main__":
    main()
