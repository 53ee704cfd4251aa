// Note [Break and continue on a tensor condition]
// `if err < tol { break }` inside a loop is how most programs stop iterating, but a
// cond node has no way to leave the loop around it from a branch. So in script mode:
//  - A loop whose body may break gets a hidden variable, its flag (declared by the
//    resolver, set false before the loop). A break sets it.
//  - An `if` that may break or continue, directly in the loop's body or in ifs inside
//    it, lowers with the rest of the step as its continuation: the statements after
//    it (in its block, then in each enclosing block up to the body) run inside its
//    branches, so a branch that breaks or continues skips them, as eager does.
//  - A while_loop tests `not flag and cond` before each trip.
//  - A scan's step is a cond on the flag: once it is set, the remaining steps pass
//    their carries through unchanged.
//  - A loop that runs as usual (over a list of layers, or a `while` on a plain
//    condition) makes each step after a lowered break a cond on the flag; a `while`
//    lowers its remaining trips to a while_loop (control_flow.cpp).
// The flag is carried and output like any 0-dim bool (Note [Counters carried as
// tensors]), so gradients and grad of grad go through the conds as usual.
// Note [Returns on a tensor condition]
// `if x.sum() > 0 { return a }` then more statements and `return b` is how most
// functions branch. A cond node yields values, not a return, so in script mode a
// function whose body returns from inside an `if` (outside its loops) gets a hidden
// result variable, `(return)`: the if lowers with the rest of the body as its
// continuation (as a break's does), each branch ends by storing what it returned (none
// when it falls off the end), and the function returns the variable, the cond's
// output. Both branches must return the same structure: a tensor, or tuples and lists
// of tensors of the same types, or equal plain values. A return inside a lowered loop
// is still an error (assign a variable and return after the loop).
#include "interp/eval/script/exits.hpp"

