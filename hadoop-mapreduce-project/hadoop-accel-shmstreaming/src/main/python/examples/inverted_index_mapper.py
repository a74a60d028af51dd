"""Streaming InvertedIndex mapper over ShmStreaming: "word TAB document" for every word, where
the document is the input file's name (streaming exports it as mapreduce_map_input_file)."""
import os

import hadoop_shm

doc = os.environ.get("mapreduce_map_input_file") or os.environ.get("map_input_file") or "-"
doc = (doc.rstrip("/").rsplit("/", 1)[-1] or "-").encode()
suffix = b"\t" + doc + b"\n"
out = hadoop_shm.writer()            # was: out = sys.stdout.buffer
for line in hadoop_shm.lines():      # was: for line in sys.stdin.buffer:
    words = line.split()
    if words:
        out.write(suffix.join(words) + suffix)
