#!/usr/bin/env bash
# nabla's all-reduce against PyTorch 1.13's, both on Gloo with N ranks on 127.0.0.1,
# f32 messages of 4 KiB to 64 MiB, timed the same way (scripts/bench/allreduce.dsl and
# scripts/bench/allreduce_torch.py: a barrier, then one timed all-reduce; the median
# of `reps`). The two run in alternation, `rounds` times, the order swapped each round
# so that neither always follows the other, and the figure is the median over rounds.
# Prints, per size,
#   BENCH allreduce_<size> nabla_us=.. torch_us=.. ratio=..      (ratio: nabla / torch)
#   bash scripts/bench/allreduce_compare.sh [rounds=5] [reps=41] [ranks=2]
# Needs build/nabla and /usr/bin/python3 with torch (a reference, not a dependency).
# On a small shared machine a woken thread may wait a scheduler tick (4 ms) for a core,
# so single small-message timings are bimodal (~0.3 ms or ~4 ms): a median of few
# samples flips between the two, hence many reps and several rounds.
set -euo pipefail
ROUNDS="${1:-5}"
REPS="${2:-41}"
RANKS="${3:-2}"
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NABLA="${NABLA:-$NABLA_ROOT/build/nabla}"  # NABLA=/path/to/nabla compares another build
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$NABLA_ROOT"

run_nabla() { "$NABLA" launch -n "$RANKS" scripts/bench/allreduce.dsl "$REPS" >>"$WORK/nabla"; }
run_torch() { /usr/bin/python3 scripts/bench/allreduce_torch.py "$REPS" "$RANKS" 2>/dev/null >>"$WORK/torch"; }

for round in $(seq "$ROUNDS"); do
  if ((round % 2)); then run_nabla; run_torch; else run_torch; run_nabla; fi
done

# median_us FILE SIZE: the median over rounds of the time_us of allreduce_SIZE.
median_us() {
  grep "^BENCH allreduce_$2 " "$1" | sed 's/.*time_us=\([0-9.]*\).*/\1/' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for size in 4KiB 64KiB 1MiB 16MiB 64MiB; do
  nabla_us=$(median_us "$WORK/nabla" "$size")
  torch_us=$(median_us "$WORK/torch" "$size")
  ratio=$(awk -v a="$nabla_us" -v b="$torch_us" 'BEGIN { printf "%.2f", a / b }')
  echo "BENCH allreduce_$size nabla_us=$nabla_us torch_us=$torch_us ratio=$ratio ranks=$RANKS rounds=$ROUNDS reps=$REPS"
done
