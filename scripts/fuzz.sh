#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/ (docs/hardening.md):
#
#   scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_ARGS...]   one target (parser_eval, safetensors, idx, ir_parse, structured)
#   scripts/fuzz.sh all SECONDS [LIBFUZZER_ARGS...]      each target in turn, SECONDS each
#
# Builds build-fuzz/ first when needed (clang, -DNABLA_FUZZ=ON: ASan and UBSan with
# libFuzzer's coverage, CUDA off). Each target runs as one process, its seeds from
# tests/fuzz/corpus/TARGET/ (read only) and its growing corpus in
# build-fuzz/corpus/TARGET/. Prints one line per target:
#
#   FUZZ target=parser_eval execs=N crashes=0 seconds=S
#
# and appends it to build-fuzz/fuzz-runs.log (scripts/hardening_report.sh sums that
# file). A crash, leak, timeout or out-of-memory input is kept in
# build-fuzz/findings/TARGET/ and the script exits 1; replay one with
# build-fuzz/tests/fuzz/fuzz_TARGET FILE, then keep it as a regression in
# tests/fuzz/regressions/TARGET/ once fixed.
#
# On a shared machine run it under the build lock, in chunks of a few minutes:
#   flock /tmp/nabla-build.lock scripts/fuzz.sh all 60
set -uo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${NABLA_FUZZ_BUILD_DIR:-$NABLA_ROOT/build-fuzz}"
TARGETS=(parser_eval safetensors idx ir_parse structured)

usage() {
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS [LIBFUZZER_ARGS...]  (targets: ${TARGETS[*]})" >&2
  exit 2
}

[ $# -ge 2 ] || usage
WHICH=$1
SECONDS_EACH=$2
shift 2
[[ "$SECONDS_EACH" =~ ^[0-9]+$ ]] && [ "$SECONDS_EACH" -gt 0 ] || usage
if [ "$WHICH" = all ]; then
  RUN=("${TARGETS[@]}")
elif [[ " ${TARGETS[*]} " == *" $WHICH "* ]]; then
  RUN=("$WHICH")
else
  usage
fi

build() {
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S "$NABLA_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DNABLA_FUZZ=ON -DNABLA_CUDA=OFF -DBUILD_TESTING=OFF >/dev/null || exit 1
  fi
  local targets=()
  for t in "${RUN[@]}"; do targets+=(--target "fuzz_$t"); done
  cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}" >"$BUILD_DIR/fuzz-build.log" 2>&1 || {
    tail -n 30 "$BUILD_DIR/fuzz-build.log" >&2
    echo "fuzz.sh: the build failed (whole log: $BUILD_DIR/fuzz-build.log)" >&2
    exit 1
  }
}

# Longer inputs for the text targets, whose seeds are whole programs and IR files.
max_len() {
  case $1 in
    parser_eval | ir_parse) echo 8192 ;;
    structured) echo 64 ;;  # choice bytes: the generator writes the program
    *) echo 4096 ;;
  esac
}

# parser_eval and structured check leaks themselves, once per interpreter (tests/fuzz/harness.cpp):
# libFuzzer's per-input check would scan the heap after every input.
leak_option() {
  case $1 in parser_eval | structured) echo -detect_leaks=0 ;; esac
}

# fuzz_one TARGET: runs it, prints and records its FUZZ line; returns 1 on a finding.
fuzz_one() {
  local t=$1 log corpus findings dict=() execs crashes before after
  shift
  log="$BUILD_DIR/logs/$t.log"
  corpus="$BUILD_DIR/corpus/$t"
  findings="$BUILD_DIR/findings/$t"
  mkdir -p "$BUILD_DIR/logs" "$corpus" "$findings"
  [ -f "$NABLA_ROOT/tests/fuzz/$t.dict" ] && dict=(-dict="$NABLA_ROOT/tests/fuzz/$t.dict")
  before=$(find "$findings" -type f | wc -l)
  # One OpenMP thread (the harness asks too). ASan: allocator_may_return_null lets an
  # impossible malloc reach nabla's own out-of-memory error, as in a normal build;
  # allocation stacks of 2 frames and a smaller quarantine (64 MiB) more than double
  # the executions per second (the interpreter allocates a lot). Not 0 frames:
  # LeakSanitizer then reports no leak at all. Replay a finding with the defaults
  # for whole stacks.
  OMP_NUM_THREADS=1 ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=1:malloc_context_size=2:quarantine_size_mb=64}" \
    "$BUILD_DIR/tests/fuzz/fuzz_$t" "$corpus" "$NABLA_ROOT/tests/fuzz/corpus/$t" \
    -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=4096 -max_len="$(max_len "$t")" \
    -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" $(leak_option "$t") "$@" >"$log" 2>&1
  after=$(find "$findings" -type f | wc -l)
  crashes=$((after - before))
  # Fork mode's parent counts every job in its '#N: cov: ...' lines; a crash makes it
  # print the crashing job's own stats (a small count) as well, so take the largest.
  execs=$({
    grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$'
    grep -oE '^#[0-9]+' "$log" | tr -d '#'
  } | sort -n | tail -n 1)
  local line="FUZZ target=$t execs=${execs:-0} crashes=$crashes seconds=$SECONDS_EACH"
  echo "$line"
  echo "$(date -u +%FT%TZ) $line" >>"$BUILD_DIR/fuzz-runs.log"
  if [ "$crashes" -gt 0 ]; then
    echo "fuzz.sh: $t: $crashes finding(s) in $findings (log: $log):" >&2
    grep -m 3 -E 'ERROR|runtime error|property broken|SUMMARY' "$log" >&2
    return 1
  fi
}

mkdir -p "$BUILD_DIR"
build
status=0
for t in "${RUN[@]}"; do
  fuzz_one "$t" "$@" || status=1
done
exit $status
