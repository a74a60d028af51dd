"""The preload shim (libhadoop_shm_preload.so) against a task side made with the C library:
unmodified Python scripts and an unmodified C stdio program run over the rings and their output
arrives byte for byte; programs the shim cannot cover fail with one clear line, without hanging
and without the task seeing a clean end of output. Run by ctest; `--bench` compares the Python
echo script over the shim with plain pipes instead (by hand)."""
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

LIB = os.environ["HADOOP_SHM_LIB"]
PRELOAD = os.environ["HADOOP_SHM_PRELOAD"]
STDIO_PROGRAM = os.environ["HADOOP_SHM_STDIO_PROGRAM"]
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
EPIPE = 32
FATAL_EXIT = 70  # the shim's exit status for what it refuses
PY = sys.executable

# Unmodified scripts: plain sys.stdin / sys.stdout.
TEXT_SCRIPT = """import sys
for line in sys.stdin:
    sys.stdout.write("%d\\t%s" % (len(line), line))
"""
BUFFER_SCRIPT = """import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(b"%d\\t" % len(line) + line)
"""
THREADS_SCRIPT = """import queue, sys, threading
q = queue.Queue(64)
def reader():
    for line in sys.stdin.buffer:
        q.put(line)
    q.put(None)
threading.Thread(target=reader).start()
while (line := q.get()) is not None:
    sys.stdout.buffer.write(b"%d\\t" % len(line) + line)
"""
CHILD_SCRIPT = """import subprocess, sys
tag = subprocess.check_output(["echo", "child"]).strip()
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(tag + b"\\t" + line)
"""
ECHO_SCRIPT = """import sys
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
"""

LINES = [b"\n", b"hello\tworld\n", b"x" * 700000 + b"\n", b"\xff\xfe\x80 not utf-8\n", b"\n"]
LINES += [b"w%d\n" % i for i in range(50000)]
LINES.append(b"last without newline")
DATA = b"".join(LINES)
TEXT_LINES = [ln for ln in LINES if b"\xff" not in ln]  # text-mode stdin decodes UTF-8
TEXT_DATA = b"".join(TEXT_LINES)


def numbered(lines):
    return b"".join(b"%d\t" % len(ln) + ln for ln in lines)


class Result:
    def __init__(self):
        self.status = None
        self.output = b""
        self.end = None       # what ended the output: 0 (clean end of stream) or -errno
        self.fed = None       # the input writer's last result
        self.stderr = b""
        self.seconds = 0.0


def program_env(extra=None):
    """The task's environment for the program: the shim preloaded, PYTHONUNBUFFERED if asked."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONUNBUFFERED", "HADOOP_SHM_PRELOAD_OWNER")}
    env["LD_PRELOAD"] = PRELOAD
    # What streaming exports under -io shm: the library then reads the handshake.
    env["stream_map_input_writer_class"] = "io.hadoopaccel.streaming.shm.ShmTextInputWriter"
    env.update(extra or {})
    return env


def wait_attached(proc, ring_in, ring_out, seconds=10):
    """As the task waits: up to `seconds`, and not past the program's exit."""
    deadline = time.monotonic() + seconds
    for ring in (ring_in, ring_out):
        while lib.hshm_ring_wait_peer(ring, 100) != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                return False
    return True


