"""Streaming WordCount mapper over ShmStreaming: "word TAB 1" for every word of the input.

The stdin/stdout version with its two lines changed (marked); it runs over pipes too, so the
same script serves jobs with and without -io shm.
"""
import hadoop_shm

out = hadoop_shm.writer()            # was: out = sys.stdout.buffer
for line in hadoop_shm.lines():      # was: for line in sys.stdin.buffer:
    words = line.split()
    if words:
        out.write(b"\t1\n".join(words) + b"\t1\n")
