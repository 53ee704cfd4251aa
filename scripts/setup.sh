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
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
          tao-pegtl-dev doctest-dev libdnnl-dev ocl-icd-opencl-dev libopenblas-openmp-dev libgloo-dev
          libfmt-dev nlohmann-json3-dev libgraphviz-dev fonts-dejavu-core libedit-dev zlib1g-dev
          dataset-fashion-mnist)
# The Jupyter kernel (interp/jupyter/) on xeus, and its tests: jupyter_kernel_test,
# jupyter_client (with pyzmq) and `jupyter nbconvert` (jupyter-nbconvert brings the
# `jupyter` command of jupyter-core) running examples/mlp.ipynb.
PACKAGES+=(xeus-dev libzmq3-dev cppzmq-dev xtl-dev nlohmann-json3-dev uuid-dev libssl-dev
           python3-jupyter-kernel-test python3-jupyter-client python3-zmq python3-nbconvert python3-nbclient
           python3-nbformat jupyter-nbconvert)
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

configure_and_build() {
  local jobs
  jobs=$(nproc)
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S "$NABLA_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${NABLA_CMAKE_ARGS:-}
  fi
  cmake --build "$BUILD_DIR" -j "$jobs"
}

install_missing
configure_and_build
