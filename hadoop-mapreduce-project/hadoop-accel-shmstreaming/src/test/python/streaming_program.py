"""Streaming programs for the job tests, each runnable over pipes or over ShmStreaming, so the
two transports can be compared on the same logic:

    streaming_program.py pipes|shm PROGRAM [ARG]

PROGRAM: echo (input to output unchanged), wc-map (word TAB 1 per word), sum-reduce (sums the
counts of each key of sorted input), grep-map REGEX (match TAB 1 per match), index-map (word TAB
the line's first field: an inverted index), join-reduce (a key's values, sorted, joined by
commas), crash-after N (passes N lines, then kills itself), exit-early N (passes N lines, then
exits 0 without closing its output), chatty (echo, plus a line on stdout every 1000 records)."""
import os
import re
import signal
import sys

mode, program = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else None
if mode == "shm":
    import hadoop_shm
    out = hadoop_shm.writer()
    lines = hadoop_shm.lines()
else:
    out = sys.stdout.buffer
    lines = sys.stdin.buffer


def key_values():
    for line in lines:
        line = line.rstrip(b"\n")
        k, _, v = line.partition(b"\t")
        yield k, v


def grouped():
    current, values = None, []
    for k, v in key_values():
        if k != current and values:
            yield current, values
            values = []
        current = k
        values.append(v)
    if values:
        yield current, values


if program == "echo":
    for line in lines:
        out.write(line)
elif program == "wc-map":
    for line in lines:
        for w in line.split():
            out.write(w + b"\t1\n")
elif program == "sum-reduce":
    for k, vs in grouped():
        out.write(k + b"\t%d\n" % sum(int(v) for v in vs))
elif program == "grep-map":
    pattern = re.compile(arg.encode())
    for line in lines:
        for m in pattern.finditer(line):
            out.write(m.group(0) + b"\t1\n")
elif program == "index-map":
    for line in lines:
        fields = line.split()
        for w in set(fields[1:]):
            out.write(w + b"\t" + fields[0] + b"\n")
elif program == "join-reduce":
    for k, vs in grouped():
        out.write(k + b"\t" + b",".join(sorted(set(vs))) + b"\n")
elif program in ("crash-after", "exit-early"):
    for i, line in enumerate(lines):
        if i == int(arg):
            if program == "crash-after":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(0)
        out.write(line)
elif program == "chatty":
    for i, line in enumerate(lines):
        out.write(line)
        if i % 1000 == 0:
            os.write(1, b"debug: %d lines\n" % i)
else:
    sys.exit("unknown program " + program)
