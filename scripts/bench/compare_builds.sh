#!/usr/bin/env bash
# Two builds of nabla against the same PyTorch reference, figure by figure and
# alternating, so that a change's before and after see the same machine noise:
#   bash scripts/bench/compare_builds.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR [FIGURE...]
# (ROUNDS=9 for more rounds; figures as scripts/bench.sh, default a quick set). Each
# figure prints "before: BENCH ..." and "after: BENCH ..." (scripts/bench/bench.py).
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD_DIR AFTER_BUILD_DIR [FIGURE...]" >&2; exit 2; }
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd)
shift 2
[ $# -gt 0 ] || set -- tiny_add tiny_fwd_bwd hvp exp_4m tanh_4m sum_4m softmax_2048 dsl_tiny_add_1e5 dsl_fwd_bwd_1e4
for figure in "$@"; do
  for side in before after; do
    dir=$after
    [ "$side" = before ] && dir=$before
    line=$(NABLA_BUILD_DIR="$dir" /usr/bin/python3 "$NABLA_ROOT/scripts/bench/bench.py" --rounds "${ROUNDS:-5}" "$figure" | grep '^BENCH')
    echo "$side: $line"
  done
done
