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
# standard output (or '*' for any), STDERR_FIRST_LINE the first line of stderr (a
# trailing '...' makes it a prefix: messages that list the registered passes).
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  local out err rc err_ok=1
  out=$("$@" 2>/tmp/nabla-cli-err.$$)
  rc=$?
  err=$(head -n 1 /tmp/nabla-cli-err.$$)
  rm -f /tmp/nabla-cli-err.$$
  if [[ "$want_err" == *... ]]; then
    [[ "$err" == "${want_err%...}"* ]] || err_ok=0
  elif [ "$err" != "$want_err" ]; then
    err_ok=0
  fi
  if [ "$rc" != "$want_rc" ] || { [ "$want_out" != '*' ] && [ "$out" != "$want_out" ]; } || [ "$err_ok" = 0 ]; then
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

# check NAME COMMAND...: a check of a file or an output; fails the test when COMMAND does.
check() {
  local name=$1
  shift
  "$@" || { echo "FAIL $name: $*"; failures=$((failures + 1)); }
}

# wait_for_children PID N: waits (up to 10 s) until PID has N child processes; prints them.
wait_for_children() {
  local i children
  for i in $(seq 100); do
    children=$(pgrep -P "$1")
    [ "$(echo "$children" | grep -c .)" -ge "$2" ] && break
    sleep 0.1
  done
  echo "$children"
}

# nabla launch: the ranks' environment, their output passed through, and what the
# launcher does when a rank fails or the launcher is signalled.
launch_checks() {
  local omp=$(($(nproc) / 2)) out rc start child
  [ "$omp" -lt 1 ] && omp=1
  "$NABLA" launch -n 2 tests/cli/launch_env.dsl a -b >"$TMP/launch.out" 2>"$TMP/launch.err"
  check "launch: status 0" [ $? = 0 ]
  check "launch: rank 0's environment" grep -qxE \
    "rank 0 local 0 of 2 2 127.0.0.1 port [0-9]+ omp $omp args \['a', '-b'\]" "$TMP/launch.out"
  check "launch: rank 1's environment" grep -qxE \
    "rank 1 local 1 of 2 2 127.0.0.1 port [0-9]+ omp $omp args \['a', '-b'\]" "$TMP/launch.out"
  check "launch: one MASTER_PORT" [ "$(grep -oE 'port [0-9]+' "$TMP/launch.out" | sort -u | wc -l)" = 1 ]
  check "launch: nothing on stderr" [ ! -s "$TMP/launch.err" ]
  expect "launch: --nproc-per-node, --master-port and the user's OMP_NUM_THREADS" 0 \
    $'rank 0 local 0 of 3 3 127.0.0.1 port 29517 omp 5 args []\nrank 1 local 1 of 3 3 127.0.0.1 port 29517 omp 5 args []\nrank 2 local 2 of 3 3 127.0.0.1 port 29517 omp 5 args []' "" -- \
    bash -c "OMP_NUM_THREADS=5 '$NABLA' launch --nproc-per-node=3 --master-port 29517 tests/cli/launch_env.dsl | sort"
  expect "launch: node 1 of 2 (global ranks, the master's address)" 0 \
    $'rank 2 local 0 of 4 2 10.9.8.7 port 29519 omp 1 args []\nrank 3 local 1 of 4 2 10.9.8.7 port 29519 omp 1 args []' "" -- \
    bash -c "OMP_NUM_THREADS=1 '$NABLA' launch -n 2 --nnodes 2 --node-rank 1 --master-addr 10.9.8.7 --master-port 29519 tests/cli/launch_env.dsl | sort"

  "$NABLA" launch -n 2 tests/cli/launch_fail.dsl >"$TMP/fail.out" 2>"$TMP/fail.err"
  check "launch: a failing rank's status" [ $? = 1 ]
  check "launch: names the failing rank" grep -qxE 'nabla launch: rank 1 \(pid [0-9]+\) exited with status 1' "$TMP/fail.err"
  check "launch: the rank's own error passes through" grep -q "error: undefined name 'undefined_name'" "$TMP/fail.err"
  check "launch: one line from the launcher" [ "$(grep -c '^nabla launch:' "$TMP/fail.err")" = 1 ]
  check "launch: rank 0 finished" grep -qx "rank 0 done" "$TMP/fail.out"

  start=$SECONDS
  "$NABLA" launch -n 3 --grace 1 tests/cli/launch_spin.dsl 2 2>"$TMP/grace.err"
  check "launch: the failing rank's status after the grace period" [ $? = 1 ]
  check "launch: stops the others after --grace" [ $((SECONDS - start)) -lt 10 ]
  check "launch: says rank 2 failed" grep -qxE 'nabla launch: rank 2 \(pid [0-9]+\) exited with status 1' "$TMP/grace.err"
  check "launch: says it sends SIGTERM" grep -qx \
    "nabla launch: 2 rank(s) still running 1 s after the first failure: sending SIGTERM" "$TMP/grace.err"

  "$NABLA" launch -n 1 tests/cli/launch_spin.dsl 2>"$TMP/kill.err" &
  local launcher=$!
  child=$(wait_for_children $launcher 1)
  kill -KILL "$child"
  wait $launcher
  check "launch: 128 + 9 for a rank killed by SIGKILL" [ $? = 137 ]
  check "launch: names the signal" grep -qx "nabla launch: rank 0 (pid $child) was killed by signal 9 (SIGKILL)" "$TMP/kill.err"

  "$NABLA" launch -n 2 tests/cli/launch_spin.dsl 2>"$TMP/term.err" &
  launcher=$!
  wait_for_children $launcher 2 >/dev/null
  kill -TERM $launcher
  wait $launcher
  check "launch: SIGTERM passed on to the ranks" [ $? = 143 ]
  check "launch: a rank stopped by the SIGTERM" grep -qxE \
    'nabla launch: rank [01] \(pid [0-9]+\) was killed by signal 15 \(SIGTERM\)' "$TMP/term.err"
}

