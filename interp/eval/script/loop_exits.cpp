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
#include "interp/eval/script/loop_exits.hpp"

namespace nabla::interp::script {

namespace {

bool block_exits(const Block& b, bool breaks_only);

// Whether s may leave the step it is in: a break (or a continue, unless breaks_only)
// outside the loops and functions nested in it.
bool stmt_exits(const Stmt& s, bool breaks_only) {
  switch (s.kind) {
    case StmtKind::Break: return true;
    case StmtKind::Continue: return !breaks_only;
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      for (const Block& b : i.blocks)
        if (block_exits(b, breaks_only)) return true;
      return i.else_block && block_exits(*i.else_block, breaks_only);
    }
    case StmtKind::Context: return block_exits(static_cast<const ContextStmt&>(s).body, breaks_only);
    default: return false;
  }
}

bool block_exits(const Block& b, bool breaks_only) {
  for (const auto& s : b.stmts)
    if (stmt_exits(*s, breaks_only)) return true;
  return false;
}

// What runs after a statement: the rest of its block, then of each enclosing block
// up to the loop's body.
struct Rest {
  const Block* block;
  size_t from;
  const Rest* next;
};

Flow run_rest(Impl& im, const Rest* r, const Name* flag);

// A break sets the flag and a continue ends the step; the branch of a lowered cond
// then ends normally.
Flow settle(Impl& im, Flow f, const Name* flag) {
  if (f == Flow::Continue) return Flow::Normal;
  if (f != Flow::Break || !flag) return f;
  im.store(loc(*flag), Value::tensor(scalar_of(Value::boolean(true), DType::b8)));
  return Flow::Normal;
}

Vars exit_if_vars(const IfStmt& i, size_t k, const Rest& after, const Name* flag) {
  Vars vars;
  for (size_t j = k; j < i.blocks.size(); ++j) assigned_in(i.blocks[j], vars);
  if (i.else_block) assigned_in(*i.else_block, vars);
  for (const Rest* r = &after; r; r = r->next) assigned_in(*r->block, vars, r->from);
  if (flag) add_var(*flag, vars);
  return vars;
}

// The if/elif chain of i from condition k on, followed by `after`.
Flow exit_if(Impl& im, const IfStmt& i, size_t k, const Rest& after, const Name* flag) {
  auto branch = [&](const Block& b) {
    Rest r{&b, 0, &after};
    return run_rest(im, &r, flag);
  };
  if (k == i.conds.size()) return i.else_block ? branch(*i.else_block) : run_rest(im, &after, flag);
  const Expr& cond = *i.conds[k];
  Value c = im.eval(cond);
  if (!traced(im, c)) return im.value_true(c, cond) ? branch(i.blocks[k]) : exit_if(im, i, k + 1, after, flag);
  std::string origin = k == 0 ? i.span.where() : cond.span.where();
  Vars outputs = lower_choice(
      im, predicate(c.t), exit_if_vars(i, k, after, flag), origin,
      [&] { return settle(im, branch(i.blocks[k]), flag); },
      [&] { return settle(im, exit_if(im, i, k + 1, after, flag), flag); });
  im.ev.script->notes.push_back(origin + (k == 0 ? ": if" : ": elif") + " on a tensor that may leave the step -> cond (outputs: " +
                                names_text(outputs) + "; the rest of the step runs in its branches)");
  return Flow::Normal;
}

Flow run_rest(Impl& im, const Rest* r, const Name* flag) {
  for (; r; r = r->next)
    for (size_t k = r->from; k < r->block->stmts.size(); ++k) {
      const Stmt& s = *r->block->stmts[k];
      if (s.kind == StmtKind::If && stmt_exits(s, false))
        return exit_if(im, static_cast<const IfStmt&>(s), 0, Rest{r->block, k + 1, r->next}, flag);
      Flow f = im.exec(s);
      if (f != Flow::Normal) return f;
    }
  return Flow::Normal;
}

}  // namespace

bool body_breaks(const Block& body) { return block_exits(body, true); }

Flow run_lowered_step(Impl& im, const Block& body, const Name* flag) {
  Rest r{&body, 0, nullptr};
  return settle(im, run_rest(im, &r, flag), flag);
}

Tensor not_broken(Impl& im, const Name& flag) {
  Value f = im.load(loc(flag));
  return binary_op(BinaryOp::Eq, f, Value::boolean(false)).t;
}

Flow run_unrolled_step(Impl& im, const Block& body, const Name* flag) {
  Rest r{&body, 0, nullptr};
  if (!flag || !traced(im, im.load(loc(*flag)))) return run_rest(im, &r, flag);
  Vars vars;
  assigned_in(body, vars);
  add_var(*flag, vars);
  lower_choice(
      im, im.load(loc(*flag)).t, vars, body.span.where(), [] { return Flow::Normal; },
      [&] { return settle(im, run_rest(im, &r, flag), flag); });
  return Flow::Normal;
}

}  // namespace nabla::interp::script
