#!/usr/bin/env bash
# What the profiler costs when it is off: the tiny-op figures of nabla as built
# (profiler compiled in, no profile active) against a second build with the hook
# compiled out (-DNABLA_PROFILER=OFF: dispatch as it was before the profiler existed),
# interleaved, median of rounds. Builds build/ and build-noprof/ first.
#   bash scripts/bench/profiler_overhead.sh [--rounds N]
# prints  BENCH profiler_off_<figure> hook_off=.. compiled_out=.. unit=.. ratio=..
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bash "$NABLA_ROOT/scripts/setup.sh"
NOPROF="$NABLA_ROOT/build-noprof"
if [ ! -f "$NOPROF/build.ninja" ]; then
  cmake -S "$NABLA_ROOT" -B "$NOPROF" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNABLA_PROFILER=OFF ${NABLA_CMAKE_ARGS:-}
fi
cmake --build "$NOPROF" -j "$(nproc)" --target nabla nabla_bench
exec /usr/bin/python3 "$NABLA_ROOT/scripts/bench/profiler_overhead.py" "$NABLA_ROOT/build" "$NOPROF" "$@"
