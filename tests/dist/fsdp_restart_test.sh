#!/bin/bash
# nabla launch --max-restarts: rank 1 is killed (SIGKILL) in step 7 of 20; the launcher
# names it, starts both ranks again, they resume from the step-5 sharded checkpoint
# and end with one process's parameters (tests/dist/fsdp_restart.dsl).
#   bash tests/dist/fsdp_restart_test.sh path/to/nabla        (ctest dist_fsdp_restart)
set -uo pipefail
nabla="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$nabla" launch -n 2 --max-restarts 1 tests/dist/fsdp_restart.dsl "$dir" kill >"$dir/out" 2>&1 &
launcher=$!
for _ in $(seq 300); do [ -s "$dir/kill_me" ] && break; sleep 0.1; done
[ -s "$dir/kill_me" ] || { echo "FAIL: rank 1 never reached step 7"; cat "$dir/out"; kill "$launcher"; exit 1; }
kill -9 "$(cat "$dir/kill_me")"
wait "$launcher"
status=$?
cat "$dir/out"
fail() { echo "FAIL: $1"; exit 1; }
[ "$status" -eq 0 ] || fail "the launcher exited with $status"
grep -q "nabla launch: rank 1 (pid [0-9]*) was killed by signal 9 (SIGKILL)" "$dir/out" || fail "the dead rank is not named"
grep -q "restarting all 2 rank(s) of node 0 (restart 1 of 1): the script resumes from its latest checkpoint (the last one it finished is '$dir/step5')" "$dir/out" ||
  fail "no restart naming the step-5 checkpoint"
for r in 0 1; do
  grep -q "rank $r: restart 1: resumed from the step-5 checkpoint" "$dir/out" || fail "rank $r did not resume from step 5"
  grep -q "rank $r: 20 steps (restart 1) equal one process" "$dir/out" || fail "rank $r did not finish equal"
done
echo "restart: killed in step 7, resumed from step 5, equal to one process"