def run_task(argv, data, env_extra=None, timeout=60, capacity=1 << 20):
    """Runs argv with the shim as a streaming task would under -io shm: the test creates both
    rings, sends the handshake, feeds `data` from a second thread and reads the output until the
    ring ends. A watchdog kills the program after `timeout` seconds, so nothing here can hang."""
    r = Result()
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "hadoop-shm-attempt_1_0001_m_000001_0")
        ring_in, ring_out = ctypes.c_void_p(), ctypes.c_void_p()
        assert (
            lib.hshm_ring_create((base + ".in").encode(), capacity, WRITER, ctypes.byref(ring_in))
            == 0
        )
        assert (
            lib.hshm_ring_create((base + ".out").encode(), capacity, READER, ctypes.byref(ring_out))
            == 0
        )
        env = program_env(env_extra)
        started = time.monotonic()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        watchdog = threading.Timer(timeout, proc.kill)
        watchdog.start()
        errs = []
        err_reader = threading.Thread(target=lambda: errs.append(proc.stderr.read()))
        err_reader.start()
        attached = False
        try:  # a program refused at once may be gone before the handshake
            proc.stdin.write(b"hadoop-shm 1\t%s.in\t%s.out\n" % (base.encode(), base.encode()))
            proc.stdin.flush()
            attached = wait_attached(proc, ring_in, ring_out)
            if attached:  # as the task does: the rings are taken, nobody else may look for them
                proc.stdin.write(b"hadoop-shm 1\t+\t+\n")
            proc.stdin.close()
        except BrokenPipeError:
            pass

        def feed():
            r.fed = lib.hshm_ring_write(ring_in, data, len(data))
            lib.hshm_ring_close(ring_in)

        feeder = threading.Thread(target=feed)
        got = []
        if attached:
            feeder.start()
            buf = ctypes.create_string_buffer(1 << 16)
            while True:
                n = lib.hshm_ring_read(ring_out, buf, len(buf))
                if n <= 0:
                    r.end = n
                    break
                got.append(buf.raw[:n])
            feeder.join()
        else:
            lib.hshm_ring_close(ring_in)
        lib.hshm_ring_close(ring_out)
        r.status = proc.wait()
        r.seconds = time.monotonic() - started
        watchdog.cancel()
        err_reader.join()
        r.output = b"".join(got)
        r.stderr = errs[0] if errs else b""
        assert r.seconds < timeout, (argv, "killed by the watchdog: the program hung")
        return r


def check_ok(name, r, data, expected):
    assert r.status == 0, (name, r.status, r.stderr[-2000:])
    assert r.end == 0, (name, "output did not end cleanly", r.end)
    assert r.fed == len(data), (name, "input not all taken", r.fed)
    assert r.output == expected, (name, len(r.output), len(expected))


def test_python_scripts():
    for label, extra in (("buffered", {}), ("PYTHONUNBUFFERED=1", {"PYTHONUNBUFFERED": "1"})):
        r = run_task([PY, "-c", TEXT_SCRIPT], TEXT_DATA, extra)
        check_ok("sys.stdin " + label, r, TEXT_DATA, numbered(TEXT_LINES))
        for name, script in (("sys.stdin.buffer", BUFFER_SCRIPT), ("threads", THREADS_SCRIPT)):
            r = run_task([PY, "-c", script], DATA, extra)
            check_ok(name + " " + label, r, DATA, numbered(LINES))
    # A child whose output the script captures is fine: only the inherited fd 0/1 are refused.
    r = run_task([PY, "-c", CHILD_SCRIPT], DATA)
    check_ok("subprocess", r, DATA, b"".join(b"child\t" + ln for ln in LINES))


def test_c_stdio_program():
    r = run_task([STDIO_PROGRAM, "getline"], DATA)
    check_ok("getline", r, DATA, numbered(LINES) + b"atexit handler\ndestructor\n")
    for mode in ("fgets", "getchar", "fread", "fileno", "_exit", "fclose"):
        check_ok(mode, run_task([STDIO_PROGRAM, mode], DATA), DATA, DATA)
    words = b"a bb\tccc\n\n  dddd"
    check_ok("scanf", run_task([STDIO_PROGRAM, "scanf"], words), words, b"a\nbb\nccc\ndddd\n")
    text = b"".join(b"line %d\n" % i for i in range(1000))
    check_ok("freopen", run_task([STDIO_PROGRAM, "freopen"], text), text, b"1000 lines\n")


