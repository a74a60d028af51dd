#!/bin/sh
# pipeline.sh MODE MAPPER REDUCER INPUT EXPECTED [MAPPER ARGS...]
# Runs what hadoop streaming runs, without Hadoop: MAPPER < INPUT | sort | REDUCER, and with
# MODE=combine the reducer's output once more through sort | REDUCER (the reducer as combiner).
# Programs ending in .py run under $PYTHON (default python3). Compares with EXPECTED.
set -eu
mode=$1 mapper=$2 reducer=$3 input=$4 expected=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {
  case "$1" in
    *.py) prog=$1; shift; "${PYTHON:-python3}" "$prog" "$@" ;;
    *) "$@" ;;
  esac
}

# Separate steps (no pipes): every stage's exit status is checked under set -e.
run "$mapper" "$@" < "$input" > "$tmp/map"
LC_ALL=C sort "$tmp/map" > "$tmp/sorted"
run "$reducer" < "$tmp/sorted" > "$tmp/out"
if [ "$mode" = combine ]; then
  LC_ALL=C sort "$tmp/out" > "$tmp/sorted2"
  run "$reducer" < "$tmp/sorted2" > "$tmp/out"
fi
LC_ALL=C sort "$tmp/out" > "$tmp/actual"
LC_ALL=C sort "$expected" > "$tmp/expected"
diff -u "$tmp/expected" "$tmp/actual"
