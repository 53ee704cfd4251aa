// Break, continue and return in script mode (Note [Break and continue on a tensor
// condition] and Note [Returns on a tensor condition] in exits.cpp): a loop's step and
// a function's body run with the rest of their block as the continuation of each `if`
// that may leave them.
#pragma once
#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

// Whether a loop body may `break` (outside the loops and functions nested in it) or
// `return` (in its loops too): such a loop gets a hidden flag variable from the resolver.
bool body_breaks(const Block& body);
// Whether a function body may `return` from inside an `if` or a loop: such a function
// gets a hidden variable for its result from the resolver.
bool body_returns_early(const Block& body);
// Whether a function body may `return` from inside a loop: such a function gets a
// hidden flag, (returned), too (Note [Returns inside a lowered loop]).
bool body_returns_in_loop(const Block& body);

// Thrown by a lowered loop's step that met the type of what the function returns while
// (return) was none: the loop is lowered again with zeros of that type before it (not
// a std::exception, so that a scan's fallback to unrolling does not catch it).
struct ResultTypeFound {
  Value tree;
};

// Adds the running function's (return) and (returned) to a loop's variables when its
// body may return.
void add_return_vars(Impl& im, const Block& body, Vars& vars);
// (return) = zeros of like's tensors, nested alike.
void set_result_zeros(Impl& im, const Value& like);

// Runs lower() (a loop's lowering); when a step met the function's result type first
// (ResultTypeFound), puts `vars` back, sets (return) to zeros of that type and lowers
// again (Note [Returns inside a lowered loop]).
template <class Lower>
auto lower_returning(Impl& im, const Vars& vars, const Lower& lower) -> decltype(lower()) {
  std::vector<Value> saved = load_all(im, vars);
  size_t notes = im.ev.script->notes.size();
  try {
    return lower();
  } catch (const ResultTypeFound& found) {
    store_all(im, vars, saved);
    im.ev.script->notes.resize(notes);  // the first try's notes are the second's
    set_result_zeros(im, found.tree);
    return lower();
  }
}

// One step of a lowered loop (a while_loop's or scan's body, under its region): a
// break sets `flag` (false before the loop), a continue ends the step. Returns Normal,
// or Return/Break for the caller to refuse (a break in a loop without a flag).
Flow run_lowered_step(Impl& im, const Block& body, const Name* flag);

// One step of a loop that runs as usual (unrolled by tracing). Once an earlier step's
// break was lowered (the flag is a traced tensor), the step is a cond on the flag;
// otherwise it runs, and a break or continue it meets on plain values is returned as
// usual.
Flow run_unrolled_step(Impl& im, const Block& body, const Name* flag);

// A function's body in script mode; `result`: its hidden result variable (null when
// it returns only at its top level), `returned`: its returned flag (null when it
// returns from no loop). Returns what exec_block would (Return with
// im.ret set, or Normal).
Flow run_function_body(Impl& im, const Block& body, const Name* result, const Name* returned);

// !flag, recorded: what a lowered loop with a break tests before each step.
Tensor not_broken(Impl& im, const Name& flag);

}  // namespace nabla::interp::script
