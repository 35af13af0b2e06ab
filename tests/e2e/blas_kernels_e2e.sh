#!/usr/bin/env bash
# Kernel families end to end, on whatever x86-64 CPU runs it:
#   1. several families forced in ONE run (each in its own link-map namespace) give exactly the
#      trees OpenBLAS gives when forced by its own OPENBLAS_CORETYPE in separate processes, and
#      the families' trees differ;
#   2. a simulated host without AVX-512 (FPREV_BLAS_CPUINFO) skips exactly the SkylakeX instances
#      of the shipped suite, naming the missing features, and runs every other case; a simulated
#      AMD EPYC runs the same cases as this machine (the keys do not depend on the vendor);
#   3. an unloadable library named with FPREV_BLAS_LIBRARY fails `check` and the CTest test,
#      naming the file and why; nothing is reported as passed or skipped;
#   4. sgemm 512^3 reveals within its budget of target calls per part (docs/benchmarks.md), and
#      `check` of its unchanged golden (the gate's path) in 11: the counts do not depend on the
#      machine, so a change that makes more calls fails here.
# usage: blas_kernels_e2e.sh <fprev-golden> <source root> <build dir> <ctest>
set -uo pipefail
unset CI  # run as on a developer's machine: update refuses under CI on purpose
FG=$1 ROOT=$2 BUILD=$3 CTEST=$4
unset CI FPREV_STRICT FPREV_BLAS_LIBRARY FPREV_BLAS_KERNEL FPREV_BLAS_CPUINFO OPENBLAS_CORETYPE
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
DATA=$ROOT/backends/blas/tests/data
failures=0
ok() { echo "ok   - $1"; }
bad() { echo "FAIL - $1"; failures=$((failures+1)); }
has_flag() { grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -qx "$1"; }

