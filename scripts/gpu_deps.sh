#!/usr/bin/env bash
# Downloads (never installs) the Debian 12 packages that nabla needs to build and run
# on a GPU machine that has no Debian packages of ours and no network: the headers and
# libraries of scripts/setup.sh's list, less Graphviz (that build uses
# -DNABLA_GRAPHVIZ=OFF) and fmt (unused), plus the runtime libraries they load. Runs
# HERE, on a Debian 12 machine whose apt reaches the mirror; scripts/gpu_build.sh
# unpacks the files THERE. The folder is git-ignored and travels as a carried path:
#   .gpu-deps/build/  headers, libraries and CMake files: what the build and the CUDA
#                     tests need (carry .gpu-deps/build alone for those)
#   .gpu-deps/data/   dataset-fashion-mnist, for the training scripts (carry .gpu-deps
#                     for both)
# Usage: bash scripts/gpu_deps.sh     (again to refresh; old .debs are replaced)
set -euo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${NABLA_GPU_DEPS_DIR:-$NABLA_ROOT/.gpu-deps}"
LIMIT_MIB=64  # what the device tool carries: the working tree and the carried paths

# Headers, CMake package files and the .so links to build against.
BUILD_PACKAGES=(tao-pegtl-dev doctest-dev nlohmann-json3-dev
                libdnnl-dev libopenblas-openmp-dev libedit-dev zlib1g-dev
                opencl-c-headers ocl-icd-opencl-dev  # oneDNN's CMake config asks for OpenCL
                libgloo-dev libhiredis-dev libibverbs-dev libnl-3-dev libnl-route-3-dev  # Gloo (dist)
                libprotobuf-dev protobuf-compiler)  # TensorBoard logs (interp/log/)
# The shared libraries behind them and what those load. The GPU machine's own copy of
# a library wins where it has one (scripts/gpu_build.sh checks each soname). Not
# libgomp1: OpenMP comes with that machine's compiler, and an older libgomp beside
# libdnnl.so would sit on nabla's rpath ahead of it.
RUNTIME_PACKAGES=(libdnnl2 libopenblas0-openmp libedit2 zlib1g ocl-icd-libopencl1
                  libgfortran5 libquadmath0 libbsd0 libmd0 libtinfo6
                  libgloo0 libhiredis0.14 libibverbs1 libnl-3-200 libnl-route-3-200
                  libprotobuf32 libprotoc32)
DATA_PACKAGES=(dataset-fashion-mnist)

say() { echo "gpu_deps: $*"; }
die() { echo "gpu_deps: error: $*" >&2; exit 1; }

command -v apt-get >/dev/null || die "needs apt-get (a Debian 12 machine)"

# amd64 packages whatever this machine is (the GPU machine is x86-64); on an amd64
# machine apt's own lists already hold them.
APT_OPTS=(-q -o APT::Sandbox::User=root)
if [ "$(dpkg --print-architecture)" != amd64 ]; then
  LISTS=/tmp/nabla-gpu-deps-amd64-lists
  mkdir -p "$LISTS/partial"
  APT_OPTS+=(-o APT::Architecture=amd64 -o APT::Architectures=amd64 -o Dir::State::Lists="$LISTS")
  say "this machine is $(dpkg --print-architecture): reading amd64 package lists into $LISTS"
  apt-get "${APT_OPTS[@]}" update
fi

# download FOLDER PACKAGE...: the .debs of PACKAGE... into FOLDER, replacing what it held.
download() {
  local folder=$1
  shift
  local fresh="$folder.new"
  rm -rf "$fresh"
  mkdir -p "$fresh"
  (cd "$fresh" && apt-get "${APT_OPTS[@]}" download "$@") ||
    die "apt-get download failed (is the mirror reachable? try apt-get update)"
  rm -rf "$folder"
  mv "$fresh" "$folder"
}

mkdir -p "$DEST"
say "downloading ${#BUILD_PACKAGES[@]} build and ${#RUNTIME_PACKAGES[@]} runtime packages into $DEST/build"
download "$DEST/build" "${BUILD_PACKAGES[@]}" "${RUNTIME_PACKAGES[@]}"
say "downloading ${DATA_PACKAGES[*]} into $DEST/data"
download "$DEST/data" "${DATA_PACKAGES[@]}"

# What is there, for the record (gpu_build.sh prints it too).
for deb in "$DEST"/build/*.deb "$DEST"/data/*.deb; do
  # shellcheck disable=SC2016  # dpkg-deb's own ${Package}, not the shell's
  dpkg-deb --showformat='${Package} ${Version}\n' -W "$deb"
done >"$DEST/packages.txt"

mib() { du -sm "$1" | cut -f1; }
tree_bytes=$(cd "$NABLA_ROOT" && git ls-files -z --cached --others --exclude-standard | { du -cb --files0-from=- 2>/dev/null || true; } | tail -n 1 | cut -f1)
tree_mib=$(((tree_bytes + 1048575) / 1048576))
build_mib=$(mib "$DEST/build")
data_mib=$(mib "$DEST/data")
say "sizes: .gpu-deps/build ${build_mib} MiB, .gpu-deps/data ${data_mib} MiB, working tree ${tree_mib} MiB"
say "carried with the tree: .gpu-deps/build $((build_mib + tree_mib)) MiB, all of .gpu-deps $((build_mib + data_mib + tree_mib)) MiB (limit $LIMIT_MIB MiB)"
if [ $((build_mib + data_mib + tree_mib)) -gt $((LIMIT_MIB - 4)) ]; then
  say "warning: .gpu-deps and the tree leave under 4 MiB of the limit: carry .gpu-deps/build alone unless a run needs Fashion-MNIST"
fi
say "done. On the GPU machine: bash scripts/gpu_build.sh, carrying .gpu-deps (see README.md)"
