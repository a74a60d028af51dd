#!/usr/bin/env python3
"""Streaming Grep reducer (and combiner): sums "match\\tcount" lines sorted by match."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts (source tree)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sum_reducer  # noqa: E402

if __name__ == "__main__":
    sum_reducer.main("grep_reducer.py")
