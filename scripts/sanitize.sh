#!/usr/bin/env bash
# The whole test suite under AddressSanitizer (LeakSanitizer included) and
# UndefinedBehaviorSanitizer (docs/hardening.md):
#
#   scripts/sanitize.sh [CTEST_ARGS...]     e.g. scripts/sanitize.sh -R test_interp
#
# Builds build-asan/ (-DNABLA_SANITIZE=address,undefined, CUDA off; the compiler is
# $CXX, else c++: gcc's sanitizers share its OpenMP runtime with oneDNN and
# OpenBLAS), runs ctest there with the options below, and prints
#
#   SANITIZE tests=N failed=F sanitizers=address,undefined
#
# which it also writes to build-asan/sanitize-result.txt when the whole suite ran
# (no CTEST_ARGS; scripts/hardening_report.sh reads it). Exit status: ctest's.
#
# On a shared machine, build under the lock in chunks (ninja picks up where it
# stopped): flock /tmp/nabla-build.lock timeout 300 scripts/sanitize.sh --build-only
set -uo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${NABLA_ASAN_BUILD_DIR:-$NABLA_ROOT/build-asan}"
SANITIZERS=address,undefined

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S "$NABLA_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNABLA_CUDA=OFF \
    -DNABLA_SANITIZE=$SANITIZERS >/dev/null || exit 1
fi
cmake --build "$BUILD_DIR" -j "$(nproc)" || exit 1
[ "${1:-}" = --build-only ] && exit 0

# Runtime options, each with its reason (docs/hardening.md, "Sanitizer options"):
#   detect_leaks=1                 LeakSanitizer at every process exit (the default on
#                                  Linux, said out loud: the REPL session test relies on it)
#   allocator_may_return_null=1    an impossible allocation returns null, as malloc does in
#                                  a normal build, so tests of nabla's out-of-memory error
#                                  (tests/tensor/) reach it instead of ASan's abort
#   halt_on_error=1 (UBSan)        the first report fails the test (with -fno-sanitize-recover)
#   print_stacktrace=1 (UBSan)     reports say how the code got there
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$NABLA_ROOT/tests/sanitizers/lsan.supp:print_suppressions=0}"

LOG="$BUILD_DIR/sanitize-ctest.log"
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 1200 "$@" 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
total=$(grep -oE 'tests passed, [0-9]+ tests failed out of [0-9]+' "$LOG" | grep -oE '[0-9]+$' | tail -n 1)
failed=$(grep -oE '[0-9]+ tests failed out of' "$LOG" | grep -oE '^[0-9]+' | tail -n 1)
line="SANITIZE tests=${total:-0} failed=${failed:-?} sanitizers=$SANITIZERS"
echo "$line"
[ $# -eq 0 ] && echo "$(date -u +%FT%TZ) $line" >"$BUILD_DIR/sanitize-result.txt"
exit "$status"