# Errors raised inside the standard library: at the user's line, the library's frames
# marked [library]; --full-trace (before any command) and the REPL's :set full_trace
# on show the library's line instead, and keep it on the ops in a graph.
full_trace_checks() {
  local lib_err="linear: argument 'input' of shape [2, 5] has 5 features but argument 'weight' of shape [4, 3] expects 3"
  local code='import nn; nn.Linear(3, 4)(randn(2, 5))'
  expect "a library error at the user's line" 1 "" "tests/cli/library_error.dsl:4:9: error: $lib_err" -- \
    "$NABLA" tests/cli/library_error.dsl
  "$NABLA" tests/cli/library_error.dsl 2>"$TMP/lib.err"
  check "the library's frame is marked" grep -qxE '  at <stdlib>/_nn_basic\.dsl:[0-9]+:[0-9]+ in Linear\.forward\(\) \[library\]' "$TMP/lib.err"
  check "the caret under the user's call" grep -qx '          ^~~~~~~~~~~~~~~~~~~~~~~~~~~~' "$TMP/lib.err"
  expect "--full-trace: a script's library error at the library's line" 1 "" "<stdlib>/_nn_basic.dsl:..." -- \
    "$NABLA" --full-trace tests/cli/library_error.dsl
  "$NABLA" --full-trace tests/cli/library_error.dsl 2>&1 | grep -qF "error: $lib_err" ||
    { echo "FAIL --full-trace: the message"; failures=$((failures + 1)); }
  expect "-e: a library error at the user's line" 1 "" "<-e>:1:12: error: $lib_err" -- "$NABLA" -e "$code"
  expect "--full-trace -e" 1 "" "<stdlib>/_nn_basic.dsl:..." -- "$NABLA" --full-trace -e "$code"
  "$NABLA" test tests/cli/library_error_tests.dsl | grep -qF \
    "FAIL test \"a layer given the wrong input\": tests/cli/library_error_tests.dsl:5:11: error: $lib_err" ||
    { echo "FAIL nabla test: a library error not at the test's line"; failures=$((failures + 1)); }
  "$NABLA" test tests/cli/library_error_tests.dsl --full-trace | grep -qF \
    "FAIL test \"a layer given the wrong input\": <stdlib>/_nn_basic.dsl:" ||
    { echo "FAIL nabla test ... --full-trace: not at the library's line"; failures=$((failures + 1)); }
  # An error while a library module's top level runs: at the user's import, the
  # import chain in the trace.
  expect "an import that fails inside the library" 1 "" "<-e>:1:1: error: step budget of 5 exceeded" -- \
    "$NABLA" --max-steps 5 -e 'import optim'
  "$NABLA" --max-steps 5 -e 'import optim' 2>"$TMP/import.err"
  check "the import chain: the library's lines, then the user's import" \
    bash -c "grep -qE '^  at <stdlib>/optim.dsl:[0-9]+:1 in <module> \\[library\\]$' '$TMP/import.err' && tail -1 '$TMP/import.err' | grep -qx '  at <-e>:1:1 in <module>'"
  "$NABLA" --full-trace test tests/cli/library_error_tests.dsl | grep -qF \
    "FAIL test \"a layer given the wrong input\": <stdlib>/_nn_basic.dsl:" ||
    { echo "FAIL nabla --full-trace test: not at the library's line"; failures=$((failures + 1)); }
  expect "the REPL: :set full_trace on, then off" 1 $'full_trace off\nfull_trace on' "<repl:1>:1:12: error: $lib_err" -- \
    bash -c "printf '%s\n:set\n:set full_trace on\n:set\n%s\n:set full_trace off\n%s\n' '$code' '$code' '$code' | '$NABLA'"
  printf '%s\n:set full_trace on\n%s\n:set full_trace off\n%s\n' "$code" "$code" "$code" | "$NABLA" 2>"$TMP/repl.err"
  check "the REPL: at the library's line when on" [ "$(grep -c '^<stdlib>/_nn_basic.dsl:[0-9]*:[0-9]*: error: linear' "$TMP/repl.err")" = 1 ]
  check "the REPL: at the entry's line when off" grep -q "^<repl:3>:1:12: error: linear" "$TMP/repl.err"
  expect "the REPL: a bad :set" 2 "" "error: usage: :set full_trace on|off, got 'maybe'" -- \
    bash -c "printf ':set full_trace maybe\n' | '$NABLA'"
  expect "the REPL: an unknown setting" 2 "" "error: unknown setting 'colour' (settings: full_trace)" -- \
    bash -c "printf ':set colour on\n' | '$NABLA'"
  "$NABLA" graph "$GRAPH_MODELS" --entry 'mlp(randn(8, 5))' 2>"$TMP/graph.err"
  check "graph: a capture's library error at the entry" \
    grep -qx "<graph>:1:1: error: linear: argument 'input' of shape \[8, 5\] has 5 features but argument 'weight' of shape \[16, 784\] expects 784" "$TMP/graph.err"
  "$NABLA" graph "$GRAPH_MODELS" --entry mlp --passes "" --print >"$TMP/ir.txt"
  check "graph: the ops carry the module path" grep -q ' = linear(%6, %2.weight, %2.bias) : f32\[8, 10\]  # 2 (<graph>:1:1)$' "$TMP/ir.txt"
  "$NABLA" --full-trace graph "$GRAPH_MODELS" --entry mlp --passes "" --print >"$TMP/ir.txt"
  check "--full-trace graph: the ops carry the library's lines" \
    grep -qE ' = linear\(%6, %2.weight, %2.bias\) : f32\[8, 10\]  # <stdlib>/_nn_basic\.dsl:[0-9]+:[0-9]+$' "$TMP/ir.txt"
  "$NABLA" --full-trace launch -n 1 tests/cli/library_error.dsl 2>"$TMP/launch.err"
  check "--full-trace reaches the ranks of nabla launch" grep -q "^<stdlib>/_nn_basic.dsl:[0-9]*:[0-9]*: error: linear" "$TMP/launch.err"
}

