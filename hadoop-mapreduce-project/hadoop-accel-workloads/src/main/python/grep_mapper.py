#!/usr/bin/env python3
"""Streaming Grep mapper: "match\\t1" for every non-overlapping match of a regex in each line.

    grep_mapper.py [REGEX [GROUP]]

Without arguments the pattern and group come from the job configuration, which streaming
exports to the environment: mapreduce_mapper_regex and mapreduce_mapper_regexmapper__group
(from -D mapreduce.mapper.regex=... and -D mapreduce.mapper.regexmapper..group=...), as
upstream's RegexMapper reads them. Python's re on bytes; for patterns in the subset common to
Java, POSIX ERE and Python, the Java, C and Python Grep agree.
"""
import os
import re
import sys


def main(argv):
    if len(argv) > 3:
        sys.stderr.write("usage: grep_mapper.py [REGEX [GROUP]]\n")
        return 2
    pattern = argv[1] if len(argv) > 1 else os.environ.get("mapreduce_mapper_regex")
    group = argv[2] if len(argv) > 2 else os.environ.get("mapreduce_mapper_regexmapper__group")
    if pattern is None:
        sys.stderr.write("grep_mapper.py: no REGEX and no mapreduce_mapper_regex\n")
        return 2
    try:
        regex = re.compile(os.fsencode(pattern))
        group = int(group) if group else 0
        if not 0 <= group <= regex.groups:
            raise ValueError("group %d out of 0..%d" % (group, regex.groups))
    except (re.error, ValueError) as e:
        sys.stderr.write("grep_mapper.py: %s\n" % e)
        return 2
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        for m in regex.finditer(line.rstrip(b"\n")):
            g = m.group(group)
            if g is not None:
                out.write(g + b"\t1\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
