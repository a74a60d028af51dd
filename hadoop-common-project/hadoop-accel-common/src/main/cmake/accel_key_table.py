#!/usr/bin/env python3
"""Writes a C++ header with the default and <range> of every numeric key under a prefix,
read from accel-default.xml, so that native option parsers bound and default their options
exactly as the Java getters do (one declaration, no copy to drift).

usage: accel_key_table.py ACCEL_DEFAULT_XML PREFIX OUTPUT_HEADER
e.g.   accel_key_table.py .../accel-default.xml hadoop.accel.jbs. jbs_key_table.h
"""

import re
import sys
import xml.etree.ElementTree as ET

SUFFIXES = {
    "k": 1 << 10,
    "m": 1 << 20,
    "g": 1 << 30,
    "t": 1 << 40,
    "p": 1 << 50,
    "e": 1 << 60,
}


def number(text, key):
    """A decimal with an optional binary suffix, as Hadoop's TraditionalBinaryPrefix reads it."""
    m = re.fullmatch(r"(\d+)([kmgtpe]?)", text.strip().lower())
    if not m:
        sys.exit(f"accel_key_table: {key}: '{text}' is not a non-negative number")
    return int(m.group(1)) * SUFFIXES.get(m.group(2), 1)


def parse_range(text, key):
    m = re.fullmatch(r"\s*(\S+)\s*\.\.\s*(\S+?)(?:\s+step\s+(\S+))?\s*", text)
    if not m:
        sys.exit(f"accel_key_table: {key}: range '{text}' is not MIN..MAX [step N]")
    lo, hi = number(m.group(1), key), number(m.group(2), key)
    step = number(m.group(3), key) if m.group(3) else 1
    if lo > hi or step < 1:
        sys.exit(f"accel_key_table: {key}: range '{text}' is empty")
    return lo, hi, step


def constant_name(key, prefix):
    words = re.split(r"[.\-]", key[len("hadoop.accel.") :])
    return "k" + "".join(w[:1].upper() + w[1:] for w in words if w)


def main(xml_path, prefix, out_path):
    rows = []
    for prop in ET.parse(xml_path).getroot().iter("property"):
        key = prop.findtext("name", "").strip()
        range_text = prop.findtext("range")
        if not key.startswith(prefix) or range_text is None:
            continue
        lo, hi, step = parse_range(range_text, key)
        default = number(prop.findtext("value", ""), key)
        if not (lo <= default <= hi and (default - lo) % step == 0):
            sys.exit(f"accel_key_table: {key}: default {default} is outside its range")
        rows.append((constant_name(key, prefix), key, default, lo, hi, step))
    if not rows:
        sys.exit(f"accel_key_table: no key with a <range> under {prefix} in {xml_path}")
    guard = re.sub(r"\W", "_", out_path.rsplit("/", 1)[-1]).upper()
    lines = [
        f"// Generated from accel-default.xml by accel_key_table.py (keys {prefix}*): the",
        "// default and legal range of every numeric key. Do not edit; edit accel-default.xml.",
        f"#ifndef HADOOP_ACCEL_{guard}",
        f"#define HADOOP_ACCEL_{guard}",
        "",
        '#include "hadoop_accel/key_bounds.h"',
        "",
        "namespace hadoop_accel::keys {",
        "",
    ]
    for name, key, default, lo, hi, step in rows:
        lines.append(
            f'inline constexpr KeyBounds {name}{{"{key}", {default}u, {lo}u, {hi}u, '
            f"{step}u}};"
        )
    lines += ["", "}  // namespace hadoop_accel::keys", "", "#endif", ""]
    text = "\n".join(lines)
    try:
        with open(out_path) as f:
            if f.read() == text:
                return  # unchanged: keep the timestamp, no rebuild
    except OSError:
        pass
    with open(out_path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
