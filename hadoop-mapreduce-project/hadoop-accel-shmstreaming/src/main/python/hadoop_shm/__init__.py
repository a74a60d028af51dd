"""ShmStreaming for Python streaming programs: this task's input and output through the
shared-memory rings instead of stdin/stdout. A script changes two lines:

    import hadoop_shm
    out = hadoop_shm.writer()                 # instead of sys.stdout
    for line in hadoop_shm.lines():           # instead of sys.stdin.buffer
        out.write(line)

Lines are bytes and keep their b"\\n" (the last one may lack it), as sys.stdin.buffer gives
them. Output is flushed and ended when the script exits (or by out.close()). The ring work is
done by libhadoop_shm through ctypes, in bulk (256 KiB per call), so the per-call cost of
ctypes is spread over thousands of lines.
"""
import atexit
import ctypes
import os

__all__ = ["lines", "writer"]

_READ_BYTES = 256 * 1024


def _load():
    candidates = []
    if os.environ.get("HADOOP_SHM_LIB"):
        candidates.append(os.environ["HADOOP_SHM_LIB"])
    candidates.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libhadoop_shm.so"))
    # In the tarball the package sits in share/hadoop/tools/shmstreaming/python.
    here = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(here, *[".."] * 6, "lib", "native", "libhadoop_shm.so"))
    for home in ("HADOOP_HOME", "HADOOP_COMMON_HOME"):  # containers get HADOOP_COMMON_HOME
        if os.environ.get(home):
            candidates.append(os.path.join(os.environ[home], "lib", "native", "libhadoop_shm.so"))
    candidates.append("libhadoop_shm.so")
    errors = []
    for path in candidates:
        try:
            lib = ctypes.CDLL(path, use_errno=True)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        lib.hshm_stream_open.restype = ctypes.c_void_p
        lib.hshm_stream_open.argtypes = []
        lib.hshm_stream_read.restype = ctypes.c_ssize_t
        lib.hshm_stream_read.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.hshm_stream_write.restype = ctypes.c_ssize_t
        lib.hshm_stream_write.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.hshm_stream_flush.argtypes = [ctypes.c_void_p]
        lib.hshm_stream_close.argtypes = [ctypes.c_void_p]
        return lib
    raise OSError("hadoop_shm: cannot load libhadoop_shm.so (set HADOOP_SHM_LIB or HADOOP_HOME): "
                  + "; ".join(errors))


_lib = None
_stream = None


def _open():
    global _lib, _stream
    if _stream is None:
        _lib = _load()
        s = _lib.hshm_stream_open()
        if not s:
            raise OSError(ctypes.get_errno() or 2, "hadoop_shm: cannot open this task's rings "
                          "(is the job run with -io shm?)")
        _stream = s
        atexit.register(_close)
    return _stream


def _close():
    global _stream
    if _stream is not None:
        if _writer is not None:
            _writer._drain()  # while the stream is still open
        s, _stream = _stream, None
        rc = _lib.hshm_stream_close(s)
        if rc != 0:
            raise OSError(-rc, "hadoop_shm: closing the output failed")


def _chunks():
    s = _open()
    buf = ctypes.create_string_buffer(_READ_BYTES)
    while True:
        n = _lib.hshm_stream_read(s, buf, _READ_BYTES)
        if n < 0:
            raise OSError(-n, "hadoop_shm: reading input failed")
        if n == 0:
            return
        yield buf.raw[:n]


def lines():
    """The task's input lines as bytes, each with its b"\\n"."""
    rest = b""
    for chunk in _chunks():
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        for p in parts:
            yield p + b"\n"
    if rest:
        yield rest


class _Writer:
    """File-like output: buffered in Python, handed to the ring 256 KiB at a time."""

    def __init__(self):
        self._parts = []
        self._size = 0

    def write(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self._parts.append(data)
        self._size += len(data)
        if self._size >= _READ_BYTES:
            self._drain()
        return len(data)

    def _drain(self):
        if self._parts:
            data = b"".join(self._parts)
            self._parts, self._size = [], 0
            n = _lib.hshm_stream_write(_open(), data, len(data))
            if n < 0:
                raise OSError(-n, "hadoop_shm: writing output failed")

    def flush(self):
        self._drain()
        _lib.hshm_stream_flush(_open())

    def close(self):
        _close()


_writer = None


def writer():
    """The task's output (one per process)."""
    global _writer
    _open()
    if _writer is None:
        _writer = _Writer()
    return _writer
