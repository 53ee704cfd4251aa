#!/usr/bin/env bash
# Every test suite on a fresh Debian 12 machine: install what is missing, build, and
# run ctest (doctest suites for tensor/, autograd/ and the op-table sweep, plus CLI
# checks). GPU tests skip with a message when no GPU is present. .ci/run calls this.
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$NABLA_ROOT/scripts/setup.sh"
cd "${NABLA_BUILD_DIR:-$NABLA_ROOT/build}"
# The default 8 MiB stack, even where the shell has more: deep programs must not
# pass here because of a generous limit (issue 25).
ulimit -s 8192
ctest --output-on-failure -j "$(nproc)"
