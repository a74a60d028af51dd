#!/usr/bin/env python3
"""Streaming WordCount mapper written the naive way: one print() per word.

With PYTHONUNBUFFERED=1 (common in container images) every record is one write() system call,
the case where the transport's cost shows (ShmStreaming, seed 000 §III). Text mode: for ASCII input
its output equals wordcount_mapper.py's.
"""
import sys

for line in sys.stdin:
    for word in line.split():
        print(f"{word}\t1")
