#!/usr/bin/env bash
# The training scripts' --plot PATH (scripts/training_plot.dsl): the option may come
# before the positional arguments, the figure is written (SVG: one polyline of the train
# loss and one of the test accuracy, each with its legend sample; PNG: a PNG), and
# plotting does not change training (the same test accuracy as a run without it).
#   training_plot_test.sh NABLA REPO_ROOT
set -euo pipefail
nabla=$1
cd "$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "training plot: FAILED: $*"; exit 1; }

plotted=$("$nabla" scripts/fashion_mnist_mlp.dsl --plot "$dir/loss.svg" 2 2000 | grep test_accuracy)
plain=$("$nabla" scripts/fashion_mnist_mlp.dsl 2 2000 | grep test_accuracy)
[[ "${plotted#*test_accuracy=}" == "${plain#*test_accuracy=}" ]] || fail "--plot changed training: '$plotted' vs '$plain'"
head -c 5 "$dir/loss.svg" | grep -q '<?xml' || fail "loss.svg is not SVG"
loss_lines=$(grep -c 'stroke="#1F77B4"' "$dir/loss.svg")
accuracy_lines=$(grep -c 'stroke="#FF7F0E"' "$dir/loss.svg")
[[ $loss_lines == 2 && $accuracy_lines == 2 ]] || fail "expected 2 + 2 polylines, got $loss_lines + $accuracy_lines"

"$nabla" scripts/fashion_mnist_cnn.dsl 1 640 --plot "$dir/cnn.png" | grep -q "wrote $dir/cnn.png" || fail "cnn: no 'wrote'"
[[ $(head -c 8 "$dir/cnn.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "cnn.png is not a PNG"
bare=$("$nabla" scripts/fashion_mnist_mlp.dsl 1 100 --plot 2>&1 || true)
grep -q -- "--plot needs a path" <<<"$bare" || fail "a bare --plot is not an error: $bare"
echo "training plot: all checks passed"
