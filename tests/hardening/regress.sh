#!/usr/bin/env bash
# Hostile and deep programs (issue 25), each run as its own `nabla` process under the
# default 8 MiB stack (`ulimit -s 8192`), so that what happens at exit (freeing deep
# graphs and values) is checked too. Each tests/hardening/regress/*.dsl says what it
# expects in comments:
#
#   # status: 1                the exit status (default 0)
#   # args: --sandbox          options given before the file
#   # stdin                    the file is piped to a REPL (`nabla` reading stdin)
#                              instead of run as a script
#   # timeout: 120             seconds before the run counts as a hang (default 60)
#   # expect: TEXT             a line of standard output; all of them, exactly, in
#                              order (no expect lines: any output)
#   # expect stderr: TEXT      text that standard error must contain (each of them)
#   # no stderr: TEXT          text that standard error must not contain
#
# Each run gets a fresh empty folder for the files it writes, named by the
# environment variable REGRESS_TMP (`env("REGRESS_TMP")`), removed afterwards.
#
# Usage: regress.sh NABLA REPO_ROOT [FILE.dsl ...]  (default: every regress/*.dsl)
set -u
NABLA=$1
cd "$2" || exit 2
shift 2
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(tests/hardening/regress/*.dsl)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nabla-regress.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0

# The value of a "# key: value" comment (the first one), or $2 when there is none.
directive() { local v; v=$(grep -m1 -oP "^# $1: \K.*" "$3"); echo "${v:-$2}"; }

run_one() {
  local file=$1 status timeout args rc ok=1
  status=$(directive status 0 "$file")
  timeout=$(directive timeout 60 "$file")
  read -r -a args <<<"$(directive args '' "$file")"
  rm -rf "$WORK/tmp" && mkdir "$WORK/tmp"
  export REGRESS_TMP="$WORK/tmp"
  if grep -q '^# stdin$' "$file"; then
    (ulimit -s 8192; timeout -s KILL "$timeout" "$NABLA" "${args[@]}" <"$file" >"$WORK/out" 2>"$WORK/err")
  else
    (ulimit -s 8192; timeout -s KILL "$timeout" "$NABLA" "${args[@]}" "$file" </dev/null >"$WORK/out" 2>"$WORK/err")
  fi
  rc=$?
  local why=()
  [ "$rc" = "$status" ] || why+=("exit status $rc, expected $status")
  if grep -q '^# expect: ' "$file" || grep -q '^# expect:$' "$file"; then
    grep -oP '^# expect:( \K.*|$)' "$file" >"$WORK/want"
    diff "$WORK/want" "$WORK/out" >"$WORK/diff" || why+=("stdout differs (< expected, > printed):" "$(head -c 2000 "$WORK/diff")")
  fi
  while IFS= read -r text; do
    grep -qF -- "$text" "$WORK/err" || why+=("stderr lacks: $text")
  done < <(grep -oP '^# expect stderr: \K.*' "$file")
  while IFS= read -r text; do
    grep -qF -- "$text" "$WORK/err" && why+=("stderr has: $text")
  done < <(grep -oP '^# no stderr: \K.*' "$file")
  if [ ${#why[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $file"
    printf '  %s\n' "${why[@]}"
    echo "  stderr: $(head -c 1000 "$WORK/err")"
  fi
}

for f in "${files[@]}"; do run_one "$f"; done
echo "regress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
