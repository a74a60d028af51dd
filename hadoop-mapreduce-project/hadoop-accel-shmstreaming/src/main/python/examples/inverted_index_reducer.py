"""Streaming InvertedIndex reducer over ShmStreaming: "word TAB doc1,doc2,..." with each
document once, in byte order (lines arrive sorted by word, documents in any order)."""
import hadoop_shm

out = hadoop_shm.writer()            # was: out = sys.stdout.buffer
key, docs = None, set()
for line in hadoop_shm.lines():      # was: for line in sys.stdin.buffer:
    k, _, v = line.rstrip(b"\n").partition(b"\t")
    if k != key and key is not None:
        out.write(key + b"\t" + b",".join(sorted(docs)) + b"\n")
        docs = set()
    key = k
    docs.add(v)
if key is not None:
    out.write(key + b"\t" + b",".join(sorted(docs)) + b"\n")
