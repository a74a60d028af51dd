"""Streaming Grep mapper over ShmStreaming: "match TAB 1" for every non-overlapping match of a
regex in each line; the pattern is the first argument, else the job's mapreduce.mapper.regex
(exported by streaming as mapreduce_mapper_regex). Sum with wordcount_reducer.py. Two lines
changed from the stdin/stdout version."""
import os
import re
import sys

import hadoop_shm

pattern = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("mapreduce_mapper_regex")
if not pattern:
    sys.exit("grep_mapper.py: no REGEX argument and no mapreduce.mapper.regex")
regex = re.compile(os.fsencode(pattern))
out = hadoop_shm.writer()            # was: out = sys.stdout.buffer
for line in hadoop_shm.lines():      # was: for line in sys.stdin.buffer:
    for m in regex.finditer(line.rstrip(b"\n")):
        out.write(m.group(0) + b"\t1\n")
