#!/usr/bin/env bash
# The `nabla` command's behaviour: exit statuses (0 ok, 1 runtime error or failed
# test, 2 usage or syntax error), errors on stderr, `nabla test`'s summary line, and
# the REPL reading a pipe. Usage: cli_test.sh NABLA REPO_ROOT usage|run
# "usage" needs only the command line; "run" needs the language's interpreter.
set -u
NABLA=$1
cd "$2" || exit 2
MODE=$3
failures=0

# expect NAME STATUS STDOUT STDERR_FIRST_LINE -- COMMAND...: STDOUT is the whole
# standard output (or '*' for any), STDERR_FIRST_LINE the first line of stderr.
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  local out err rc
  out=$("$@" 2>/tmp/nabla-cli-err.$$)
  rc=$?
  err=$(head -n 1 /tmp/nabla-cli-err.$$)
  rm -f /tmp/nabla-cli-err.$$
  if [ "$rc" != "$want_rc" ] || { [ "$want_out" != '*' ] && [ "$out" != "$want_out" ]; } || [ "$err" != "$want_err" ]; then
    echo "FAIL $name: $*"
    echo "  status $rc (expected $want_rc)"
    echo "  stdout: $out"
    [ "$want_out" != '*' ] && echo "  expected stdout: $want_out"
    echo "  stderr: $err"
    echo "  expected stderr: $want_err"
    failures=$((failures + 1))
  fi
}

last_line() { "$@" 2>/dev/null | tail -n 1; }

if [ "$MODE" = usage ]; then
  expect "unknown option" 2 "" "nabla: error: unknown option '-x' (see nabla --help)" -- "$NABLA" -x
  expect "-e without code" 2 "" "nabla: error: -e needs CODE (see nabla --help)" -- "$NABLA" -e
  expect "missing script" 2 "" "nabla: error: cannot open 'no/such.dsl': No such file or directory" -- "$NABLA" no/such.dsl
  expect "test without a path" 2 "" "nabla: error: \`nabla test\` needs a PATH (a .dsl file or a folder)" -- "$NABLA" test
  expect "test of a missing path" 2 "" "nabla: error: no such file or folder: 'no/such'" -- "$NABLA" test no/such
  expect "--help" 0 '*' "" -- "$NABLA" --help
  expect "--version" 0 '*' "" -- "$NABLA" --version
else
  expect "-e prints" 0 "3" "" -- "$NABLA" -e 'print(1 + 2)'
  expect "-e does not echo" 0 "" "" -- "$NABLA" -e '1 + 2'
  expect "-e syntax error" 2 "" "<-e>:1:8: error: expected ')' to close '(' at 1:6" -- "$NABLA" -e 'print(1 '
  expect "-e runtime error" 1 "" "<-e>:1:1: error: undefined name 'undefined_q'" -- "$NABLA" -e 'undefined_q'
  expect "script arguments" 0 "['a', '-b']" "" -- "$NABLA" tests/cli/args.dsl a -b
  expect "test: failures" 1 '*' "" -- "$NABLA" test tests/cli/failing_tests.dsl
  [ "$(last_line "$NABLA" test tests/cli/failing_tests.dsl)" = "1 passed, 1 failed" ] ||
    { echo "FAIL nabla test: summary line of tests/cli/failing_tests.dsl"; failures=$((failures + 1)); }
  "$NABLA" test tests/cli/failing_tests.dsl | grep -q "tests/cli/failing_tests.dsl:9" ||
    { echo "FAIL nabla test: the failure does not name tests/cli/failing_tests.dsl:9"; failures=$((failures + 1)); }
  expect "test: all pass" 0 '*' "" -- "$NABLA" test tests/lang/test_blocks
  [ "$(last_line "$NABLA" test tests/lang/test_blocks)" = "4 passed, 0 failed" ] ||
    { echo "FAIL nabla test: summary line of tests/lang/test_blocks"; failures=$((failures + 1)); }
  expect "REPL from a pipe" 0 $'3\n[1, 2]' "" -- bash -c "printf '1 + 2\nlet b = [1,\n  2]\nb\n' | '$NABLA'"
  expect "REPL from a pipe keeps going after an error" 1 "5" "<repl:1>:1:1: error: undefined name 'nope'" -- \
    bash -c "printf 'nope\nlet five = 5\nfive\n' | '$NABLA'"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all $MODE checks passed"
