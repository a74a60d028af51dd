"""A/B benchmark harness for the accelerated Hadoop distribution (see ../README.md)."""
