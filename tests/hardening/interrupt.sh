#!/usr/bin/env bash
# SIGINT (Ctrl-C) stops a script in a runaway loop and in a long recursion with a
# clean error at its location (exit status 1), not a kill.
#   bash tests/hardening/interrupt.sh [PATH/TO/nabla]
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NABLA="${1:-$HERE/../../build/nabla}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nabla-interrupt.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
failed=0

# Runs SCRIPT, sends SIGINT once it printed "started" (and 0.2 s more), and checks
# that it exits with status 1 and that stderr has each EXPECTED text.
interrupt() {
  local script=$1
  shift
  "$NABLA" "$HERE/$script" >"$WORK/out" 2>"$WORK/err" &
  local pid=$! waited=0
  until grep -q started "$WORK/out" 2>/dev/null || [ $waited -gt 1000 ]; do sleep 0.01; waited=$((waited + 1)); done
  sleep 0.2
  kill -INT $pid
  wait $pid
  local status=$?
  [ $status -eq 1 ] || { echo "interrupt: $script: exit status $status, expected 1" >&2; failed=1; }
  for text in "$@"; do
    grep -qF -- "$text" "$WORK/err" || { echo "interrupt: $script: no '$text' in:" >&2; cat "$WORK/err" >&2; failed=1; }
  done
}

interrupt runaway_loop.dsl "runaway_loop.dsl:5:1: error: interrupted"
interrupt long_recursion.dsl "error: interrupted" "in fib()"
[ $failed -eq 0 ] && echo "interrupt: a runaway loop and a long recursion stopped cleanly by SIGINT"
exit $failed
