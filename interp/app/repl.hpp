// The interactive loop of `nabla`, for its first user: someone typing a model into the
// REPL. On a terminal it edits lines with libedit (history in ~/.nabla_history or
// $NABLA_HISTORY, tab completion of names and of members after '.'); otherwise it
// reads plain lines and prints no prompts. An entry left open (a bracket, a block, a
// string) asks for another line with "... "; lang::parse decides. Ctrl-C stops the
// running statement through Interpreter::interrupt() and keeps every variable.
// Talks to the language only through the embedding API (interp/interpreter.hpp).
#pragma once
#include <string>
#include <vector>

#include "interp/interpreter.hpp"

namespace nabla {

// Runs the REPL on stdin until end of input or `:quit`. Returns the exit status:
// 0 on a terminal; when reading a pipe, 2 if an entry had a syntax error, else 1 if
// one failed at run time, else 0.
int run_repl(Interpreter& interp);

// Completion candidates for the word line[start, end) (the word the cursor is in),
// not yet filtered by its prefix: members when the word follows '.', REPL commands
// after a leading ':', else the interpreter's globals and the language's keywords,
// and inside a call's parentheses the callee's keyword arguments ("lr="). Private
// names (a leading '_') only for a word that starts with '_'.
// Sorted, without duplicates. Exposed for tests.
std::vector<std::string> repl_completions(Interpreter& interp, const std::string& line, size_t start);

// The expression whose members to complete when the cursor follows the '.' at
// line[dot]: the chain of names, attributes and indexing that ends there ("m.fc1",
// "xs[0]"); empty when there is none. Calls are left out: completing must not run
// user code with side effects.
std::string member_target(const std::string& line, size_t dot);

// The callee whose keyword arguments to offer when the word at line[start] starts an
// argument of an open call ("nn.Linear(4, " gives "nn.Linear"); empty elsewhere.
std::string call_target(const std::string& line, size_t start);

// Whether `code` is a whole entry: incomplete when it ends inside an open bracket,
// block or string (the REPL asks for another line, a notebook's Enter adds one),
// invalid when it has a syntax error that more lines cannot mend. lang::parse decides.
enum class EntryStatus { complete, incomplete, invalid };
EntryStatus entry_status(const std::string& code);

// While alive, SIGINT asks `interp` to stop its running statement (the third Ctrl-C
// in a row ends the process, for a statement stuck inside a native call).
class InterruptScope {
 public:
  explicit InterruptScope(Interpreter& interp);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// Installs the process's SIGINT handler (no SA_RESTART, so a blocking read returns
// EINTR): inside an InterruptScope it interrupts the interpreter; outside, it only
// records that Ctrl-C was pressed (the REPL clears its line).
void install_sigint_handler();
// SIGINTs the process received since install_sigint_handler, inside an
// InterruptScope or not: the command line's check that none went unreported.
int sigints_received();

}  // namespace nabla
