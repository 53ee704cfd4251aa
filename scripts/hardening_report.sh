#!/usr/bin/env bash
# The hardening report (docs/hardening.md): fuzzing, sanitizers, crash safety and
# malformed inputs, one HARDEN line each, then whether the targets are met.
#
#   scripts/hardening_report.sh [--fuzz SECONDS] [--sanitize] [--crash-runs N] [--exit-runs N]
#
#   --fuzz SECONDS   first fuzz every target SECONDS more (scripts/fuzz.sh all SECONDS)
#   --sanitize       first run the whole ctest under ASan and UBSan (scripts/sanitize.sh)
#   --crash-runs N   kill-during-save runs of tests/hardening/crash_safety.sh (default 200)
#   --exit-runs N    first run N generated hostile programs as processes to their exit
#                    (fuzz_exit_runner of the normal build, sizes up to 10^6)
#
# Fuzzing figures add up the runs that scripts/fuzz.sh recorded in
# build-fuzz/fuzz-runs.log since each target's last finding (a finding is fixed, kept
# as a regression, and the count starts again); the sanitizer line is the last whole
# run of scripts/sanitize.sh (build-asan/sanitize-result.txt). Exit status 0 when
# every target is met: at least 1e6 executions and no crash per fuzz target (1e4 for
# `structured`, whose inputs are whole deep programs), the sanitizers clean, 0
# corrupt loads in at least 200 kill-during-save runs, and at least 2000 generated
# programs run to their exit with no crash or hang (the last --exit-runs run, kept in
# build/exit-runs.log).
set -uo pipefail

NABLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_LOG="${NABLA_FUZZ_BUILD_DIR:-$NABLA_ROOT/build-fuzz}/fuzz-runs.log"
SANITIZE_RESULT="${NABLA_ASAN_BUILD_DIR:-$NABLA_ROOT/build-asan}/sanitize-result.txt"
CRASH_SAFETY="$NABLA_ROOT/tests/hardening/crash_safety.sh"
EXIT_RUNNER="${NABLA_BUILD_DIR:-$NABLA_ROOT/build}/tests/fuzz_exit_runner"
EXIT_LOG="${NABLA_BUILD_DIR:-$NABLA_ROOT/build}/exit-runs.log"
TARGETS=(parser_eval safetensors idx ir_parse structured)
MIN_EXECS=1000000
MIN_EXECS_STRUCTURED=10000
MIN_CRASH_RUNS=200
MIN_EXIT_RUNS=2000

fuzz_seconds=0 sanitize=0 crash_runs=$MIN_CRASH_RUNS exit_runs=0
while [ $# -gt 0 ]; do
  case $1 in
    --fuzz) fuzz_seconds=${2:?--fuzz needs SECONDS}; shift 2 ;;
    --sanitize) sanitize=1; shift ;;
    --crash-runs) crash_runs=${2:?--crash-runs needs N}; shift 2 ;;
    --exit-runs) exit_runs=${2:?--exit-runs needs N}; shift 2 ;;
    *) echo "usage: scripts/hardening_report.sh [--fuzz SECONDS] [--sanitize] [--crash-runs N] [--exit-runs N]" >&2; exit 2 ;;
  esac
done

[ "$fuzz_seconds" -gt 0 ] && { bash "$NABLA_ROOT/scripts/fuzz.sh" all "$fuzz_seconds" >/dev/null; }
[ "$sanitize" = 1 ] && { bash "$NABLA_ROOT/scripts/sanitize.sh" >/dev/null 2>&1; }
if [ "$exit_runs" -gt 0 ]; then
  "$EXIT_RUNNER" "${NABLA_BUILD_DIR:-$NABLA_ROOT/build}/nabla" "$exit_runs" --seed "$(date +%s)" --max-size 1000000 \
    --jobs 2 --findings "${NABLA_BUILD_DIR:-$NABLA_ROOT/build}/exit-findings" >"$EXIT_LOG" 2>&1
fi

met=1
unmet() { met=0; echo "  target not met: $*"; }

echo "nabla hardening report, $(date -u +%FT%TZ), $(git -C "$NABLA_ROOT" rev-parse --short HEAD 2>/dev/null)"

