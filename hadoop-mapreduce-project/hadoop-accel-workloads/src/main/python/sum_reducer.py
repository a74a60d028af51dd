"""The sum reducer shared by the WordCount and Grep reducers (and usable as combiner).

Reads "key\\tcount" lines sorted by key and writes "key\\tsum" once per run of equal keys.
The key is everything before the first TAB; a line without TAB counts as one occurrence of
the whole line; empty lines are ignored; a count that is not a non-negative decimal integer
is an error (exit status 1).
"""
import sys


def reduce_stream(inp, out, name):
    key = None
    total = 0
    for lineno, line in enumerate(inp, 1):
        line = line.rstrip(b"\n")
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            continue
        k, tab, v = line.partition(b"\t")
        if tab:
            if not v.isdigit():
                sys.stderr.write("%s: line %d: bad count %r\n" % (name, lineno, v))
                return 1
            count = int(v)
        else:
            count = 1
        if k == key:
            total += count
            continue
        if key is not None:
            out.write(b"%s\t%d\n" % (key, total))
        key = k
        total = count
    if key is not None:
        out.write(b"%s\t%d\n" % (key, total))
    out.flush()
    return 0


def main(name):
    sys.exit(reduce_stream(sys.stdin.buffer, sys.stdout.buffer, name))
