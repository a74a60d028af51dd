"""Streaming WordCount reducer (and combiner) over ShmStreaming: sums "word TAB count" lines,
which streaming hands over sorted by word. Two lines changed from the stdin/stdout version."""
import hadoop_shm

out = hadoop_shm.writer()            # was: out = sys.stdout.buffer
word, total = None, 0
for line in hadoop_shm.lines():      # was: for line in sys.stdin.buffer:
    key, _, count = line.rstrip(b"\n").partition(b"\t")
    if key != word:
        if word is not None:
            out.write(b"%s\t%d\n" % (word, total))
        word, total = key, 0
    total += int(count)
if word is not None:
    out.write(b"%s\t%d\n" % (word, total))
