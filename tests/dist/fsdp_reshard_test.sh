#!/bin/bash
# Sharded checkpoints that reshard: saved by 4 FSDP ranks, resumed on 2 (equal to one
# process's uninterrupted run) and read by one process as a full state dict.
#   bash tests/dist/fsdp_reshard_test.sh path/to/nabla        (ctest dist_fsdp_reshard)
set -euo pipefail
nabla="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
script=tests/dist/fsdp_checkpoint_save.dsl
"$nabla" launch -n 4 "$script" save "$dir/model"
test -f "$dir/model.safetensors.index.json"
for r in 1 2 3 4; do test -f "$dir/model-0000$r-of-00004.safetensors"; done
"$nabla" launch -n 2 "$script" load "$dir/model"
"$nabla" "$script" full "$dir/model"
echo "reshard: 4 -> 2 and 4 -> 1 passed"
