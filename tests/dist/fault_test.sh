#!/usr/bin/env bash
# A rank that dies or hangs stops the others within the timeout, with an error that
# names it (issue 8). Starts 2 ranks of tests/dist/fault.dsl on a file:// store:
#   kill: SIGKILL to rank 1 once it is ready; rank 0 must fail naming rank 1 as
#         stopped answering, within the 5 s timeout (plus start-up);
#   hang: rank 1 sleeps without joining; rank 0 must fail after the timeout naming
#         rank 1 as alive but not joining.
#   fault_test.sh NABLA
set -u
NABLA="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d)"
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
failures=0

# run_case NAME EXPECTED_TEXT: starts both ranks, applies the fault, checks rank 0.
run_case() {
  local name="$1" expected="$2"
  export DIST_INIT="file://$WORK/$name-store" DIST_TIMEOUT=5 WORLD_SIZE=2 OMP_NUM_THREADS=1
  RANK=0 "$NABLA" "$HERE/fault.dsl" >"$WORK/$name-0.out" 2>"$WORK/$name-0.err" &
  local pid0=$!
  RANK=1 "$NABLA" "$HERE/fault.dsl" >"$WORK/$name-1.out" 2>"$WORK/$name-1.err" &
  local pid1=$!
  for _ in $(seq 300); do grep -q ready "$WORK/$name-1.out" && break; sleep 0.1; done
  if ! grep -q ready "$WORK/$name-1.out"; then
    echo "FAIL $name: rank 1 never got ready"; cat "$WORK/$name-1.err"; failures=$((failures + 1)); return
  fi
  local start=$SECONDS
  [ "$name" = kill ] && kill -9 "$pid1"
  # Rank 0 must stop by itself: within the timeout plus the 1.5 s diagnosis, and slack.
  for _ in $(seq 200); do kill -0 "$pid0" 2>/dev/null || break; sleep 0.1; done
  local took=$((SECONDS - start))
  if kill -0 "$pid0" 2>/dev/null; then
    echo "FAIL $name: rank 0 still runs after ${took}s"; failures=$((failures + 1)); kill -9 "$pid0" "$pid1" 2>/dev/null; return
  fi
  wait "$pid0"; local status=$?
  kill -9 "$pid1" 2>/dev/null
  if [ "$status" -eq 0 ] || ! grep -q -- "$expected" "$WORK/$name-0.err"; then
    echo "FAIL $name: rank 0 exited with $status; stderr:"; cat "$WORK/$name-0.err"; failures=$((failures + 1)); return
  fi
  echo "ok $name: rank 0 stopped after ${took}s: $(head -1 "$WORK/$name-0.err")"
}

run_case kill "rank 1 stopped answering"
run_case hang "rank 1 is alive but has not joined this collective"
[ "$failures" -eq 0 ] && echo "fault tests: 2 passed" || echo "fault tests: $failures failed"
exit "$failures"
