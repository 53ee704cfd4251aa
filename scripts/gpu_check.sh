#!/usr/bin/env bash
# Every GPU check of the CUDA backend in one device call, each stage under its own time
# limit so that one slow stage cannot eat the others (a lent machine has 15 minutes a
# session). Runs THERE, from the repository root, with .gpu-deps carried:
#
#   bash scripts/gpu_check.sh [STAGE...]
#
# It builds through scripts/gpu_build.sh (the CUDA tests run there, as `ctest -L cuda`),
# then runs the stages in order. Stages:
#   bench   scripts/bench/cuda_bench.py: GEMM and conv2d throughput against PyTorch
#   train   scripts/bench/cuda_train.py: MLP and CNN Fashion-MNIST epochs, launch overhead
#   replay  scripts/bench/cuda_replay.dsl: the CNN step eager, compiled, and replayed as a CUDA graph
#   ops     scripts/bench/cuda_ops.py: conv1d, conv_transpose2d, group_norm, interpolate, sort,
#           topk, masked attention and the LSTM against PyTorch
#   none    nothing: the build and the CUDA tests only
# (default: bench train replay ops). Each stage's output goes to $OUT/<stage>.log (the device
# tool's folder that comes back; /tmp/gpu-check elsewhere), and its tail to stdout.
#
# Environment: GPU_CHECK_CTEST_LIMIT, GPU_CHECK_BENCH_LIMIT, GPU_CHECK_TRAIN_LIMIT, GPU_CHECK_REPLAY_LIMIT,
# GPU_CHECK_OPS_LIMIT
# (seconds), GPU_CHECK_ROUNDS (benchmark rounds, 3), GPU_CHECK_EPOCHS (2),
# GPU_CHECK_TORCH_COMPILE=1 (the train stage also times torch.compile's reduce-overhead
# mode; its compiling takes minutes), and those of
# scripts/gpu_build.sh.
set -uo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$NABLA_ROOT"
LOGS="${OUT:-/tmp/gpu-check}"
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1

# run_stage NAME LIMIT COMMAND...: COMMAND under `timeout`, its output in $LOGS/NAME.log.
run_stage() {
  local name=$1 limit=$2 start=$SECONDS rc
  shift 2
  echo "gpu_check: stage $name (limit ${limit}s): $*"
  timeout -k 5 "$limit" "$@" >"$LOGS/$name.log" 2>&1
  rc=$?
  echo "gpu_check: stage $name: status $rc after $((SECONDS - start))s$([ $rc = 124 ] && echo ' (time limit)')"
  tail -n 25 "$LOGS/$name.log"
  return $rc
}

# Called back by gpu_build.sh after the build and the CUDA tests, in its environment.
if [ "${1:-}" = --stages ]; then
  shift
  status=0
  for stage in "$@"; do
    case "$stage" in
      bench) run_stage bench "${GPU_CHECK_BENCH_LIMIT:-240}" \
               python3 scripts/bench/cuda_bench.py --rounds "${GPU_CHECK_ROUNDS:-3}" || status=1 ;;
      train) run_stage train "${GPU_CHECK_TRAIN_LIMIT:-240}" \
               python3 scripts/bench/cuda_train.py --nabla "${NABLA_GPU_BUILD_DIR:-build-gpu}/nabla" \
               --rounds "${GPU_CHECK_ROUNDS:-3}" --epochs "${GPU_CHECK_EPOCHS:-2}" \
               ${GPU_CHECK_TORCH_COMPILE:+--torch-compile} || status=1 ;;
      replay) run_stage replay "${GPU_CHECK_REPLAY_LIMIT:-120}" \
                "${NABLA_GPU_BUILD_DIR:-build-gpu}/nabla" scripts/bench/cuda_replay.dsl || status=1 ;;
      ops) run_stage ops "${GPU_CHECK_OPS_LIMIT:-150}" \
             python3 scripts/bench/cuda_ops.py --nabla "${NABLA_GPU_BUILD_DIR:-build-gpu}/nabla" \
             --rounds "${GPU_CHECK_ROUNDS:-3}" || status=1 ;;
      none) ;;  # the build and the CUDA tests only
      *) echo "gpu_check: unknown stage '$stage' (known: bench train replay ops none)"; status=2 ;;
    esac
  done
  exit $status
fi

[ $# -gt 0 ] || set -- bench train replay ops
export NABLA_BUILD_DIR="${NABLA_GPU_BUILD_DIR:-build-gpu}"  # where cuda_bench.py finds nabla
export NABLA_GPU_TARGETS="${NABLA_GPU_TARGETS:-nabla test_tensor test_ops test_plot}"
export NABLA_GPU_CTEST_ARGS="${NABLA_GPU_CTEST_ARGS:--L cuda --timeout ${GPU_CHECK_CTEST_LIMIT:-180}}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu_check: /'
echo "gpu_check: $(nvcc --version 2>/dev/null | tail -n 1); $(python3 -c 'import torch; print("torch", torch.__version__)' 2>&1)"
start=$SECONDS
bash scripts/gpu_build.sh bash "$0" --stages "$@" 2>&1 | tee "$LOGS/build_and_tests.log" |
  grep -v -E '^\[[0-9]+/[0-9]+\] (Building|Linking)'  # the full build log is in the file
status=$?
echo "gpu_check: finished with status $status after $((SECONDS - start))s"
exit $status