GRAPH_MODELS=tests/cli/graph_models.dsl
TMP=$(mktemp -d /tmp/nabla-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

if [ "$MODE" = usage ]; then
  expect "unknown option" 2 "" "nabla: error: unknown option '-x' (see nabla --help)" -- "$NABLA" -x
  expect "-e without code" 2 "" "nabla: error: -e needs CODE (see nabla --help)" -- "$NABLA" -e
  expect "missing script" 2 "" "nabla: error: cannot open 'no/such.dsl': No such file or directory" -- "$NABLA" no/such.dsl
  expect "test without a path" 2 "" "nabla: error: \`nabla test\` needs a PATH (a .dsl file or a folder)" -- "$NABLA" test
  expect "test of a missing path" 2 "" "nabla: error: no such file or folder: 'no/such'" -- "$NABLA" test no/such
  expect "--help" 0 '*' "" -- "$NABLA" --help
  expect "--version" 0 '*' "" -- "$NABLA" --version
  "$NABLA" --help | grep -q '^  --full-trace  ' || { echo "FAIL --help: no --full-trace"; failures=$((failures + 1)); }
  # A command's --help prints that command's part of the help, status 0.
  expect "graph --help" 0 '*' "" -- "$NABLA" graph --help
  check "graph --help lists the graph options" bash -c "'$NABLA' graph --help | grep -q -- '--before-after PASS'"
  expect "test --help" 0 '*' "" -- "$NABLA" test --help
  check "test --help lists -k" bash -c "'$NABLA' test --help | grep -q -- '-k PATTERN'"
  check "--help has the graph and test options" bash -c "'$NABLA' --help | grep -q -- '--collect-only' && '$NABLA' --help | grep -q -- '--explain'"

  # nabla graph: option errors are found before the file runs (status 2).
  expect "graph: unknown option" 2 "" "nabla: error: unknown option '--frob' for nabla graph (see nabla --help)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --frob
  expect "graph: no FILE" 2 "" "nabla: error: nabla graph needs a FILE.dsl (see nabla --help)" -- "$NABLA" graph --entry mlp
  expect "graph: missing FILE" 2 "" "nabla: error: cannot open 'no/such.dsl': No such file or directory" -- \
    "$NABLA" graph no/such.dsl --entry mlp
  expect "graph: no --entry" 2 "" "nabla: error: nabla graph needs --entry NAME (a model or a function of $GRAPH_MODELS)" -- \
    "$NABLA" graph "$GRAPH_MODELS"
  expect "graph: --entry without a value" 2 "" "nabla: error: --entry needs a value (see nabla --help)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry
  expect "graph: bad pass name" 2 "" "nabla: error: unknown pass 'bogus' (passes: ..." -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --passes fold,bogus
  expect "graph: bad --inputs size" 2 "" \
    "nabla: error: bad --inputs 'f32[8,x]': expected a size (a whole number) at 'x]' (inputs read dtype[sizes],...: f32[64,784],i64[64])" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --inputs 'f32[8,x]'
  expect "graph: bad --inputs dtype" 2 "" \
    "nabla: error: bad --inputs 'f33[8]': unknown dtype 'f33' (f32, f64, f16, bf16, i64, i32, i16, i8, u8 or bool)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --inputs 'f33[8]'
  expect "graph: unwritable --out" 2 "" "nabla: error: cannot write '/no/such/folder/g.svg': no folder '/no/such/folder'" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --out /no/such/folder/g.svg
  expect "graph: unknown --out format" 2 "" \
    "nabla: error: --out 'g.jpg': unknown format '.jpg' (use .svg, .png, .dot, .gv or .onnx)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --out g.jpg
  expect "graph: --before-after with an ONNX --out" 2 "" \
    "nabla: error: --before-after draws a drawing; --out 'm.onnx' is an ONNX model" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --before-after fuse --out m.onnx
  expect "graph: --before-after without --out" 2 "" "nabla: error: --before-after needs --out PATH to draw to" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --before-after cse
  expect "graph --list-passes" 0 '*' "" -- "$NABLA" graph --list-passes
  "$NABLA" graph --list-passes | grep -q "^default pipeline: unroll,fold,simplify,cse,licm,dce" ||
    { echo "FAIL graph --list-passes: no default pipeline line"; failures=$((failures + 1)); }

  # nabla launch: its arguments are checked before any rank starts (status 2).
  LAUNCH_ENV=tests/cli/launch_env.dsl
  expect "launch: no -n" 2 "" "nabla: error: nabla launch needs -n N, the number of ranks (see nabla --help)" -- \
    "$NABLA" launch "$LAUNCH_ENV"
  expect "launch: -n without a value" 2 "" "nabla: error: -n needs a value (see nabla --help)" -- "$NABLA" launch -n
  expect "launch: -n 0" 2 "" "nabla: error: -n needs a whole number of ranks, at least 1; got '0'" -- \
    "$NABLA" launch -n 0 "$LAUNCH_ENV"
  expect "launch: --nproc-per-node=x" 2 "" "nabla: error: --nproc-per-node needs a whole number of ranks, at least 1; got 'x'" -- \
    "$NABLA" launch --nproc-per-node=x "$LAUNCH_ENV"
  expect "launch: bad --master-port" 2 "" "nabla: error: --master-port needs a port from 1 to 65535, got '70000'" -- \
    "$NABLA" launch -n 2 --master-port 70000 "$LAUNCH_ENV"
  expect "launch: bad --grace" 2 "" "nabla: error: --grace needs a whole number of seconds, got '-1'" -- \
    "$NABLA" launch -n 2 --grace=-1 "$LAUNCH_ENV"
  expect "launch: --node-rank past --nnodes" 2 "" "nabla: error: --node-rank 2 is not a node of --nnodes 2 (0 to 1)" -- \
    "$NABLA" launch -n 2 --nnodes 2 --node-rank 2 --master-port 29519 "$LAUNCH_ENV"
  expect "launch: --nnodes without --master-port" 2 "" \
    "nabla: error: --nnodes 2 needs --master-port: every node's launcher must name the same one" -- \
    "$NABLA" launch -n 2 --nnodes 2 "$LAUNCH_ENV"
  expect "launch: bad --max-restarts" 2 "" "nabla: error: --max-restarts needs a whole number of restarts from 0 to 1000, got 'x'" -- \
    "$NABLA" launch -n 2 --max-restarts x "$LAUNCH_ENV"
  expect "launch: unknown option" 2 "" "nabla: error: unknown option '--frob' for nabla launch (see nabla --help)" -- \
    "$NABLA" launch -n 2 --frob "$LAUNCH_ENV"
  expect "launch: no FILE" 2 "" "nabla: error: nabla launch needs a FILE.dsl to run (see nabla --help)" -- "$NABLA" launch -n 2
  expect "launch: missing FILE" 2 "" "nabla: error: cannot open 'no/such.dsl': No such file or directory" -- \
    "$NABLA" launch -n 2 no/such.dsl

  # Limits (docs/hardening.md): bad counts are usage errors.
  expect "--max-steps without a count" 2 "" "nabla: error: --max-steps needs a positive count, got nothing" -- "$NABLA" --max-steps
  expect "--max-steps 0" 2 "" "nabla: error: --max-steps needs a positive count, got '0'" -- "$NABLA" --max-steps 0 -e 1
  expect "--max-memory with a bad suffix" 2 "" "nabla: error: --max-memory needs a positive count, got '5T'" -- \
    "$NABLA" --max-memory 5T -e 1
  expect "limits do not reach launch" 2 "" "nabla: error: --max-steps, --max-memory and --sandbox do not reach the ranks of nabla launch" -- \
    "$NABLA" --sandbox launch -n 2 tests/cli/launch_env.dsl
else
  expect "-e prints" 0 "3" "" -- "$NABLA" -e 'print(1 + 2)'
  expect "-e does not echo" 0 "" "" -- "$NABLA" -e '1 + 2'
  # Start-up: a CPU program never opens cuBLAS, whose start costs 0.3 s (Note [Loading
  # cuBLAS]); the loader's log must show the libraries nabla does open (dnnl).
  LD_DEBUG=files "$NABLA" -e 'print((ones([2, 2]) @ ones([2, 2])).sum().item())' >/dev/null 2>"$TMP/ld.log"
  check "LD_DEBUG=files lists the libraries opened" grep -q 'file=libdnnl' "$TMP/ld.log"
  check "a CPU program does not open cuBLAS" bash -c "! grep -q 'file=libcublas' '$TMP/ld.log'"
  expect "-e syntax error" 2 "" "<-e>:1:8: error: expected ')' to close '(' at 1:6" -- "$NABLA" -e 'print(1 '
  expect "-e runtime error" 1 "" "<-e>:1:1: error: undefined name 'undefined_q'" -- "$NABLA" -e 'undefined_q'
  expect "script arguments" 0 "['a', '-b']" "" -- "$NABLA" tests/cli/args.dsl a -b
  expect "test: failures" 1 '*' "" -- "$NABLA" test tests/cli/failing_tests.dsl
  [ "$(last_line "$NABLA" test tests/cli/failing_tests.dsl)" = "1 passed, 1 failed" ] ||
    { echo "FAIL nabla test: summary line of tests/cli/failing_tests.dsl"; failures=$((failures + 1)); }
  "$NABLA" test tests/cli/failing_tests.dsl | grep -q "tests/cli/failing_tests.dsl:9" ||
    { echo "FAIL nabla test: the failure does not name tests/cli/failing_tests.dsl:9"; failures=$((failures + 1)); }
  expect "test: all pass" 0 '*' "" -- "$NABLA" test tests/lang/test_blocks
  [ "$(last_line "$NABLA" test tests/lang/test_blocks)" = "7 passed, 0 failed" ] ||
    { echo "FAIL nabla test: summary line of tests/lang/test_blocks"; failures=$((failures + 1)); }
  expect "REPL from a pipe" 0 $'3\n[1, 2]' "" -- bash -c "printf '1 + 2\nlet b = [1,\n  2]\nb\n' | '$NABLA'"
  expect "REPL from a pipe keeps going after an error" 1 "5" "<repl:1>:1:1: error: undefined name 'nope'" -- \
    bash -c "printf 'nope\nlet five = 5\nfive\n' | '$NABLA'"
  expect "REPL :help of a builtin prints its table row" 0 $'len(obj)\n  The number of items of a str, list, tuple, dict, range or tensor (its first dim).\n  Example: len([1, 2, 3])\nstr.join(iterable)\n  The strings of iterable with this one between them.\n  Example: ", ".join(["a", "b"])' "" -- \
    bash -c "printf ':help len\n:help str.join\n' | '$NABLA'"
  expect "REPL :help of an unknown attribute of a module not imported is an error" 2 "" "error: module 'nn' has no attribute 'Nope'" -- \
    bash -c "printf ':help nn.Nope\n' | '$NABLA'"
  expect "REPL :mem lists a live tensor with its line" 0 $'cpu\n  allocated 4.00 MiB (peak 4.00 MiB), reserved 4.00 MiB, in 1 live blocks\n  cached 0 B; 1 allocations, 0 served from the cache\n  largest live tensors:\n    4.00 MiB  <repl:1>:1:9  zeros([1024, 1024])' "" -- \
    bash -c "printf 'let w = zeros([1024, 1024])\n:mem\n' | '$NABLA'"
  expect "REPL :mem with an unknown device" 2 "" "error: unknown device 'tpu' (expected cpu, cuda or cuda:N)" -- \
    bash -c "printf ':mem tpu\n' | '$NABLA'"

  # Limits: an endless loop, a tensor past the memory budget, a file in sandbox mode.
  expect "--max-steps stops an endless loop" 1 "" "<-e>:1:1: error: step budget of 1000 exceeded" -- \
    "$NABLA" --max-steps 1000 -e 'while true {}'
  expect "--max-steps in a script" 1 "" "tests/cli/launch_spin.dsl:4:1: error: step budget of 50 exceeded" -- \
    "$NABLA" --max-steps 50 tests/cli/launch_spin.dsl
  expect "--max-memory" 1 "" "<-e>:1:1: error: memory budget of 1048576 bytes exceeded: a tensor needs 4000000 bytes..." -- \
    "$NABLA" --max-memory 1M -e 'zeros([1000, 1000])'
  expect "--max-memory lets smaller tensors be" 0 "(100, 100)" "" -- "$NABLA" --max-memory 1M -e 'print(zeros([100, 100]).shape)'
  expect "--sandbox" 1 "" "<-e>:1:1: error: read_text() is not available in sandbox mode (no files, sockets or sleeping)" -- \
    "$NABLA" --sandbox -e 'read_text("/etc/hostname")'
  expect "limits in the REPL, per entry" 1 $'1\n2' "<repl:2>:1:1: error: step budget of 20 exceeded" -- \
    bash -c "printf '1\nwhile true {}\n2\n' | '$NABLA' --max-steps 20"

  launch_checks
  full_trace_checks

  # nabla graph: capture, passes, rendering. The pipelines are spelled out where a
  # check counts nodes: what "default" does grows with the passes. A nabla built
  # without Graphviz (NABLA_GRAPHVIZ=OFF) writes DOT, not SVG: the same checks then
  # read the DOT, whose node classes lack SVG's "node " prefix.
  if [ "$("$NABLA" -e 'print(graphviz_available())')" = true ]; then
    EXT=svg NODE='node '
  else
    EXT=dot NODE=''
    echo "skipped the SVG checks of nabla graph: this nabla was built without Graphviz (NABLA_GRAPHVIZ=OFF); checking the DOT"
    expect "graph: no SVG without Graphviz" 1 "" "nabla: error: render: cannot write '$TMP/g.svg': this nabla was built without Graphviz..." -- \
      "$NABLA" graph "$GRAPH_MODELS" --entry mlp --out "$TMP/g.svg"
  fi
  expect "graph: a drawing of the model after the default passes" 0 '*' "" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --out "$TMP/default.$EXT"
  check "graph: the default drawing has the input" grep -q "class=\"${NODE}input\"" "$TMP/default.$EXT"
  check "graph: the default drawing has the output" grep -q "class=\"${NODE}output\"" "$TMP/default.$EXT"
  P=fold,simplify,cse,dce
  "$NABLA" graph "$GRAPH_MODELS" --entry mlp --passes $P --out "$TMP/mlp.$EXT" >"$TMP/out.txt"
  check "graph: four parameter nodes" [ "$(grep -c "class=\"${NODE}param\"" "$TMP/mlp.$EXT")" = 4 ]
  check "graph: the ops" grep -q '%6 = relu' "$TMP/mlp.$EXT"
  check "graph: two linear nodes" [ "$(grep -c '= linear' "$TMP/mlp.$EXT")" = 2 ]
  check "graph: the output" grep -q "class=\"${NODE}output\"" "$TMP/mlp.$EXT"
  check "graph: the heading" grep -qx "graph module 'Sequential' (inference): 3 nodes captured, 3 after passes" "$TMP/out.txt"
  check "graph: a line per pass" grep -q '^dce  *0 changes    3 ->   3 nodes' "$TMP/out.txt"
  check "graph: says what it wrote" grep -qx "wrote $TMP/mlp.$EXT" "$TMP/out.txt"
  "$NABLA" graph "$GRAPH_MODELS" --entry mlp --passes $P --print -- 32 >"$TMP/ir.txt"
  check "graph --print: the IR, with the script's args (after --)" \
    grep -q '%5 = linear(%x, %0.weight, %0.bias) : f32\[8, 32\]' "$TMP/ir.txt"
  expect "graph: a call compiles with its arguments" 0 '*' "" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry 'twice(randn([4]))' --passes simplify,cse,dce --before-after simplify --out "$TMP/diff.$EXT"
  check "graph --before-after: removed nodes" grep -q "class=\"${NODE}op removed\"" "$TMP/diff.$EXT"
  expect "graph: a training step" 0 '*' "" -- "$NABLA" graph "$GRAPH_MODELS" --entry step --train --inputs 'f32[8,784],i64[8]' --out "$TMP/step.dot"
  check "graph: the training step's DOT has the backward's matmuls" grep -q '= matmul' "$TMP/step.dot"
  # --out m.onnx: the graph after the passes as an ONNX model (tests/onnx/ runs such
  # models in ONNX Runtime); a training step is not an inference graph.
  "$NABLA" graph "$GRAPH_MODELS" --entry mlp --out "$TMP/mlp.onnx" >"$TMP/onnx.txt"
  check "graph --out .onnx: says what it wrote" grep -qx "wrote $TMP/mlp.onnx" "$TMP/onnx.txt"
  check "graph --out .onnx: a model that onnx.checker accepts" /usr/bin/python3 tests/onnx/check_model.py "$TMP/mlp.onnx"
  expect "graph --out .onnx: a training step is refused" 1 "" \
    "nabla: error: export_onnx: graph module 'step' is a training step (compile(..., train=true)); ONNX export writes inference graphs: compile the model without train=true, or call export_onnx(model, inputs, path)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry step --train --inputs 'f32[8,784],i64[8]' --out "$TMP/step.onnx"
  "$NABLA" graph "$GRAPH_MODELS" --entry step --train --inputs 'f32[8,784],i64[8]' --explain >"$TMP/explain.txt"
  check "graph --explain: the guards" grep -q '    y == i64\[8\]' "$TMP/explain.txt"

  # nabla graph: errors after the file ran, one line each.
  expect "graph: unknown entry" 2 "" \
    "nabla: error: $GRAPH_MODELS defines no 'nope' (--entry names a model, a function or a graph module of its top level)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry nope
  expect "graph: not a model" 1 "" \
    "nabla: error: graph: 'not_a_model' is not a model, a function or a graph module (its type is int)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry not_a_model
  expect "graph: no example inputs" 1 "" \
    "nabla: error: graph: 'step' needs example inputs: call it with them, step(x), define step_inputs (a list of tensors), or give nabla graph --inputs (such as f32[64,784])" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry step
  expect "graph: --train needs a scalar loss" 1 "" \
    "nabla: error: compile(train=true): the function's (first) result must be the scalar loss" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --train
  expect "graph: a capture problem" 1 "" "nabla: error: compile: the function cannot be captured as a graph:" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry branchy --inputs 'f32[3]'
  mkdir -p "$TMP/folder.$EXT"
  expect "graph: a render that fails" 1 "" "nabla: error: render: cannot write '$TMP/folder.$EXT': it is a folder, not a regular file (nabla replaces only a regular file, or writes through a symlink to one)" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp --out "$TMP/folder.$EXT"
  expect "graph: the script's own error" 1 "" "$GRAPH_MODELS:5:14: error: invalid literal for int(): 'x'" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry mlp -- x
  # A model class: constructed when its constructor needs no arguments, else the error says how.
  "$NABLA" graph "$GRAPH_MODELS" --entry Gate --passes "" >"$TMP/gate.txt"
  check "graph: a model class with no constructor arguments is constructed" \
    grep -qx "graph module 'Gate' (inference): 2 nodes captured, 2 after passes" "$TMP/gate.txt"
  expect "graph: a model class whose constructor needs arguments" 1 "" \
    "nabla: error: graph: 'Scaled' is a model class, not a model, and its constructor needs (k): construct one in --entry, such as --entry 'Scaled(...)', or name a model that the file makes (let net = Scaled(...))" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry Scaled
  expect "graph: a model class constructed in --entry" 0 '*' "" -- \
    "$NABLA" graph "$GRAPH_MODELS" --entry 'Scaled(3.0)' --inputs 'f32[2]'

  # The REPL echoes a report (gm.optimize(), gm.cost()) as its text, not a quoted str.
  printf 'let gm = compile(fn(x) = x * 1.0 + x * 1.0, randn([4]))\ngm.optimize("simplify,cse")\ngm.cost()\n' |
    "$NABLA" >"$TMP/echo.txt"
  check "REPL: gm.optimize()'s report echoes as lines" grep -q '^simplify  *[0-9]* changes' "$TMP/echo.txt"
  check "REPL: gm.cost()'s table echoes as lines" grep -q '^graph module .lambda. (inference)' "$TMP/echo.txt"
  check "REPL: no quoted report" bash -c "! grep -qF '\\n' '$TMP/echo.txt'"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all $MODE checks passed"
