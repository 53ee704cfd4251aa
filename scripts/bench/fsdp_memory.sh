#!/usr/bin/env bash
# DDP against FSDP on this machine: per-rank memory and step time of the ~20M-parameter
# MLP of scripts/bench/fsdp_memory.dsl on 1, 2 and 4 ranks, and whether FSDP "full"
# keeps parameters, gradients and optimizer state per rank within 1/N + 10% of one
# process. PyTorch 1.13's FSDP does not import under this Python (3.11: a dataclass
# with a mutable default in torch.distributed._shard), so the comparison is with DDP.
# Run under the build lock on a quiet machine:
#   flock /tmp/nabla-build.lock bash scripts/bench/fsdp_memory.sh
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NABLA="$NABLA_ROOT/build/nabla"
cd "$NABLA_ROOT"
script=scripts/bench/fsdp_memory.dsl
single=$("$NABLA" "$script" single)
echo "$single"
base=$(sed 's/.*exact_MB=\([0-9.]*\).*/\1/' <<<"$single")
for n in 1 2 4; do
  for mode in ddp grad_op full full_sync grad_op_compiled full_compiled; do
    line=$("$NABLA" launch -n "$n" "$script" "$mode")
    echo "$line"
    if [ "$mode" = full ]; then
      exact=$(sed 's/.*exact_MB=\([0-9.]*\).*/\1/' <<<"$line")
      python3 -c "import sys; e, b, n = $exact, $base, $n; t = b * (1 / n + 0.1); print(f'BENCH fsdp_memory_target ranks={n} exact_MB={e} target_MB={t:.1f} fraction={e / b:.3f} ok={e <= t}')"
    fi
  done
done
