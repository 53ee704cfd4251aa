#!/usr/bin/env bash
# The benchmark: builds nabla, installs Debian's PyTorch (python3-torch, the
# reference) if missing, and prints one BENCH line per figure, nabla and PyTorch
# measured interleaved in one run (median of rounds). Example:
#   bash scripts/bench.sh                 # every figure, 5 rounds
#   bash scripts/bench.sh --rounds 9 sgemm_1024 conv2d
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$NABLA_ROOT/scripts/setup.sh" python3-torch
exec /usr/bin/python3 "$NABLA_ROOT/scripts/bench/bench.py" "$@"
