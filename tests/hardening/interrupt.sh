#!/usr/bin/env bash
# SIGINT (Ctrl-C) stops a script with a clean error at its location and exit status
# 130 (128 + SIGINT, what shells and Python report), never a kill and never lost: in a
# runaway loop, a long recursion, a long native op in the script's last statement, a
# sleep, `nabla -e`, `nabla test`; and the REPL drops the entry and keeps its state
# (Note [Interrupts] in interp/interpreter.cpp).
#   bash tests/hardening/interrupt.sh [PATH/TO/nabla]
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NABLA="${1:-$HERE/../../build/nabla}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nabla-interrupt.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
failed=0

# Waits until $WORK/out says "started", then $1 seconds more.
wait_started() {
  local waited=0
  until grep -q started "$WORK/out" 2>/dev/null || [ $waited -gt 1000 ]; do sleep 0.01; waited=$((waited + 1)); done
  sleep "$1"
}

# check NAME STATUS EXPECTED...: the exit status and each text in stderr.
check() {
  local name=$1 status=$2
  shift 2
  [ "$status" -eq 130 ] || { echo "interrupt: $name: exit status $status, expected 130" >&2; failed=1; }
  for text in "$@"; do
    grep -qF -- "$text" "$WORK/err" || { echo "interrupt: $name: no '$text' in:" >&2; cat "$WORK/err" >&2; failed=1; }
  done
}

# interrupt DELAY COMMAND... -- EXPECTED...: runs COMMAND, sends SIGINT DELAY seconds
# after it printed "started", and checks the status and stderr.
interrupt() {
  local delay=$1 cmd=()
  shift
  while [ "$1" != "--" ]; do cmd+=("$1"); shift; done
  shift
  rm -f "$WORK/out"  # the last case's "started" must not be read before this one truncates it
  "${cmd[@]}" >"$WORK/out" 2>"$WORK/err" &
  local pid=$!
  wait_started "$delay"
  kill -INT $pid
  wait $pid
  check "${cmd[-1]}" $? "$@"
}

interrupt 0.2 "$NABLA" "$HERE/runaway_loop.dsl" -- "runaway_loop.dsl:5:1: error: interrupted"
interrupt 0.2 "$NABLA" "$HERE/long_recursion.dsl" -- "error: interrupted" "in fib()"

# A long native op as the last statement: the SIGINT comes while matmul runs (seconds
# on a small machine), and used to be lost (exit status 0).
cat >"$WORK/last_native.dsl" <<'EOF'
let a = randn([3000, 3000])
let b = randn([3000, 3000])
print("started")
let c = matmul(matmul(matmul(a, b), b), b)
EOF
interrupt 0.05 "$NABLA" "$WORK/last_native.dsl" -- "last_native.dsl:4:1: error: interrupted"

# A sleep stops at once, not after its 60 seconds.
cat >"$WORK/sleep.dsl" <<'EOF'
import time
print("started")
time.sleep(60)
EOF
start=$(date +%s)
interrupt 0.1 "$NABLA" "$WORK/sleep.dsl" -- "sleep.dsl:3:1: error: interrupted"
[ $(($(date +%s) - start)) -lt 20 ] || { echo "interrupt: time.sleep did not stop at the interrupt" >&2; failed=1; }

interrupt 0.2 "$NABLA" -e 'print("started")
while true {}' -- "<-e>:2:1: error: interrupted"

# A `while` on a tensor that compile(mode="script") lowered runs its iterations inside
# the graph executor, where the interpreter's checks never ran: it ignored Ctrl-C
# (Note [Loop polls] in graph/executor.hpp).
cat >"$WORK/graph_while.dsl" <<'EOF'
fn f(x) {
  let h = x
  while h.sum() < 1 { h = h * 1 }
  return h
}
let gm = compile(f, ones([3]), mode="script")
print("started")
gm(-ones([3]))
EOF
interrupt 0.2 "$NABLA" "$WORK/graph_while.dsl" -- "graph_while.dsl:8:1: error: interrupted"

# nabla test: the file stops (its failures go to stdout), the run says so, and the
# status is 130.
cat >"$WORK/spin_test.dsl" <<'EOF'
test "spins" {
  print("started")
  while true {}
}
test "never runs" { expect(false) }
EOF
interrupt 0.2 "$NABLA" test "$WORK/spin_test.dsl" --
grep -q "spin_test.dsl:3:3: error: interrupted" "$WORK/out" && grep -q "0 passed, 1 failed (interrupted)" "$WORK/out" ||
  { echo "interrupt: nabla test did not report the interrupt:" >&2; cat "$WORK/out" >&2; failed=1; }

# The REPL (stdin a pipe): the interrupted entry ends with the error, the next entry
# sees the state from before it, and the session's status is 130.
mkfifo "$WORK/repl_in"
rm -f "$WORK/out"
"$NABLA" <"$WORK/repl_in" >"$WORK/out" 2>"$WORK/err" &
pid=$!
exec 3>"$WORK/repl_in"
printf 'let kept = 41\nprint("started")\nwhile true { kept = kept }\n' >&3
wait_started 0.2
kill -INT $pid
printf 'print(kept + 1)\n' >&3
exec 3>&-
wait $pid
check repl $? "error: interrupted"
grep -qx 42 "$WORK/out" || { echo "interrupt: the REPL lost its state after Ctrl-C:" >&2; cat "$WORK/out" >&2; failed=1; }

[ $failed -eq 0 ] && echo "interrupt: loops, recursion, a last native op, a sleep, a graph's while loop, -e, nabla test and the REPL stop with status 130"
exit $failed
