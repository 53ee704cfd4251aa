#!/usr/bin/env bash
# Builds nabla on a GPU machine that has CUDA (nvcc), CMake, a C++ compiler and
# PyTorch's pip packages (cuDNN among them) but none of our Debian packages and no
# network, then runs the CUDA tests. Runs THERE, from the repository root, with the
# .debs of scripts/gpu_deps.sh carried in .gpu-deps/ (see README.md):
#
#   bash scripts/gpu_build.sh [COMMAND [ARG...]]
#
# 1. unpacks every .gpu-deps/**/*.deb into $NABLA_DEPS_ROOT (/tmp/nabla-deps), never /;
# 2. configures build-gpu/ with -DNABLA_CUDA=ON -DNABLA_GRAPHVIZ=OFF -DNABLA_JUPYTER=OFF -DNABLA_ONNX=OFF, finding the
#    headers, libraries and CMake packages there and cuDNN in the nvidia-cudnn pip
#    package (-DCUDNN_ROOT), and builds it on every core;
# 3. runs `ctest -L cuda --output-on-failure` in build-gpu/;
# 4. runs COMMAND, when given, in the same environment (LD_LIBRARY_PATH set), e.g.
#    build-gpu/nabla_bench or build-gpu/nabla scripts/fashion_mnist_mlp.dsl.
# It exits non-zero when the build, a test or COMMAND failed.
#
# Environment:
#   NABLA_GPU_BUILD_DIR     build folder (build-gpu)
#   NABLA_GPU_CTEST_ARGS    ctest's selection ("-L cuda"); "all" runs every test, "none" none
#   NABLA_GPU_TARGETS       build only these targets (space-separated; default all)
#   NABLA_CUDA_ARCH         CMAKE_CUDA_ARCHITECTURES (default: the GPU's, from nvidia-smi)
#   NABLA_CMAKE_ARGS        more cmake arguments
#   NABLA_DEPS_ROOT         where the packages are unpacked (/tmp/nabla-deps)
#   NABLA_GPU_ALL_CARRIED_LIBS=1  put every carried library on LD_LIBRARY_PATH, even
#                           those the machine has (to try this script where they are)
set -euo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$NABLA_ROOT"
DEPS="${NABLA_DEPS_ROOT:-/tmp/nabla-deps}"
BUILD_DIR="${NABLA_GPU_BUILD_DIR:-build-gpu}"
CTEST_ARGS="${NABLA_GPU_CTEST_ARGS:--L cuda}"
[ "$CTEST_ARGS" = all ] && CTEST_ARGS=""
ARCH_LIBDIR=lib/x86_64-linux-gnu  # Debian's multiarch folder (the packages are amd64)

say() { echo "gpu_build: $*"; }
die() { echo "gpu_build: error: $*" >&2; exit 1; }

# --- 1. unpack the carried packages ------------------------------------------------

# unpack_deb DEB DIR: dpkg-deb -x where dpkg is; otherwise Python reads the ar archive
# and its data.tar.* (xz, gz, zst if the zstandard module is there).
unpack_deb() {
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$1" "$2"
    return
  fi
  python3 - "$1" "$2" <<'EOF'
import io, sys, tarfile
deb, dest = sys.argv[1], sys.argv[2]
with open(deb, "rb") as f:
    data = f.read()
assert data[:8] == b"!<arch>\n", f"{deb}: not a .deb (ar archive)"
pos = 8
while pos < len(data):
    name = data[pos:pos + 16].decode().strip().rstrip("/")
    size = int(data[pos + 48:pos + 58].decode().strip())
    body = data[pos + 60:pos + 60 + size]
    pos += 60 + size + (size & 1)
    if name.startswith("data.tar"):
        if name.endswith(".zst"):
            import zstandard
            body = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(body)).read()
        # "tar": keep absolute symlinks (fixed up below), which the "data" filter refuses.
        kw = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
        tarfile.open(fileobj=io.BytesIO(body)).extractall(dest, **kw)
        break
else:
    sys.exit(f"{deb}: no data.tar member")
EOF
}