namespace nabla::interp::script {

namespace {

// What may leave the statements being run, and the hidden variables that say so: a
// loop step's break flag, a function body's result.
struct Exits {
  const Name* flag = nullptr;    // a loop that may break
  const Name* result = nullptr;  // a function body that returns early
  bool loop = false;             // break and continue leave a loop step
  bool function = false;         // return leaves a function body
};

bool block_exits(const Block& b, const Exits& x, bool breaks_only);

// Whether s may leave what is running: a break (or a continue, unless breaks_only) in
// a loop step, a return in a function body, outside the loops and functions nested in it.
bool stmt_exits(const Stmt& s, const Exits& x, bool breaks_only) {
  switch (s.kind) {
    case StmtKind::Break: return x.loop;
    case StmtKind::Continue: return x.loop && !breaks_only;
    case StmtKind::Return: return x.function;
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      for (const Block& b : i.blocks)
        if (block_exits(b, x, breaks_only)) return true;
      return i.else_block && block_exits(*i.else_block, x, breaks_only);
    }
    case StmtKind::Context: return block_exits(static_cast<const ContextStmt&>(s).body, x, breaks_only);
    default: return false;
  }
}

bool block_exits(const Block& b, const Exits& x, bool breaks_only) {
  for (const auto& s : b.stmts)
    if (stmt_exits(*s, x, breaks_only)) return true;
  return false;
}

// What runs after a statement: the rest of its block, then of each enclosing block
// up to the loop's body or the function's.
struct Rest {
  const Block* block;
  size_t from;
  const Rest* next;
};

Flow run_rest(Impl& im, const Rest* r, const Exits& x);

// How a branch of a lowered cond ends: a break sets the flag and a continue ends the
// step; in a function body, the branch ran to the function's end, so what it returned
// (none when it fell off the end) goes into the result variable.
Flow settle(Impl& im, Flow f, const Exits& x) {
  if (x.result && (f == Flow::Return || f == Flow::Normal)) {
    im.store(loc(*x.result), f == Flow::Return ? std::move(im.ret) : Value());
    return Flow::Normal;
  }
  if (f == Flow::Return && x.loop)
    fail("a 'return' inside a loop that lowers to a while_loop or scan cannot be lowered: assign the result to a "
         "variable, break, and return it after the loop");
  if (f == Flow::Continue && x.loop) return Flow::Normal;
  if (f != Flow::Break || !x.flag) return f;
  im.store(loc(*x.flag), Value::tensor(scalar_of(Value::boolean(true), DType::b8)));
  return Flow::Normal;
}

Vars exit_if_vars(const Impl& im, const IfStmt& i, size_t k, const Rest& after, const Exits& x) {
  Vars vars;
  for (size_t j = k; j < i.blocks.size(); ++j) assigned_in(im, i.blocks[j], vars);
  if (i.else_block) assigned_in(im, *i.else_block, vars);
  for (const Rest* r = &after; r; r = r->next) assigned_in(im, *r->block, vars, r->from);
  if (x.flag) add_var(*x.flag, vars);
  if (x.result) add_var(*x.result, vars);
  return vars;
}

// The if/elif chain of i from condition k on, followed by `after`.
Flow exit_if(Impl& im, const IfStmt& i, size_t k, const Rest& after, const Exits& x) {
  auto branch = [&](const Block& b) {
    Rest r{&b, 0, &after};
    return run_rest(im, &r, x);
  };
  if (k == i.conds.size()) return i.else_block ? branch(*i.else_block) : run_rest(im, &after, x);
  const Expr& cond = *i.conds[k];
  Value c = im.eval(cond);
  if (!traced(im, c)) return im.value_true(c, cond) ? branch(i.blocks[k]) : exit_if(im, i, k + 1, after, x);
  std::string origin = k == 0 ? i.span.where() : cond.span.where();
  Vars outputs = lower_choice(
      im, predicate(c.t), exit_if_vars(im, i, k, after, x), origin, [&] { return settle(im, branch(i.blocks[k]), x); },
      [&] { return settle(im, exit_if(im, i, k + 1, after, x), x); });
  std::string rest = x.result ? "the rest of the function" : "the rest of the step";
  im.ev.script->notes.push_back(origin + (k == 0 ? ": if" : ": elif") + " on a tensor that may leave " +
                                (x.result ? "the function" : "the step") + " -> cond (outputs: " + names_text(outputs) +
                                "; " + rest + " runs in its branches)");
  if (!x.result) return Flow::Normal;
  im.ret = im.load(loc(*x.result));  // Note [Returns on a tensor condition]
  return Flow::Return;
}

Flow run_rest(Impl& im, const Rest* r, const Exits& x) {
  for (; r; r = r->next)
    for (size_t k = r->from; k < r->block->stmts.size(); ++k) {
      const Stmt& s = *r->block->stmts[k];
      if (s.kind == StmtKind::If && stmt_exits(s, x, false))
        return exit_if(im, static_cast<const IfStmt&>(s), 0, Rest{r->block, k + 1, r->next}, x);
      Flow f = im.exec(s);
      if (f != Flow::Normal) return f;
    }
  return Flow::Normal;
}

}  // namespace

bool body_breaks(const Block& body) { return block_exits(body, Exits{.loop = true}, true); }

bool body_returns_early(const Block& body) {
  Exits x{.function = true};
  for (const auto& s : body.stmts)
    if (s->kind == StmtKind::If && stmt_exits(*s, x, false)) return true;
  return false;
}

Flow run_lowered_step(Impl& im, const Block& body, const Name* flag) {
  Exits x{.flag = flag, .loop = true};
  Rest r{&body, 0, nullptr};
  return settle(im, run_rest(im, &r, x), x);
}

Tensor not_broken(Impl& im, const Name& flag) {
  Value f = im.load(loc(flag));
  return binary_op(BinaryOp::Eq, f, Value::boolean(false)).t;
}

Flow run_unrolled_step(Impl& im, const Block& body, const Name* flag) {
  Exits x{.flag = flag, .loop = true};
  Rest r{&body, 0, nullptr};
  if (!flag || !traced(im, im.load(loc(*flag)))) return run_rest(im, &r, x);
  Vars vars;
  assigned_in(im, body, vars);
  add_var(*flag, vars);
  lower_choice(
      im, im.load(loc(*flag)).t, vars, body.span.where(), [] { return Flow::Normal; },
      [&] { return settle(im, run_rest(im, &r, x), x); });
  return Flow::Normal;
}

Flow run_function_body(Impl& im, const Block& body, const Name* result) {
  if (!result) return im.exec_block(body);
  im.store(loc(*result), Value());
  Rest r{&body, 0, nullptr};
  return run_rest(im, &r, Exits{.result = result, .function = true});
}

}  // namespace nabla::interp::script
