"""ShmStreaming for Python streaming programs: this task's input and output through the
shared-memory rings instead of stdin/stdout. A script changes two lines:

    import hadoop_shm
    out = hadoop_shm.writer()                 # instead of sys.stdout.buffer
    for line in hadoop_shm.lines():           # instead of sys.stdin.buffer
        out.write(line)

Lines are bytes and keep their b"\\n" (the last one may lack it), as sys.stdin.buffer gives
them. Both are Python's own buffered binary files (io.BufferedReader / io.BufferedWriter, the
classes behind sys.stdin.buffer and sys.stdout.buffer), so reading a line or writing a record
costs what it costs on stdin/stdout; only their raw layer differs: libhadoop_shm through
ctypes, 256 KiB per call. Output is flushed and ended when the script exits (or by
out.close()). Without -io shm (or outside Hadoop) the same script reads stdin and writes
stdout through the library.
"""
import atexit
import ctypes
import io
import os

__all__ = ["lines", "reader", "writer"]

_CHUNK = 256 * 1024


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
_reader = None
_writer = None


def _open():
    global _lib, _stream
    if _stream is None:
        _lib = _load()
        s = _lib.hshm_stream_open()
        if not s:
            raise OSError(ctypes.get_errno() or 2, "hadoop_shm: cannot open this task's rings "
                          "(see the line above on stderr)")
        _stream = s
        atexit.register(_close)
    return _stream


def _close():
    """Flushes the writer, then ends the output stream (at exit, or out.close())."""
    global _stream
    if _stream is not None:
        if _writer is not None and not _writer.closed:
            _writer.flush()
        s, _stream = _stream, None
        rc = _lib.hshm_stream_close(s)
        if rc != 0:
            raise OSError(-rc, "hadoop_shm: ending the output failed")


class _Raw(io.RawIOBase):
    """The unbuffered layer: one library call per buffer fill or drain."""

    def __init__(self, writable):
        super().__init__()
        self._writable = writable

    def readable(self):
        return not self._writable

    def writable(self):
        return self._writable

    def readinto(self, b):
        view = memoryview(b).cast("B")
        n = _lib.hshm_stream_read(_open(), (ctypes.c_char * len(view)).from_buffer(view), len(view))
        if n < 0:
            raise OSError(-n, "hadoop_shm: reading input failed")
        return n

    def write(self, b):
        data = bytes(b)
        n = _lib.hshm_stream_write(_open(), data, len(data))
        if n < 0:
            raise OSError(-n, "hadoop_shm: writing output failed")
        return n

    def flush(self):
        if self._writable and _stream is not None:
            _lib.hshm_stream_flush(_stream)

    def close(self):
        if self._writable and not self.closed:
            super().close()
            _close()
        else:
            super().close()


def reader():
    """The task's input as a binary file (read, readline, iteration over lines)."""
    global _reader
    _open()
    if _reader is None:
        _reader = io.BufferedReader(_Raw(False), _CHUNK)
    return _reader


def lines():
    """The task's input lines as bytes, each with its b"\\n"."""
    return iter(reader())


def writer():
    """The task's output as a binary file (write, flush, close); one per process."""
    global _writer
    _open()
    if _writer is None:
        _writer = io.BufferedWriter(_Raw(True), _CHUNK)
    return _writer
