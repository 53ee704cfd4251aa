#!/usr/bin/env bash
# `nabla test` as a pytest user drives it: what a folder collects (test_*.dsl and
# *_test.dsl only: never the golden error files, the fuzz corpus or fixtures), -k, -v,
# -x, --timeout, --collect-only, duplicate test names and expect_error's failures.
# The fixtures are written to a temporary folder, so `nabla test tests` never runs them.
# Usage: test_runner_test.sh NABLA REPO_ROOT
set -u
NABLA=$1
cd "$2" || exit 2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
checks=0 failures=0

# check NAME COMMAND...: fails the test when COMMAND does.
check() {
  local name=$1
  shift
  checks=$((checks + 1))
  "$@" || { echo "FAIL $name: $*"; failures=$((failures + 1)); }
}
# run ARGS...: nabla test ARGS, stdout and stderr in $TMP/out, the status in $rc.
run() {
  "$NABLA" test "$@" >"$TMP/out" 2>&1
  rc=$?
}
has() { grep -qF -- "$1" "$TMP/out" || { echo "--- output:"; cat "$TMP/out"; return 1; }; }
lacks() { ! grep -qF -- "$1" "$TMP/out" || { echo "--- output:"; cat "$TMP/out"; return 1; }; }
last_is() { [ "$(tail -n 1 "$TMP/out")" = "$1" ] || { echo "--- output:"; cat "$TMP/out"; return 1; }; }

# ---- the repository's own tests: what a folder collects ----
run --collect-only tests
check "collect tests: status 0" [ "$rc" = 0 ]
check "collect tests: no golden error files" lacks "tests/lang/errors_"
check "collect tests: no fuzz inputs" lacks "tests/fuzz/"
check "collect tests: no fixture of a failing test" lacks "failing_tests.dsl"
check "collect tests: the hardening folder's runaway programs stay out" lacks "runaway_loop"
check "collect tests: the language's own test blocks" has "tests/lang/test_blocks/test_arithmetic.dsl::square of a number"
check "collect tests: every file is test_*.dsl or *_test.dsl" \
  bash -c "grep '::' '$TMP/out' | sed 's/::.*//' | xargs -n1 basename | sort -u | grep -v -E '^test_.+\.dsl$|^.+_test\.dsl$' | (! grep .)"
check "collect tests: the count" grep -qE '^[0-9]{3,} tests in [0-9]+ files$' "$TMP/out"

# ---- fixtures ----
mkdir -p "$TMP/suite/sub" "$TMP/suite/.hidden"
cat >"$TMP/suite/test_mixed.dsl" <<'DSL'
test "adds up" { expect(1 + 1 == 2) }
test "fails on purpose" { expect(1 == 2, "one is not two") }
test "spins forever" { while true {} }
test "runs after the spin" { expect(true) }
DSL
cat >"$TMP/suite/sub/shapes_test.dsl" <<'DSL'
import nn
test "linear shape" { expect(nn.Linear(4, 3)(randn([2, 4])).shape == (2, 3)) }
test "no error where one was expected" {
  let m = nn.Linear(4, 3)
  expect_error(fn() = m(randn([2, 4])), "shape")
  expect_error("m(randn([2, 4]))")
}
DSL
echo 'test "never collected" { expect(false) }' >"$TMP/suite/helper.dsl"
echo 'test "never collected" { expect(false) }' >"$TMP/suite/.hidden/test_hidden.dsl"
printf 'test "twice" { expect(true) }\n\ntest "twice" { expect(true) }\n' >"$TMP/dup.dsl"
echo 'test "bad code" { expect_error(3) }' >"$TMP/bad_code.dsl"

run --collect-only "$TMP/suite"
check "collect-only lists test_*.dsl and *_test.dsl, recursively, sorted" diff - <(head -n 6 "$TMP/out") <<OUT
$TMP/suite/sub/shapes_test.dsl::linear shape
$TMP/suite/sub/shapes_test.dsl::no error where one was expected
$TMP/suite/test_mixed.dsl::adds up
$TMP/suite/test_mixed.dsl::fails on purpose
$TMP/suite/test_mixed.dsl::spins forever
$TMP/suite/test_mixed.dsl::runs after the spin
OUT
check "collect-only: the count" last_is "6 tests in 2 files"

# --timeout: the spinning test fails naming the limit, the next one runs.
start=$(date +%s)
run --timeout 0.5 "$TMP/suite"
check "--timeout: status 1" [ "$rc" = 1 ]
check "--timeout: the spinning test fails with the limit" \
  has "FAIL test \"spins forever\": $TMP/suite/test_mixed.dsl:3:24: error: timed out after 0.5 s (nabla test --timeout)"
check "--timeout: the run goes on" last_is "3 passed, 3 failed"
check "--timeout: no waiting" [ $(($(date +%s) - start)) -lt 20 ]
check "expect_error: a function that raises nothing" \
  has "$TMP/suite/sub/shapes_test.dsl:5:3: error: expect_error: no error was raised (expected 'shape')"
check "expect_error: a str that raises nothing" has "$TMP/suite/sub/shapes_test.dsl:6:3: error: expect_error: no error was raised"

# -k: words of the test name, any case, with and, or, not.
run -k "ADDS or linear" "$TMP/suite"
check "-k with or" last_is "2 passed, 0 failed, 4 deselected"
run -k "not (spins or fails or error)" -v "$TMP/suite"
check "-k with not and parentheses" last_is "3 passed, 0 failed, 3 deselected"
check "-v: each test with PASS and its time" grep -qE "^PASS $TMP/suite/test_mixed.dsl::runs after the spin \([0-9]+\.[0-9]{3} s\)$" "$TMP/out"
run -k "linear and" "$TMP/suite"
check "-k: a bad pattern is a usage error" [ "$rc" = 2 ]
check "-k: the message" has "nabla: error: -k 'linear and': expected a word after 'and'"

# -x: the first failure ends the run.
run -x -k "not spins" "$TMP/suite/test_mixed.dsl" "$TMP/suite/sub/shapes_test.dsl"
check "-x: status 1" [ "$rc" = 1 ]
check "-x: says it stopped" has "stopped at the first failure (-x)"
check "-x: nothing runs after the failure" last_is "1 passed, 1 failed"
run -vx "$TMP/suite/test_mixed.dsl"
check "-vx: FAIL with the test's id" has "FAIL $TMP/suite/test_mixed.dsl::fails on purpose ("

# Duplicate names, a bad expect_error, bad options.
run "$TMP/dup.dsl"
check "duplicate test name: at the second, naming the first's line" \
  has "$TMP/dup.dsl:3:1: error: duplicate test name \"twice\": the first test so named is at line 1"
check "duplicate test name: the file fails" last_is "0 passed, 1 failed"
run --collect-only "$TMP/dup.dsl"
check "duplicate test name: collect-only reports it, status 2" [ "$rc" = 2 ]
run "$TMP/bad_code.dsl"
check "expect_error(3)" has "error: expect_error(): 'code' must be a function or a str of code, got int"
run --timeout soon "$TMP/dup.dsl"
check "--timeout needs seconds" has "nabla: error: --timeout needs a number of seconds (0: no limit), got 'soon'"
run --frobnicate "$TMP/dup.dsl"
check "an unknown option" has "nabla: error: unknown option '--frobnicate' for nabla test (see nabla --help)"
check "an unknown option: status 2" [ "$rc" = 2 ]

if [ "$failures" = 0 ]; then
  echo "test runner: $checks checks passed"
else
  echo "test runner: $failures of $checks checks failed"
  exit 1
fi