unpack_all() {
  local debs stamp
  mapfile -t debs < <(find .gpu-deps -name '*.deb' -not -path '*.new/*' 2>/dev/null | sort)
  [ ${#debs[@]} -gt 0 ] || die "no .gpu-deps/**/*.deb here: run 'bash scripts/gpu_deps.sh' on the Debian machine and carry .gpu-deps (README.md, 'Building on a GPU machine')"
  stamp="$(printf '%s\n' "${debs[@]}" | xargs -d '\n' ls -l | md5sum | cut -d' ' -f1)"
  if [ -f "$DEPS/.unpacked" ] && [ "$(cat "$DEPS/.unpacked")" = "$stamp" ]; then
    say "packages already unpacked in $DEPS"
    return
  fi
  say "unpacking ${#debs[@]} packages into $DEPS"
  if [ -f .gpu-deps/packages.txt ]; then say "packages: $(tr ' ' '=' <.gpu-deps/packages.txt | paste -sd' ' -)"; fi
  rm -rf "$DEPS"
  mkdir -p "$DEPS"
  local deb
  for deb in "${debs[@]}"; do unpack_deb "$deb" "$DEPS"; done
  # Absolute links (libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13) point into /:
  # point them at the unpacked file instead.
  local link target
  while IFS= read -r link; do
    target="$(readlink "$link")"
    if [[ "$target" == /* ]] && [ -e "$DEPS$target" ]; then ln -sfn "$DEPS$target" "$link"; fi
  done < <(find "$DEPS" -type l)
  # Gloo's CMake package names its library by absolute path (/usr/lib/libgloo.so.0.5.0)
  # and stops the configure step when that file is missing: point it at the unpacked one.
  local gloo
  for gloo in "$DEPS"/usr/share/cmake/Gloo/GlooTargets-*.cmake; do
    [ -e "$gloo" ] && sed -i "s#\"/usr/lib/#\"$DEPS/usr/lib/#g" "$gloo"
  done
  echo "$stamp" >"$DEPS/.unpacked"
}

# Whether LIB's file name is its SONAME, the name the loader looks for (libfoo.so.5,
# libhiredis.so.0.14), rather than a fuller version (libfoo.so.5.0.0).
is_soname_file() {
  local name
  name="$(basename "$1")"
  if command -v readelf >/dev/null; then
    [ "$(readelf -d "$1" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = "$name" ]
  else
    [[ "$name" =~ ^lib.*\.so\.[0-9]+(\.[0-9]+)?$ ]]
  fi
}

# The carried libraries that this machine lacks (by soname), linked into one folder
# for LD_LIBRARY_PATH: the machine's own libtinfo or libgomp stays in use where it has
# one. nabla's direct libraries (oneDNN, OpenBLAS, libedit) come through the rpath.
runtime_lib_dir() {
  local dir="$DEPS/lib-path" lib name known
  rm -rf "$dir"
  mkdir -p "$dir"
  known="$(ldconfig -p 2>/dev/null || true)"  # read once: `ldconfig -p | grep -q` dies of SIGPIPE
  for lib in "$DEPS/$ARCH_LIBDIR"/lib*.so.* "$DEPS/usr/$ARCH_LIBDIR"/lib*.so.*; do
    [ -e "$lib" ] || continue
    name="$(basename "$lib")"
    is_soname_file "$lib" || continue
    if [ "${NABLA_GPU_ALL_CARRIED_LIBS:-0}" = 1 ] || ! grep -q "^[[:space:]]*$name " <<<"$known"; then
      ln -sfn "$lib" "$dir/$name"
    fi
  done
  echo "$dir"
}

# --- 2. configure and build --------------------------------------------------------

cudnn_root() {
  python3 -c 'import nvidia.cudnn as m, os; print(os.path.dirname(m.__file__) if m.__file__ else list(m.__path__)[0])' 2>/dev/null || true
}

cuda_arch() {
  if [ -n "${NABLA_CUDA_ARCH:-}" ]; then echo "$NABLA_CUDA_ARCH"; return; fi
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ' || true
}

configure() {
  local cudnn arch generator=()
  command -v cmake >/dev/null || die "no cmake on PATH"
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || die "no nvcc on PATH or in /usr/local/cuda/bin"
  command -v ninja >/dev/null && generator=(-G Ninja)
  CMAKE_ARGS=(-S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
              -DNABLA_CUDA=ON -DNABLA_GRAPHVIZ=OFF -DNABLA_JUPYTER=OFF -DNABLA_ONNX=OFF
              -DCMAKE_PREFIX_PATH="$DEPS/usr"
              -DCMAKE_LIBRARY_PATH="$DEPS/usr/$ARCH_LIBDIR;$DEPS/$ARCH_LIBDIR"
              -DCMAKE_INCLUDE_PATH="$DEPS/usr/include;$DEPS/usr/include/x86_64-linux-gnu"
              -Ddnnl_DIR="$DEPS/usr/$ARCH_LIBDIR/cmake/dnnl"
              -Ddoctest_DIR="$DEPS/usr/lib/cmake/doctest")
  cudnn="$(cudnn_root)"
  if [ -n "$cudnn" ] && [ -d "$cudnn/lib" ]; then
    say "cuDNN from the nvidia-cudnn pip package: $cudnn"
    CMAKE_ARGS+=(-DCUDNN_ROOT="$cudnn")
    CUDNN_LIB="$cudnn/lib"
  else
    say "warning: python3 finds no nvidia.cudnn package (pip nvidia-cudnn-cu13): no CUDNN_ROOT, so CMake looks for cuDNN in the CUDA toolkit only"
  fi
  arch="$(cuda_arch)"
  if [ -n "$arch" ]; then
    say "CUDA architecture $arch"
    CMAKE_ARGS+=(-DCMAKE_CUDA_ARCHITECTURES="$arch")
  fi
  # shellcheck disable=SC2206  # NABLA_CMAKE_ARGS is a word list on purpose
  CMAKE_ARGS+=(${NABLA_CMAKE_ARGS:-})
  say "cmake ${CMAKE_ARGS[*]}"
  cmake "${CMAKE_ARGS[@]}"
}

build() {
  local targets=()
  # shellcheck disable=SC2206
  [ -n "${NABLA_GPU_TARGETS:-}" ] && targets=(--target ${NABLA_GPU_TARGETS})
  say "building with $(nproc) jobs"
  cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}"
}

# The training scripts read Fashion-MNIST from /usr/share/datasets/fashion-mnist (the
# Debian package's folder). With .gpu-deps/data carried, a link puts it there.
link_dataset() {
  local carried="$DEPS/usr/share/datasets/fashion-mnist" wanted=/usr/share/datasets/fashion-mnist
  [ -d "$carried" ] || return 0
  [ -e "$wanted" ] && return 0
  if mkdir -p "$(dirname "$wanted")" 2>/dev/null && ln -s "$carried" "$wanted" 2>/dev/null; then
    say "Fashion-MNIST: $wanted -> $carried"
  else
    say "warning: cannot link $wanted to $carried (not root?): the training scripts will not find Fashion-MNIST"
  fi
}

# --- main --------------------------------------------------------------------------

say "on $(hostname): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || echo 'no nvidia-smi')"
unpack_all
CUDNN_LIB=""
LIB_PATH="$(runtime_lib_dir)"
# protoc, which configure checks and the build runs (TensorBoard's schema,
# interp/log/proto), loads the carried libprotoc and libprotobuf.
BUILD_LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
export LD_LIBRARY_PATH="$LIB_PATH${BUILD_LD_LIBRARY_PATH:+:$BUILD_LD_LIBRARY_PATH}"
configure
build
link_dataset

export LD_LIBRARY_PATH="$LIB_PATH${CUDNN_LIB:+:$CUDNN_LIB}${BUILD_LD_LIBRARY_PATH:+:$BUILD_LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$DEPS/usr/$ARCH_LIBDIR/pkgconfig:$DEPS/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
say "carried libraries this machine lacks: $(find "$LIB_PATH" -mindepth 1 -printf '%f ')"
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
"$BUILD_DIR/nabla" --version

status=0
if [ "$CTEST_ARGS" != none ]; then
  say "ctest${CTEST_ARGS:+ $CTEST_ARGS} --output-on-failure"
  # shellcheck disable=SC2086
  (cd "$BUILD_DIR" && ctest $CTEST_ARGS --output-on-failure) || status=$?
  [ "$status" = 0 ] || say "ctest failed (status $status)"
fi
if [ $# -gt 0 ]; then
  say "running: $*"
  "$@" || { rc=$?; say "'$*' failed (status $rc)"; status=$rc; }
fi
exit "$status"
