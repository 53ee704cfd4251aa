#!/usr/bin/env bash
# One rank against two: the data-parallel MLP's epoch time and test accuracy
# (scripts/fashion_mnist_ddp.dsl, global batch 64, 3 epochs, fastest epoch), then the
# all-reduce bus bandwidth of 2 ranks (scripts/bench/allreduce.dsl). Prints
#   BENCH ddp_epoch ranks1=.. ranks2=.. unit=s acc1=.. acc2=..
#   BENCH allreduce_<size> time_us=.. busbw_GBps=.. ranks=2
# Run with build/ built (bash scripts/setup.sh). On a 2-core machine two ranks share
# the cores that one rank uses alone, so 2 ranks are slower there: report it as it is.
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NABLA="$NABLA_ROOT/build/nabla"
cd "$NABLA_ROOT"
declare -A secs acc
for n in 1 2; do
  line=$("$NABLA" launch -n "$n" scripts/fashion_mnist_ddp.dsl 3 | grep '^epoch_seconds=')
  secs[$n]=$(sed 's/.*epoch_seconds=\([0-9.]*\).*/\1/' <<<"$line")
  acc[$n]=$(sed 's/.*test_accuracy=\([0-9.]*\).*/\1/' <<<"$line")
done
echo "BENCH ddp_epoch ranks1=${secs[1]} ranks2=${secs[2]} unit=s acc1=${acc[1]} acc2=${acc[2]}"
"$NABLA" launch -n 2 scripts/bench/allreduce.dsl
