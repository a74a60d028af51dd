#!/usr/bin/env python3
"""Streaming WordCount mapper: "word\\t1" for every word of stdin.

A word is a maximal run of bytes other than space, \\t, \\n, \\v, \\f, \\r (bytes.split()),
the same rule as the Java and C versions. Works on bytes: any encoding passes through.
"""
import sys


def main():
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        words = line.split()
        if words:
            out.write(b"\t1\n".join(words) + b"\t1\n")
    out.flush()


if __name__ == "__main__":
    main()
