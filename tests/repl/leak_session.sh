#!/usr/bin/env bash
# Pipes tests/repl/leak_session.txt (a long session: models, training, closures,
# graph commands, and errors of every kind) into the REPL. The session must reach
# its last entry with its errors reported, and exit with the REPL's status for a
# session with errors (2: it had a syntax error). Under the ASan build LeakSanitizer
# runs at exit: a leak prints its report and changes the status, so this test is the
# REPL's leak check (docs/hardening.md). Usage: leak_session.sh NABLA REPO_ROOT
set -u
NABLA=$1
SESSION="$2/tests/repl/leak_session.txt"
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT
OUT=$("$NABLA" <"$SESSION" 2>"$ERR")
RC=$?
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ "$RC" = 2 ] || fail "exit status $RC (expected 2: the session has syntax errors; 23 is LeakSanitizer's)"
[ "$(tail -n 1 <<<"$OUT")" = "'session done'" ] || fail "the session did not reach its last entry"
grep -q "Sanitizer" "$ERR" && fail "a sanitizer report:" && grep -A 30 "Sanitizer" "$ERR" | head -n 60
errors=$(grep -c "error:" "$ERR")
[ "$errors" -ge 15 ] || fail "$errors errors reported (the session makes at least 15)"
entries=$(grep -cvE '^(#|  |\}|$)' "$SESSION")
if [ "$failures" = 0 ]; then
  echo "repl session: $entries entries, $errors errors, no sanitizer report"
else
  echo "--- stderr:"; head -c 4000 "$ERR"
  exit 1
fi
