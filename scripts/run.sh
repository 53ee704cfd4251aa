#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build, and run
# nabla with the given arguments (none: the REPL, once the language lands; a .dsl
# file: run it). Example: bash scripts/run.sh --list-ops
set -euo pipefail
NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$NABLA_ROOT/scripts/setup.sh"
exec "${NABLA_BUILD_DIR:-$NABLA_ROOT/build}/nabla" "$@"
