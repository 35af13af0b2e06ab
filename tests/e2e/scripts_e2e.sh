#!/usr/bin/env bash
# The distribution scripts without a distribution: scripts/in-debian's argument handling and plan
# (--print-plan: no debootstrap, no root, no network) and scripts/install-deps' profiles (--print:
# the gate's profile installs no clang and no Chromium).
# usage: scripts_e2e.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

in_debian="$source_dir/scripts/in-debian"
out=$("$in_debian" --print-plan 13 scripts/gate --suite 'blas cpu' 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "in-debian --print-plan 13 exited $rc: $out"
grep -qx "release: Debian 13 (trixie)" <<<"$out" || fail "plan does not name Debian 13 (trixie): $out"
grep -q "^root: .*/\.cache/debian-13/root$" <<<"$out" || fail "plan's root is not .cache/debian-13/root: $out"
grep -qx "mount: /proc /sys /dev /dev/pts" <<<"$out" || fail "plan does not mount /proc /sys /dev: $out"
grep -qxF "run in /src: scripts/gate --suite blas\\ cpu" <<<"$out" || fail "plan does not quote the command: $out"
out=$("$in_debian" --print-plan 12 true 2>&1) && grep -qx "release: Debian 12 (bookworm)" <<<"$out" ||
  fail "in-debian --print-plan 12: $out"
out=$("$in_debian" 11 true 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown Debian release '11' (allowed: 12, 13)" <<<"$out" ||
  fail "in-debian 11: exit $rc, $out"
out=$("$in_debian" 13 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "no command given" <<<"$out" || fail "in-debian 13 without a command: exit $rc, $out"
out=$("$in_debian" 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "^usage: " <<<"$out" || fail "in-debian without arguments: exit $rc, $out"

if command -v apt-cache >/dev/null && command -v dpkg-query >/dev/null; then
  install="$source_dir/scripts/install-deps"
  gate=$("$install" --print gate 2>&1) || fail "install-deps --print gate: $gate"
  for p in cmake g++ libopenblas-dev python3-torch; do
    grep -qx "$p" <<<"$gate" || fail "the gate's profile lacks $p: $gate"
  done
  if grep -qE '^(clang|chromium|libgtest-dev)' <<<"$gate"; then fail "the gate's profile installs test tools: $gate"; fi
  if grep -qE -- '-[0-9]+(-dev)?$' <<<"$gate"; then fail "a version-pinned package name: $gate"; fi
  out=$("$install" --print nonsense 2>&1); rc=$?
  [ "$rc" -eq 2 ] && grep -q "unknown profile 'nonsense' (allowed: gate, test)" <<<"$out" ||
    fail "install-deps --print nonsense: exit $rc, $out"
else
  echo "install-deps: not on Debian (no apt-cache): its profiles are not checked here"
fi

# scripts/gate configures without tests and benchmarks: that configuration must generate (a target
# once linked Threads::Threads, which only the tests' directories had found, and the gate broke).
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
out=$(cmake -S "$source_dir" -B "$cfg" -DCMAKE_BUILD_TYPE=Release -DFPREV_BUILD_TESTS=OFF \
        -DFPREV_BUILD_BENCHMARKS=OFF 2>&1) || fail "the gate's configuration (tests and benchmarks off) fails: $out"
# scripts/test-all configures the same build/ after it: its own configuration, run over the gate's
# tree, must turn the tests back on (CMake keeps a cached option not given again, and a test-all
# after a gate once built and ran no unit or e2e test at all).
test_all_configure=$(awk '/^cmake -S \. -B build /{on=1} on{print; if ($0 !~ /\\$/) exit}' \
                       "$source_dir/scripts/test-all" | sed 's/>\/dev\/null//' | tr -d '\\\n')
if [ -z "$test_all_configure" ]; then
  fail "scripts/test-all has no 'cmake -S . -B build ...' line"
else
  out=$(cd "$source_dir" && eval "${test_all_configure/-B build/-B \"\$cfg\"}" 2>&1) ||
    fail "test-all's configuration over the gate's fails: $out"
  for option in FPREV_BUILD_TESTS FPREV_BUILD_BENCHMARKS FPREV_WERROR; do
    grep -qx "$option:BOOL=ON" "$cfg/CMakeCache.txt" ||
      fail "test-all's configuration over the gate's leaves $option $(grep "^$option:" "$cfg/CMakeCache.txt")"
  done
fi

[ "$failures" -eq 0 ] && echo "PASS: scripts/in-debian, scripts/install-deps, the gate's and test-all's configurations" || exit 1
