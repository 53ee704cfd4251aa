#!/usr/bin/env bash
# Runs determinism.dsl twice, in two processes with the thread count fixed, and
# compares their outputs: the 30 losses (17 significant digits, so exact bits) and
# the forward output after save -> load must be the same.
#   bash tests/hardening/determinism.sh [PATH/TO/nabla]
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NABLA="${1:-$HERE/../../build/nabla}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nabla-determinism.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export OMP_NUM_THREADS=2

"$NABLA" "$HERE/determinism.dsl" "$WORK/first.safetensors" >"$WORK/first.txt" || exit 1
"$NABLA" "$HERE/determinism.dsl" "$WORK/second.safetensors" >"$WORK/second.txt" || exit 1
losses=$(grep -c '^loss ' "$WORK/first.txt")
if [ "$losses" -ne 30 ] || ! grep -q '^save -> load -> forward: identical$' "$WORK/first.txt"; then
  echo "determinism: the run did not finish:" >&2
  cat "$WORK/first.txt" >&2
  exit 1
fi
if ! diff "$WORK/first.txt" "$WORK/second.txt" >&2; then
  echo "determinism: two runs with the same seed differ" >&2
  exit 1
fi
cmp -s "$WORK/first.safetensors" "$WORK/second.safetensors" || { echo "determinism: the checkpoints differ" >&2; exit 1; }
echo "determinism: $losses losses, the forward after save -> load and the checkpoints identical in two processes"