def test_refused_programs_fail_clearly():
    cases = [
        ([STDIO_PROGRAM, "poll"], b"poll() on standard input"),
        ([STDIO_PROGRAM, "select"], b"select() on standard input"),
        ([STDIO_PROGRAM, "system-out"], b"reached standard output around the shim"),
        ([STDIO_PROGRAM, "fork-write"], b"reached standard output around the shim"),
        ([STDIO_PROGRAM, "dup"], b"reached standard output around the shim"),
        ([PY, "-c", "import os, sys\nsys.stdin.buffer.readline()\nos.execvp('cat', ['cat'])"],
         b"would replace the process that holds this task's rings"),
        ([STDIO_PROGRAM, "wide"], b"wprintf() on standard output"),
        ([PY, "-c", "import os, sys\nsys.stdout.write(sys.stdin.read())\nsys.stdout.flush()\n"
                    "os.system('echo from a child')"], b"reached standard output around the shim"),
        ([PY, "-c", "import select, sys\nselect.select([sys.stdin], [], [], 1)"],
         b"select() on standard input"),
    ]
    text = b"".join(b"line %d\n" % i for i in range(5000))
    for argv, needle in cases:
        r = run_task(argv, text, timeout=30)
        name = argv[-1][:40]
        assert r.status == FATAL_EXIT, (name, r.status, r.stderr[-2000:])
        assert r.stderr.count(b"hadoop_shm_preload:") == 1 and needle in r.stderr, (name, r.stderr)
        # -EPIPE, or never attached (refused before it used the rings): never a clean end
        assert r.end in (-EPIPE, None), (name, "the task must not see a clean end of output", r.end)
        assert r.seconds < 10, (name, r.seconds)


def test_exec_chains_hand_the_rings_to_the_final_program():
    """Wrappers that exec the real program before using stdin/stdout: the final image attaches."""
    with tempfile.TemporaryDirectory() as d:
        wrapper = os.path.join(d, "wrapper.sh")
        with open(wrapper, "w") as f:  # python3 on PATH may itself be a pyenv shim (bash, exec)
            f.write("#!/bin/bash\nexport WRAPPED=1\nexec python3 \"$@\"\n")
        script = os.path.join(d, "mapper.py")
        with open(script, "w") as f:
            f.write("#!/usr/bin/env python3\n" + BUFFER_SCRIPT)
        os.chmod(wrapper, 0o755)
        os.chmod(script, 0o755)
        cases = (("bash wrapper execs python3", [wrapper, "-c", BUFFER_SCRIPT]),
                 ("env", ["env", "A=1", PY, "-c", BUFFER_SCRIPT]),
                 ("#!/usr/bin/env python3", [script]),
                 ("C program after execvp", [STDIO_PROGRAM, "execvp"]),
                 ("C program after execlp", [STDIO_PROGRAM, "execlp"]))
        for name, argv in cases:
            r = run_task(argv, DATA)
            expected = DATA if argv[0] == STDIO_PROGRAM else numbered(LINES)
            check_ok(name, r, DATA, expected)


def test_second_process_on_the_task_fds_is_refused():
    """A child that reads the task's stdin while its stdout is elsewhere, then the parent."""
    r = run_task([STDIO_PROGRAM, "system-in"], DATA, timeout=30)
    assert r.status != 0, (r.status, r.stderr[-2000:])
    assert b"but its standard output is not the task's" in r.stderr, r.stderr


def test_killed_program_is_an_error_not_a_hang():
    script = ("import os, sys\nfor i, line in enumerate(sys.stdin.buffer):\n"
              "    sys.stdout.buffer.write(line)\n"
              "    if i == 20000:\n        sys.stdout.flush()\n        os.kill(os.getpid(), 9)\n")
    r = run_task([PY, "-c", script], DATA, timeout=30)
    assert r.status == -signal.SIGKILL, r.status
    assert r.end == -EPIPE, r.end
    assert DATA.startswith(r.output) and len(r.output) > 0, len(r.output)


