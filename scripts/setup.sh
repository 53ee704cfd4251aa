#!/usr/bin/env bash
# Installs the Debian packages nabla needs (when some are missing and we are root),
# then configures and builds into build/ (Release, Ninja). Sourced by run.sh,
# test.sh and bench.sh; safe to run again: a rebuild with nothing changed takes
# seconds.
set -euo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${NABLA_BUILD_DIR:-$NABLA_ROOT/build}"

# Build tools and libraries (Debian 12 package names). See README.md.
# libgraphviz-dev brings libgvc6, whose plugin directory holds the dot-layout and
# core plugins that viz/ links and the gd plugin it loads for PNG; PNG text needs a
# TrueType font that fontconfig finds (fonts-dejavu-core). oneDNN's CMake config
# (dnnl-config.cmake) calls find_package(OpenCL), which libdnnl-dev only recommends
# and --no-install-recommends skips: ocl-icd-opencl-dev brings the headers and libOpenCL.
# libgloo-dev: the CPU collectives of dist (issue 8).
# libplplot-dev: PLplot for `import plot` (viz/plot/); its libplplot17 holds the svg
# and mem drivers used, and libplplot-data the Hershey fonts of PNG text (no X, no
# fontconfig needed).
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
          tao-pegtl-dev doctest-dev libdnnl-dev ocl-icd-opencl-dev libopenblas-openmp-dev libgloo-dev
          libfmt-dev nlohmann-json3-dev libgraphviz-dev fonts-dejavu-core libedit-dev zlib1g-dev
          dataset-fashion-mnist
          libplplot-dev)
# jemalloc: the process's malloc (Note [malloc is jemalloc] in CMakeLists.txt).
PACKAGES+=(libjemalloc-dev)
# TensorBoard logs (import log, interp/log/): libprotobuf-dev and protobuf-compiler
# build the event schema's classes; python3-protobuf, python3-numpy and python3-pil
# read the events files back in the log_read_back test.
PACKAGES+=(libprotobuf-dev protobuf-compiler python3-protobuf python3-numpy python3-pil)
# ONNX export (graph/onnx/, docs/onnx.md): libonnx's protobuf classes write the models;
# python3-onnx (onnx.checker) and ONNX Runtime through node check them (tests/onnx/).
PACKAGES+=(libonnx-dev libprotobuf-dev python3-onnx)
# node and npm from Debian, unless the machine already has them (a NodeSource nodejs
# carries its own npm and conflicts with Debian's npm package).
command -v npm >/dev/null && command -v node >/dev/null || PACKAGES+=(nodejs npm)
# The Jupyter kernel (interp/jupyter/) on xeus, and its tests: jupyter_kernel_test,
# jupyter_client (with pyzmq) and `jupyter nbconvert` (jupyter-nbconvert brings the
# `jupyter` command of jupyter-core) running examples/mlp.ipynb.
PACKAGES+=(xeus-dev libzmq3-dev cppzmq-dev xtl-dev nlohmann-json3-dev uuid-dev libssl-dev
           python3-jupyter-kernel-test python3-jupyter-client python3-zmq python3-nbconvert python3-nbclient
           python3-nbformat jupyter-nbconvert)
# iproute2: `ip netns` and veth pairs for the two-node launch test (dist_fsdp_multinode).
PACKAGES+=(iproute2)
PACKAGES+=("$@")

missing_packages() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

install_missing() {
  local missing
  missing=$(missing_packages)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "nabla setup: missing Debian packages:" $missing >&2
    echo "run as root, or: sudo apt-get install -y" $missing >&2
    exit 1
  fi
  echo "nabla setup: installing" $missing
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

# ONNX Runtime for node, pinned: 1.30.0 declares no node engine (Debian 12's node 18
# runs its N-API v6 binding) and carries the linux x64 libonnxruntime in the package.
# --ignore-scripts skips its install script, which downloads binaries for other
# platforms and fails offline; tests/onnx/ort_loader.js finds it in .deps/node.
ORT_NODE_VERSION=1.30.0
install_onnxruntime_node() {
  local prefix="$NABLA_ROOT/.deps/node"
  local manifest="$prefix/node_modules/onnxruntime-node/package.json"
  if [ -f "$manifest" ] && grep -q "\"version\": \"$ORT_NODE_VERSION\"" "$manifest"; then return 0; fi
  echo "nabla setup: installing onnxruntime-node@$ORT_NODE_VERSION into $prefix"
  npm install --ignore-scripts --no-audit --no-fund --prefix "$prefix" "onnxruntime-node@$ORT_NODE_VERSION"
}

configure_and_build() {
  local jobs
  jobs=$(nproc)
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S "$NABLA_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${NABLA_CMAKE_ARGS:-}
  fi
  cmake --build "$BUILD_DIR" -j "$jobs"
}

install_missing
install_onnxruntime_node
configure_and_build
