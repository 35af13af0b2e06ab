# Helpers of the end-to-end scripts (sourced): each check prints "ok   - ..." or "FAIL - ..." and
# counts the failures; finish() prints the closing line and exits.
# The scripts run as on a developer's machine whatever runs them: checks that need CI set it on the
# command (CI=true ...), since update and review refuse to work under CI on purpose.
unset CI
failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
expect_status() {  # expected, actual, what
  if [ "$1" = "$2" ]; then pass "$3 (exit $2)"; else fail "$3: expected exit $1, got $2"; fi
}
expect_in() {  # needle, file, what
  if grep -qF -- "$1" "$2"; then pass "$3"; else fail "$3: '$1' not in output:"; sed 's/^/      /' "$2" | head -40; fi
}
expect_not_in() {  # needle, file, what
  if grep -qF -- "$1" "$2"; then fail "$3: '$1' in output"; else pass "$3"; fi
}
# A small project in the current directory: suites/small.yaml (reference sums and a dot product),
# an empty golden/ and a git repository, so that a check can show what update changed.
small_project() {
  mkdir -p suites golden
  cat > suites/small.yaml <<'YAML'
suite: small
description: a small project's suite
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: [sequential, pairwise]
    n: [16, 64]
  - op: dot
    order: strided_pairwise
    n: 40
YAML
  git init -q . && git config user.email e2e@example.org && git config user.name e2e
}
# A CMake project in the current directory that registers suites/ and golden/ with
# fprev_add_reproducibility_suites (needs ROOT, FG, CMAKE), configured into build/.
configure_downstream_project() {
  cat > CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(downstream NONE)
include(CTest)
include("$ROOT/cmake/FprevReproducibility.cmake")
fprev_add_reproducibility_suites(SUITES suites GOLDEN_DIR golden EXECUTABLE "$FG")
CMAKE
  "$CMAKE" -S . -B build >cmake.log 2>&1
  expect_status 0 $? "a downstream project configures"
}
finish() {  # name
  echo
  if [ "$failures" -eq 0 ]; then echo "e2e $1: all checks passed"; exit 0; fi
  echo "e2e $1: $failures check(s) failed"; exit 1
}
