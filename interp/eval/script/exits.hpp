// Break, continue and return in script mode (Note [Break and continue on a tensor
// condition] and Note [Returns on a tensor condition] in exits.cpp): a loop's step and
// a function's body run with the rest of their block as the continuation of each `if`
// that may leave them.
#pragma once
#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

// Whether a loop body may `break` (outside the loops and functions nested in it): such
// a loop gets a hidden flag variable from the resolver.
bool body_breaks(const Block& body);
// Whether a function body may `return` from inside an `if` (outside its loops): such a
// function gets a hidden variable for its result from the resolver.
bool body_returns_early(const Block& body);

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
// it returns only at its top level). Returns what exec_block would (Return with
// im.ret set, or Normal).
Flow run_function_body(Impl& im, const Block& body, const Name* result);

// !flag, recorded: what a lowered loop with a break tests before each step.
Tensor not_broken(Impl& im, const Name& flag);

}  // namespace nabla::interp::script
