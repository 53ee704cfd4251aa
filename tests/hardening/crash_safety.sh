#!/usr/bin/env bash
# Crash safety of checkpoints (issue 10), in two parts:
#
# 1. Kill during save: `nabla save_loop.dsl loop` saves checkpoints A and B (a model
#    and its Adam state, 4.8 MB, 14 tensors) in turn to one path; after a random delay
#    the script SIGKILLs it and compares the file with the reference files, byte for
#    byte. The child prints "saving X" before each save and "saved X" after it, so the
#    file must be the one being saved (new) or the one before it (old); anything else
#    is corrupt. Temporary files must not pile up: at most the one `.tmp` of the path
#    (Note [Atomic files]), and none after the next completed save.
# 2. Damaged files: checkpoint_damage cuts checkpoint A at every length of its header
#    and at random places, and flips every bit of its header and random bits of its
#    data (~35000 cases), loading each through load(): every load must be a clean error.
#
#   bash tests/hardening/crash_safety.sh [RUNS] [quick]
#
# RUNS kills (default 200); `quick` (ctest) damages every 5th header byte only and
# 100 places in the data instead of 500. It prints exactly
#   HARDEN kill_during_save runs=R old=A new=B corrupt=0
#   HARDEN corrupt_files tried=N clean_errors=N crashes=0
# and exits with status 1 when a target is missed (a corrupt load, a pile of
# temporary files, a load that was not a clean error, a crash). The binaries are
# $NABLA and $CHECKPOINT_DAMAGE, by default those of build/ (or $NABLA_BUILD_DIR).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${NABLA_BUILD_DIR:-$ROOT/build}"
NABLA="${NABLA:-$BUILD/nabla}"
CHECKPOINT_DAMAGE="${CHECKPOINT_DAMAGE:-$BUILD/tests/checkpoint_damage}"
RUNS="${1:-200}"
DAMAGE_CASES=(500 1)
[ "${2:-}" = quick ] && DAMAGE_CASES=(100 5)
export OMP_NUM_THREADS=1  # the children share the machine with the test run

WORK="$(mktemp -d "${TMPDIR:-/tmp}/nabla-crash-safety.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
failed=0
problem() {
  echo "crash_safety: $*" >&2
  failed=1
}

"$NABLA" "$HERE/save_loop.dsl" refs "$WORK" || { echo "crash_safety: cannot write the reference files" >&2; exit 1; }
A="$WORK/a.safetensors"
B="$WORK/b.safetensors"
CKPT="$WORK/ckpt.safetensors"

# The one file that `name` stands for.
ref() { if [ "$1" = a ]; then echo "$A"; else echo "$B"; fi; }
other() { if [ "$1" = a ]; then echo b; else echo a; fi; }

# The files in the folder beside the references and the log.
extra_files() { ls -A "$WORK" | grep -v -x -e a.safetensors -e b.safetensors -e log | tr '\n' ' '; }

# Starts the loop, waits for its first save, kills it after 0-99 ms and classifies
# the file it left. Sets `verdict` to old, new or corrupt.
kill_one() {
  cp "$B" "$CKPT"  # the first save is of A: before it, the path holds B
  # Emptied here, not only by the child's redirection, which runs after the fork: the
  # wait below must not find the last run's "saving" and kill a child not yet started.
  : >"$WORK/log"
  "$NABLA" "$HERE/save_loop.dsl" loop "$WORK" >"$WORK/log" 2>&1 &
  local pid=$! waited=0
  until grep -q '^saving' "$WORK/log" 2>/dev/null; do
    sleep 0.005
    waited=$((waited + 1))
    if [ $waited -gt 2000 ]; then problem "the save loop did not start: $(cat "$WORK/log")"; kill -9 $pid; wait $pid; verdict=corrupt; return; fi
  done
  sleep "0.0$(printf '%02d' $((RANDOM % 100)))"
  kill -9 $pid
  wait $pid 2>/dev/null
  local last name
  last="$(tail -n 1 "$WORK/log")"
  name="${last#* }"
  if [[ "$last" == "saving "* ]]; then
    if cmp -s "$CKPT" "$(ref "$name")"; then verdict=new
    elif cmp -s "$CKPT" "$(ref "$(other "$name")")"; then verdict=old
    else verdict=corrupt; fi
  elif [[ "$last" == "saved "* ]] && cmp -s "$CKPT" "$(ref "$name")"; then
    verdict=old  # killed between two saves: the last one is the file
  else
    verdict=corrupt
  fi
  [ "$verdict" = corrupt ] && problem "run $run: the file is neither the old nor the new checkpoint (log ends: $last)"
}

old=0 new=0 corrupt=0
for ((run = 1; run <= RUNS; run++)); do
  kill_one
  case $verdict in old) old=$((old + 1)) ;; new) new=$((new + 1)) ;; *) corrupt=$((corrupt + 1)) ;; esac
  left="$(extra_files)"
  [ "$left" = "ckpt.safetensors " ] || [ "$left" = "ckpt.safetensors ckpt.safetensors.tmp " ] ||
    problem "run $run: files piled up: $left"
done
# The next completed save takes the temporary file along, and writes A byte for byte.
"$NABLA" "$HERE/save_loop.dsl" once "$WORK" || problem "a save after the kills failed"
cmp -s "$CKPT" "$A" || problem "save(load(A)) is not A byte for byte"
[ "$(extra_files)" = "ckpt.safetensors " ] || problem "after a completed save: files left: $(extra_files)"
echo "HARDEN kill_during_save runs=$RUNS old=$old new=$new corrupt=$corrupt"
[ $corrupt -eq 0 ] || failed=1

damage_out="$("$CHECKPOINT_DAMAGE" "$A" "${DAMAGE_CASES[@]}")"
status=$?
if [ $status -gt 1 ] && ! [[ "$damage_out" == HARDEN* ]]; then
  # Killed by a signal (status 128+N) or stopped: a crash on a damaged file.
  echo "HARDEN corrupt_files tried=0 clean_errors=0 crashes=1"
  problem "checkpoint_damage ended with status $status"
else
  echo "$damage_out"
  [ $status -eq 0 ] || failed=1
fi
exit $failed
