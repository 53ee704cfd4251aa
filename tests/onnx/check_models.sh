#!/bin/bash
# Exported models checked by ONNX's tools: tests/onnx/export_models.dsl (the MLP, the
# CNN with BatchNorm folded, the char transformer, the int8 CNN) and export_ops.dsl
# (small functions covering the op mapping) write models and nabla's outputs;
# onnx.checker (python3-onnx, full_check) reads every model, and ONNX Runtime
# (onnxruntime-node, from scripts/setup.sh) runs it and compares with nabla's outputs
# (1e-5). A missing tool fails the test, naming what installs it.
#   bash tests/onnx/check_models.sh NABLA ROOT
set -euo pipefail
nabla=$1
root=$2
out=$(mktemp -d /tmp/nabla_onnx_models.XXXXXX)
trap 'rm -rf "$out"' EXIT
command -v node >/dev/null || { echo "check_models: node not found (scripts/setup.sh installs nodejs)"; exit 1; }
"$nabla" "$root/tests/onnx/export_models.dsl" "$out"
"$nabla" "$root/tests/onnx/export_ops.dsl" "$out"
/usr/bin/python3 "$root/tests/onnx/check_model.py" "$out"/*.onnx
node "$root/tests/onnx/run_ort.js" "$out"
echo "onnx: $(ls "$out"/*.onnx | wc -l) models checked"