def run_pipes(argv, stdin_bytes):
    """Runs argv with the shim over plain pipes (the task sent "-", or nothing)."""
    p = subprocess.run(argv, env=program_env(), input=stdin_bytes, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr


def test_dashes_mean_pipes():
    dash = b"hadoop-shm 1\t-\t-\n"
    rc, out, err = run_pipes([PY, "-c", BUFFER_SCRIPT], dash + DATA)
    assert rc == 0 and out == numbered(LINES), (rc, len(out), err)
    rc, out, err = run_pipes([STDIO_PROGRAM, "getline"], dash + DATA)
    assert rc == 0 and out == numbered(LINES) + b"atexit handler\ndestructor\n", (rc, len(out), err)
    # Children see the records too, not a handshake: the shim in them stays out of the way.
    script = "import os\nos.system('cat')\nprint('after the child', flush=True)"
    rc, out, err = run_pipes([PY, "-c", script], dash + b"a\nb\n")
    assert rc == 0 and out == b"a\nb\nafter the child\n", (rc, out, err)
    # No input at all (a reducer without records): the program just sees end of input.
    rc, out, err = run_pipes([STDIO_PROGRAM, "fgets"], b"")
    assert rc == 0 and out == b"" and err == b"", (rc, out, err)
    # Our input writer named but no handshake on stdin: refused before the program starts.
    rc, out, err = run_pipes([STDIO_PROGRAM, "fgets"], b"plain records\n")
    assert rc == FATAL_EXIT and b"handshake" in err and out == b"", (rc, out, err)
    # A job without -io shm: the shim stays out of the way, records flow over the pipes.
    env = {k: v for k, v in program_env().items() if k != "stream_map_input_writer_class"}
    p = subprocess.run([STDIO_PROGRAM, "fgets"], env=env, input=b"plain records\n",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0 and p.stdout == b"plain records\n", (p.returncode, p.stdout, p.stderr)


def bench():
    """The echo script over the shim and over plain pipes, PYTHONUNBUFFERED=1 (a write per line)."""
    data = b"".join(b"record %07d\tsome value\n" % i for i in range(2_000_000))  # ~52 MB
    env = {"PYTHONUNBUFFERED": "1"}
    for attempt in range(2):
        shim = run_task([PY, "-c", ECHO_SCRIPT], data, env, timeout=600)
        assert shim.output == data and shim.status == 0
        started = time.monotonic()
        env_pipes = {k: v for k, v in program_env(env).items() if k != "LD_PRELOAD"}
        p = subprocess.run([PY, "-c", ECHO_SCRIPT], input=data, stdout=subprocess.PIPE,
                           env=env_pipes, timeout=600)
        pipes = time.monotonic() - started
        assert p.stdout == data
        print("run %d: %.1f MB, shim %.2f s, pipes %.2f s, pipes/shim time %.2fx"
              % (attempt + 1, len(data) / 1e6, shim.seconds, pipes, pipes / shim.seconds))


def test_api_program_under_the_shim_is_not_wrapped_twice():
    """The Python package with the shim preloaded too: the shim stands aside."""
    script = ("import hadoop_shm\nout = hadoop_shm.writer()\n"
              "for line in hadoop_shm.lines():\n    out.write(line)\n")
    pkg = os.environ.get("HADOOP_SHM_PYTHONPATH")
    if pkg is None:
        return
    r = run_task([PY, "-c", script], DATA, {"PYTHONPATH": pkg, "HADOOP_SHM_LIB": LIB})
    check_ok("hadoop_shm under the shim", r, DATA, DATA)


def main():
    if "--bench" in sys.argv:
        bench()
        return
    tests = [test_python_scripts, test_c_stdio_program, test_refused_programs_fail_clearly,
             test_exec_chains_hand_the_rings_to_the_final_program,
             test_second_process_on_the_task_fds_is_refused,
             test_api_program_under_the_shim_is_not_wrapped_twice,
             test_killed_program_is_an_error_not_a_hang, test_dashes_mean_pipes]
    for t in tests:
        started = time.monotonic()
        t()
        print("%s passed (%.1f s)" % (t.__name__, time.monotonic() - started))
    print("%d passed, 0 failed" % len(tests))


if __name__ == "__main__":
    main()
