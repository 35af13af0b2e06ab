#!/usr/bin/env bash
# The shipped goldens are current: `update` of the portable suites (reference, tensor-core-sim:
# platform `any`, every host runs them) into a scratch copy of the project changes no byte. A
# golden behind the current format (a line today's update writes, missing) would be rewritten
# here, and a reader of `git diff` would see a format change as if the orders had changed.
# (tests/unit/golden/shipped_goldens_test.cpp checks every shipped golden by reading it.)
# usage: shipped_goldens_e2e.sh FPREV_GOLDEN ROOT
set -uo pipefail
FG=$1 ROOT=$2
source "$ROOT/tests/e2e/e2e_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/suites" "$work/golden/any"
for suite in reference tensor-core-sim; do
  cp "$ROOT/suites/$suite.yaml" "$work/suites/"
  cp -r "$ROOT/golden/any/$suite" "$work/golden/any/"
done
cp -r "$work/golden" "$work/golden.before"
# Every case but reference's two float16 sums of 3000 summands (half a minute of Alg. 5 probes,
# no line the other cases do not have): the globs leave out exactly those (n3000).
(cd "$work" && "$FG" update --suites suites --golden golden --case 'dot-*' --case 'sum-float64-*' \
  --case 'sum-float32-*-n[!3]*' --case 'sum-float32-fused-*' --case 'gemm-*') >"$work/update.txt" 2>&1
expect_status 0 $? "update of the portable suites"
expect_in "unchanged, " "$work/update.txt" "update found the goldens unchanged"
expect_not_in " changed, " "$work/update.txt" "update changed none"
expect_not_in " created, " "$work/update.txt" "update created none"
expect_not_in " repaired, " "$work/update.txt" "update repaired none"
diff -r "$work/golden.before" "$work/golden" >"$work/diff.txt" 2>&1
expect_status 0 $? "no shipped golden of reference or tensor-core-sim changed by a byte"
[ -s "$work/diff.txt" ] && head -20 "$work/diff.txt"
finish shipped-goldens