# The families this CPU can run, of the three the shipped suite uses, as the tool itself decides
# (a VM may hide a flag a family needs, e.g. abm, although the CPU has AVX2).
runnable=$("$FG" env 2>/dev/null | sed -n 's/^ *kernel_families_runnable: //p')
can_run() { tr -d ' ' <<<"$runnable" | tr ',' '\n' | grep -qx "$1"; }
families=()
for family in Sandybridge Haswell SkylakeX; do can_run "$family" && families+=("$family"); done
[ ${#families[@]} -ge 2 ] || { echo "SKIP: this CPU runs fewer than two kernel families"; exit 77; }

# ---- 1. forced in one run == forced by OpenBLAS itself in separate processes ----------------
cases='cases:
  - {op: gemm, dtype: float32, m: 64, n: 8, k: 1001}
  - {op: gemm, dtype: float64, trans: TN, m: 64, n: 64, k: 257}
  - {op: dot, dtype: float64, n: 1000}
  - {op: gemv, dtype: float32, trans: T, m: 1009, n: 16}'
kernels=$(IFS=,; echo "${families[*]}" | sed 's/,/, /g')
printf 'suite: forced\nbackends:\n  - {name: ob, use: blas, kernel: [%s]}\n%s\n' "$kernels" "$cases" \
  >"$work/forced.yaml"
printf 'suite: forced\nbackends:\n  - {name: ob, use: blas}\n%s\n' "$cases" >"$work/own.yaml"
"$FG" update --suites "$work/forced.yaml" --golden "$work/one-run" >"$work/log" 2>&1 ||
  { bad "update with ${families[*]} in one run"; cat "$work/log"; }
tree_of() { sed -n '/^leaves:/,$p' "$1"; }  # the tree, without the metadata lines
for family in "${families[@]}"; do
  key=$(echo "$family" | tr 'A-Z' 'a-z')-t1
  OPENBLAS_CORETYPE=$family "$FG" update --suites "$work/own.yaml" --golden "$work/own-$family" \
    >"$work/log" 2>&1 || { bad "OPENBLAS_CORETYPE=$family update"; cat "$work/log"; }
  # OpenBLAS's own choice is keyed by the family it reports, so the key is the same.
  [ -d "$work/own-$family/$key" ] && ok "OPENBLAS_CORETYPE=$family is keyed $key" ||
    bad "OPENBLAS_CORETYPE=$family: no goldens under $key: $(ls "$work/own-$family")"
  same=0 differ=0
  for own in "$work/own-$family/$key/forced/ob/"*.golden; do
    forced="$work/one-run/$key/forced/ob-$(echo "$family" | tr 'A-Z' 'a-z')/$(basename "$own")"
    if cmp -s <(tree_of "$own") <(tree_of "$forced"); then same=$((same+1)); else differ=$((differ+1)); fi
  done
  [ "$same" -eq 4 ] && [ "$differ" -eq 0 ] && ok "$family forced in one run = forced by OpenBLAS alone (4 trees)" ||
    bad "$family: $same trees equal, $differ differ"
done
first=$(echo "${families[0]}" | tr 'A-Z' 'a-z') second=$(echo "${families[1]}" | tr 'A-Z' 'a-z')
g=gemm-float32-m64n8k1001.golden
cmp -s <(tree_of "$work/one-run/$first-t1/forced/ob-$first/$g") \
       <(tree_of "$work/one-run/$second-t1/forced/ob-$second/$g") &&
  bad "$first and $second gave the same sgemm tree" || ok "$first and $second give different sgemm trees"

# ---- 2. simulated hosts ---------------------------------------------------------------------
# A simulated host is limited to this machine's features: it shows what it should only where this
# machine runs Haswell.
if can_run Haswell; then
cd "$ROOT"
# The summary line, wherever it is: a check longer than the progress interval (a loaded machine)
# may print its last progress line on stderr after it.
counts() { sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/p' "$1" | tail -n1; }
AVX2=$DATA/cpuinfo-amd-epyc-zen3-avx2.txt
# (Every case skips there: --allow-nothing, or the check would fail for comparing nothing.)
FPREV_BLAS_CPUINFO=$AVX2 "$FG" check --no-pending --allow-nothing --suite blas-cpu --backend '*skylakex' >"$work/skx" 2>&1
read -r _ _ skylakex < <(counts "$work/skx")
FPREV_BLAS_CPUINFO=$AVX2 "$FG" check --no-pending --suite blas-cpu --exclude-label long >"$work/avx2" 2>&1
status=$?
read -r passed failed skipped < <(counts "$work/avx2")
named=$(grep -c "^SKIPPED reproducibility/blas-cpu/openblas[-a-z0-9]*-skylakex/.*this CPU cannot run the SkylakeX kernels: it lacks avx512f" "$work/avx2")
[ "$status" -eq 0 ] && ok "an AVX2-only host passes the gate" || bad "AVX2-only host: exit $status"
[ "${skylakex:-0}" -gt 0 ] && [ "$skipped" = "$skylakex" ] && [ "$named" = "$skylakex" ] &&
  ok "exactly the $skylakex SkylakeX cases skip, naming avx512f" ||
  bad "skipped ${skipped:-?}, $named naming avx512f, for ${skylakex:-?} SkylakeX cases"
[ "$failed" = 0 ] && [ "${passed:-0}" -gt 0 ] && ok "every other case ran: $passed passed" ||
  { bad "summary"; tail -n1 "$work/avx2"; }
if has_flag avx512f; then
  FPREV_BLAS_CPUINFO=$DATA/cpuinfo-amd-epyc-zen4.txt "$FG" check --no-pending --suite blas-cpu --exclude-label long >"$work/epyc" 2>&1
  total=$((passed + skipped))
  grep -qF "$total passed, 0 failed, 0 skipped" "$work/epyc" &&
    ok "a simulated AMD EPYC Zen 4 runs all $total cases against the same goldens" ||
    { bad "simulated AMD EPYC"; tail -n1 "$work/epyc"; }
fi
else
  echo "skip - simulated hosts: this machine cannot run the Haswell kernels (runnable: $runnable)"
fi
cd "$ROOT"

# ---- 3. an unloadable library is an error, never a skip -------------------------------------
FPREV_BLAS_LIBRARY=/nonexistent/libopenblas.so.0 "$FG" check --no-pending --suite blas-cpu --exclude-label long >"$work/nope" 2>&1
status=$?
[ "$status" -ne 0 ] && ok "check fails (exit $status)" || bad "check passed with an unloadable library"
grep -qF "BLAS library '/nonexistent/libopenblas.so.0' not found: no such file" "$work/nope" &&
  ok "the message names the file and why" || bad "no message naming the file"
# Nothing passes; the only skips are kernel families this CPU cannot execute (decided before the
# library is loaded), each naming the missing features.
read -r passed failed skipped < <(counts "$work/nope")
cpu_skips=$(grep -c "^SKIPPED .*this CPU cannot run the .* kernels: it lacks" "$work/nope")
[ "$passed" = 0 ] && [ "${failed:-0}" -gt 0 ] && [ "$skipped" = "$cpu_skips" ] &&
  ok "nothing passed; $failed failed; $skipped skipped, each for a family this CPU cannot run" ||
  { bad "summary ($cpu_skips skips name a CPU reason)"; tail -n1 "$work/nope"; }
test_name=reproducibility/blas-cpu/openblas-$first/dot-float64-n33
FPREV_BLAS_LIBRARY=/nonexistent/libopenblas.so.0 "$CTEST" --test-dir "$BUILD" -R "^$test_name\$" \
  >"$work/ctest" 2>&1
status=$?
if grep -q "No tests were found" "$work/ctest"; then
  bad "no CTest test $test_name"
elif [ "$status" -ne 0 ] && grep -q "(Failed)" "$work/ctest"; then
  ok "the CTest test fails"
else
  bad "the CTest test did not fail (exit $status)"; tail -n5 "$work/ctest"
fi

# ---- 4. sgemm 512^3 within its budget of target calls ------------------------------------------
# reveal + verification: 2 determinism calls (the first value input), 3 more value inputs, the
# pair grid's 2 calls where the map has one class (every l(i,j) at the elements: FPRev's 2 waves
# on rows and columns, 4 calls, otherwise), 8 per-element check rounds and the final comparison; the
# simulation rides on the value inputs; and the fingerprint's "uniformity" input on every element
# (a value input of the partition: the fingerprint reads its outputs). Fingerprint: the 1248
# inputs of one class (5 fixed sets and the facts' experiments) in packed calls, every column with
# right factors of its own and inputs turned around in the free columns: 2 calls of 512 rows and
# 512 columns (docs/fingerprint.md, "Packed calls"). Haswell kernels: two classes (the
# checkerboard), one of 256 rows, whose view rows the other class's share: 2496 inputs in 7.
calls_of() {  # kernel -> "reveal verification fingerprint"
  "$FG" reveal --backend blas --kernel "$1" --op gemm --m 512 --n 512 --k 512 --json --no-alignment-check \
    2>/dev/null | python3 -c 'import json,sys; c=json.load(sys.stdin)["target_calls"]; print(c["reveal"], c["verification"], c["fingerprint"])'
}
for budget in "SkylakeX 16 1 2" "Prescott 16 1 2" "Haswell 18 1 7"; do
  read -r family reveal verification fingerprint <<<"$budget"
  can_run "$family" || { echo "skip - sgemm 512^3 call budget with $family kernels: this CPU cannot run them"; continue; }
  read -r r v f < <(calls_of "$family")
  [ -n "$r" ] && [ "$r" -le "$reveal" ] && [ "$v" -le "$verification" ] && [ "$f" -le "$fingerprint" ] &&
    ok "sgemm 512^3 ($family): $r reveal + $v verification + $f fingerprint calls (budget $reveal + $verification + $fingerprint)" ||
    bad "sgemm 512^3 ($family): '$r' reveal + '$v' verification + '$f' fingerprint calls, over the budget $reveal + $verification + $fingerprint"
done

# The gate's path: `check` of an unchanged sgemm 512^3 golden confirms the map (the simulation's
# random inputs, the proof on the rows and on the columns, four calls of edge pairs, the same
# inputs again: 7 + 1) and measures the fingerprint (2: the confirmation shows every element
# reproducing its tree's sums, so inputs move to any row and column; and the uniformity call):
# 11 calls. The placement proof is left out here as above.
mkdir -p "$work/gate512"
cat >"$work/gate512/suite.yaml" <<'YAML'
suite: gate512
backends:
  - name: openblas
    use: blas
    library: openblas
    kernel: SkylakeX
cases:
  - id: sgemm512
    op: gemm
    dtype: float32
    m: 512
    n: 512
    k: 512
YAML
if can_run SkylakeX; then
  "$FG" update --suites "$work/gate512/suite.yaml" --golden "$work/gate512/golden" --no-alignment-check >/dev/null 2>&1
  read -r r v f < <("$FG" check --suites "$work/gate512/suite.yaml" --golden "$work/gate512/golden" --no-alignment-check \
    --json 2>/dev/null | python3 -c 'import json,sys; case=json.load(sys.stdin)["cases"][0]; c=case["target_calls"]; assert case["status"] == "passed" and case["stats"]["confirmed"]; print(c["reveal"], c["verification"], c["fingerprint"])')
  [ -n "$r" ] && [ "$((r + v + f))" -le 11 ] && [ "$f" -le 3 ] &&
    ok "check of an unchanged sgemm 512^3 golden (SkylakeX): $r confirmation + $v final comparison + $f fingerprint calls (budget 11 in all)" ||
    bad "check of an unchanged sgemm 512^3 golden (SkylakeX): '$r' + '$v' + '$f' calls, over the budget of 11 in all (or not confirmed)"
else
  echo "skip - sgemm 512^3 gate call budget: this CPU cannot run the SkylakeX kernels"
fi

# ---- 5. a case whose library runs 2 threads keeps 2 cores busy -----------------------------------
# Its CTest test takes 2 processors (ctest -j counts them), and `check --jobs` runs it alone: two
# 2-thread OpenBLAS cases side by side on 2 cores waited for their threads a time slice at a time
# (OpenBLAS 0.3.29, Debian 13: a ddot case 150 s instead of 0.3 s).
"$FG" list --suites "$ROOT/suites" --suite blas-cpu --backend openblas-t2-haswell --case dot-float64-n16384 \
  --cmake-tests fprev-golden >"$work/t2.cmake" 2>&1
grep -q "PROCESSORS 2 " "$work/t2.cmake" && ok "a 2-thread BLAS case's CTest test takes 2 processors" ||
  bad "a 2-thread BLAS case's CTest test does not say PROCESSORS 2: $(grep -o 'PROPERTIES.*' "$work/t2.cmake" | head -c 300)"
"$FG" list --suites "$ROOT/suites" --suite blas-cpu --backend openblas-haswell --case dot-float64-n16384 \
  --cmake-tests fprev-golden >"$work/t1.cmake" 2>&1
grep -q "PROCESSORS" "$work/t1.cmake" && bad "a 1-thread BLAS case's CTest test asks for processors" ||
  ok "a 1-thread BLAS case's CTest test takes one processor"
# A 1-thread case whose invariance contract runs a 2-thread variant (invariant: threads: [1, 2]).
"$FG" list --suites "$ROOT/suites" --suite invariance-cpu --backend openblas-haswell --case dot-float64-n12288 \
  --cmake-tests fprev-golden >"$work/inv.cmake" 2>&1
grep -q "PROCESSORS 2 " "$work/inv.cmake" && ok "a case whose invariance variant runs 2 threads takes 2 processors" ||
  bad "a case with a 2-thread invariance variant does not say PROCESSORS 2: $(grep -o 'PROPERTIES.*' "$work/inv.cmake" | head -c 300)"

[ "$failures" -eq 0 ]
