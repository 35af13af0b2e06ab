#!/usr/bin/env bash
# The command line on every suite and golden of the regression corpus: each is refused with
# exit status 2 (a suite) or a clear message (a golden), the first problem listed (after the
# command's one-line header) names the file and the position, stderr stays small, and no process needs more than the limits below
# (ulimit: a runaway is killed instead of taking the machine down). The inputs once made
# `fprev-golden list` allocate without end or print megabytes of errors. A regression named
# slow-* is a valid input that only once stopped a fuzzing campaign by its time on a busy machine
# (the per-input limit is CPU time now): the command line accepts it within the same limits.
# usage: cli_refusals.sh <fprev-golden> <regressions directory>
set -uo pipefail
FG=$1 CORPUS=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
ok() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }

# 4 GB of address space (the CLI maps the CUDA libraries where they are installed) and 20 s of CPU.
run_limited() { (ulimit -v 4000000 -t 20; "$@") >"$WORK/out" 2>"$WORK/err"; }

# slow-*: accepted within the limits (exit 0).
accepted() {  # name, status
  if [ "$2" -eq 0 ]; then ok "$1: accepted within the limits"; else fail "$1: expected exit 0, got $2: $(head -c 300 "$WORK/err")"; fi
}

for suite in "$CORPUS"/suite/*.yaml; do
  name=$(basename "$suite")
  run_limited "$FG" list --suites "$suite"
  status=$?
  if [[ "$name" == slow-* ]]; then accepted "$name" "$status"; continue; fi
  first=$(sed -n 2p "$WORK/err")  # line 1: "fprev-golden list: error: the suites are invalid (...)"
  size=$(wc -c <"$WORK/err")
  if [ "$status" -ne 2 ]; then
    fail "$name: expected exit 2, got $status: $(head -c 300 "$WORK/err")"
  elif ! [[ "$first" =~ ^"$suite":[0-9]+:[0-9]+:\ error:\  ]]; then
    fail "$name: the first problem is not '<file>:<line>:<col>: error: ...': $first"
  elif [ "$size" -gt 4096 ]; then
    fail "$name: $size bytes on stderr"
  else
    ok "$name: $first"
  fi
done

for golden in "$CORPUS"/golden/*.golden; do
  name=$(basename "$golden")
  run_limited "$FG" show "$golden" --format summary
  status=$?
  if [[ "$name" == slow-* ]]; then accepted "$name" "$status"; continue; fi
  size=$(wc -c <"$WORK/err")
  if [ "$status" -eq 0 ] || [ "$status" -gt 2 ]; then
    fail "$name: expected a refusal (exit 1 or 2), got $status"
  elif ! grep -qF "$golden:" "$WORK/err"; then
    fail "$name: the error does not name the file and line: $(head -c 300 "$WORK/err")"
  elif [ "$size" -gt 4096 ]; then
    fail "$name: $size bytes on stderr"
  else
    ok "$name: $(head -1 "$WORK/err")"
  fi
done

if [ "$failures" -gt 0 ]; then
  echo "$failures failures"
  exit 1
fi