# ---- fuzzing: per target, the runs since its last finding ----
all_execs=0
for t in "${TARGETS[@]}"; do
  # Log lines: DATE FUZZ target=T execs=N crashes=C seconds=S
  read -r execs crashes runs seconds earlier < <(
    awk -v t="target=$t" '$3 == t {
        split($4, e, "="); split($5, c, "="); split($6, s, "=")
        if (c[2] > 0) { found += 1; n = 0; x = 0; secs = 0; last = c[2] }
        else { last = 0; n += 1; x += e[2]; secs += s[2] }
      }
      END { printf "%d %d %d %d %d\n", x, last, n, secs, found - (last > 0) }' "$FUZZ_LOG" 2>/dev/null || echo "0 0 0 0 0")
  all_execs=$((all_execs + ${execs:-0}))
  echo "HARDEN fuzz target=$t execs=${execs:-0} crashes=${crashes:-0} runs=${runs:-0} seconds=${seconds:-0} earlier_findings_fixed=${earlier:-0}"
  want=$MIN_EXECS
  [ "$t" = structured ] && want=$MIN_EXECS_STRUCTURED
  [ "${execs:-0}" -ge $want ] || unmet "fuzz $t: ${execs:-0} executions since its last finding (want $want)"
  [ "${crashes:-0}" = 0 ] || unmet "fuzz $t: an open finding in build-fuzz/findings/$t/"
done
regressions=$(find "$NABLA_ROOT/tests/fuzz/regressions" -type f 2>/dev/null | wc -l)
seeds=$(find "$NABLA_ROOT/tests/fuzz/corpus" -type f | wc -l)
echo "HARDEN fuzz_replay seeds=$seeds regressions=$regressions (ctest test_fuzz_replay, every build)"

# ---- sanitizers: the last whole-suite run ----
if [ -f "$SANITIZE_RESULT" ]; then
  read -r when line < "$SANITIZE_RESULT"
  echo "HARDEN sanitizers ${line#SANITIZE } at=$when (repl_leak_session included: LeakSanitizer on a long REPL session)"
  [[ "$line" == *" failed=0 "* ]] || unmet "sanitizers: $line"
else
  echo "HARDEN sanitizers not run (scripts/sanitize.sh)"
  unmet "sanitizers: no whole-suite run recorded"
fi

# ---- crash safety (tests/hardening/, when it exists) ----
corrupt_tried=0
if [ -f "$CRASH_SAFETY" ]; then
  out=$(bash "$CRASH_SAFETY" "$crash_runs" 2>&1 | grep '^HARDEN ')
  echo "$out"
  kill_line=$(grep '^HARDEN kill_during_save' <<<"$out")
  runs=$(grep -oE 'runs=[0-9]+' <<<"$kill_line" | cut -d= -f2)
  corrupt=$(grep -oE 'corrupt=[0-9]+' <<<"$kill_line" | cut -d= -f2)
  [ "${runs:-0}" -ge $MIN_CRASH_RUNS ] && [ "${corrupt:-1}" = 0 ] ||
    unmet "kill_during_save: runs=${runs:-0} corrupt=${corrupt:-?} (want >= $MIN_CRASH_RUNS runs, 0 corrupt)"
  corrupt_tried=$(grep '^HARDEN corrupt_files' <<<"$out" | grep -oE 'tried=[0-9]+' | cut -d= -f2)
  grep '^HARDEN corrupt_files' <<<"$out" | grep -q 'crashes=0' || unmet "corrupt_files: crashes"
else
  echo "HARDEN kill_during_save not available (tests/hardening/crash_safety.sh)"
  echo "HARDEN corrupt_files not available (tests/hardening/crash_safety.sh)"
  unmet "crash safety: not available"
fi

# ---- generated programs run to their exit (fuzz_exit_runner) ----
exit_tried=0
if [ -f "$EXIT_LOG" ]; then
  grep '^EXIT ' "$EXIT_LOG" | sed 's/^EXIT /HARDEN exit_runs /'
  total=$(grep '^EXIT class=all ' "$EXIT_LOG")
  exit_tried=$(grep -oE 'tried=[0-9]+' <<<"$total" | cut -d= -f2)
  [ "${exit_tried:-0}" -ge $MIN_EXIT_RUNS ] && [[ "$total" == *" crash=0 hang=0"* ]] ||
    unmet "exit runs: ${total:-none} (want >= $MIN_EXIT_RUNS tried, no crash or hang)"
else
  echo "HARDEN exit_runs not run (--exit-runs N)"
  unmet "exit runs: none recorded"
fi

echo "HARDEN malformed_inputs tried=$((all_execs + ${corrupt_tried:-0} + seeds + regressions + ${exit_tried:-0})) (fuzz executions + corrupt files + replayed inputs + programs run to their exit)"
if [ "$met" = 1 ]; then
  echo "HARDEN targets met"
else
  echo "HARDEN targets NOT met"
fi
[ "$met" = 1 ]
