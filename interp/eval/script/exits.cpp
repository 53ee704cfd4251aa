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
// of tensors of the same types, or equal plain values. A return inside a loop is
// Note [Returns inside a lowered loop].
// Note [Returns inside a lowered loop]
// `for k in range(n) { ... if err < tol { return x } }` is a search that stops early,
// but a while_loop or scan step cannot leave the function. So in script mode a
// function that returns from inside a loop also gets a hidden flag, `(returned)`
// (false, a 0-dim bool, when its body starts), and every loop around such a return
// gets a break flag. A return in a loop step stores what it returns in `(return)`,
// sets `(returned)`, and breaks: it is the loop's break, so the remaining steps pass
// their carries through, and each enclosing loop, seeing `(returned)` set after its
// inner loop, breaks too. The loops carry both hidden variables, so `(return)` needs
// a value of the returned type before the outermost loop: while it is none inside a
// loop step, none means "not returned yet" (a cond whose other branch returned yields
// zeros of that type, regions.cpp), and a loop that first meets the type in its body
// is lowered again with zeros of it before the loop (lower_returning). After a loop
// that may return, the rest of the function (or of the enclosing step) runs in the
// else-branch of a cond on `(returned)`, whose then-branch returns `(return)`. A
// return inside a loop returns tensors (or tuples and lists of them): anything else
// is an error.
#include "interp/eval/script/exits.hpp"
#include "interp/eval/script/field_writes.hpp"

#include <optional>

#include "autograd/autocast_lists.hpp"
#include "autograd/grad_mode.hpp"

namespace nabla::interp::script {

namespace {

// What may leave the statements being run, and the hidden variables that say so: a
// loop step's break flag, a function body's result.
struct Exits {
  const Name* flag = nullptr;      // a loop that may break
  const Name* result = nullptr;    // a function body that returns early
  const Name* returned = nullptr;  // a function that returns from inside a loop
  bool loop = false;               // break and continue leave a loop step
  bool function = false;           // return leaves a function body (a step: through its loops)
};

bool block_exits(const Block& b, const Exits& x, bool breaks_only);
bool block_returns(const Block& b);

// Whether s holds a return, in its loops too (not in functions defined in it).
bool stmt_returns(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Return: return true;
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      for (const Block& b : i.blocks)
        if (block_returns(b)) return true;
      return i.else_block && block_returns(*i.else_block);
    }
    case StmtKind::While: return block_returns(static_cast<const WhileStmt&>(s).body);
    case StmtKind::For: return block_returns(static_cast<const ForStmt&>(s).body);
    case StmtKind::Context: return block_returns(static_cast<const ContextStmt&>(s).body);
    default: return false;
  }
}

bool block_returns(const Block& b) {
  for (const auto& s : b.stmts)
    if (stmt_returns(*s)) return true;
  return false;
}

bool is_loop(const Stmt& s) { return s.kind == StmtKind::While || s.kind == StmtKind::For; }

// Whether b holds a loop with a return in it (in its ifs and context blocks too).
bool loop_returns_in(const Block& b) {
  for (const auto& s : b.stmts) {
    if (is_loop(*s) && stmt_returns(*s)) return true;
    if (s->kind == StmtKind::If) {
      auto& i = static_cast<const IfStmt&>(*s);
      for (const Block& blk : i.blocks)
        if (loop_returns_in(blk)) return true;
      if (i.else_block && loop_returns_in(*i.else_block)) return true;
    }
    if (s->kind == StmtKind::Context && loop_returns_in(static_cast<const ContextStmt&>(*s).body)) return true;
  }
  return false;
}

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
    case StmtKind::While:
    case StmtKind::For: return x.function && x.returned && stmt_returns(s);  // Note [Returns inside a lowered loop]
    default: return false;
  }
}

bool block_exits(const Block& b, const Exits& x, bool breaks_only) {
  for (const auto& s : b.stmts)
    if (stmt_exits(*s, x, breaks_only)) return true;
  return false;
}

// Note [Exits inside a context block]
// `no_grad { if err < tol { return x } }` in a loop: the rest of the step, which runs
// inside the branches of the lowered if, is partly inside the block (the rest of its
// body) and partly outside it (the statements after the block). So each part of the
// rest carries the thread's modes it runs under: grad mode, autocast and anomaly
// detection, which are what no_grad, enable_grad, autocast and detect_anomaly set. A
// context block that holds an exit runs its body as a part of the rest with its modes
// set, followed by the statements after it with the modes from before it. profile
// and no_sync blocks, which do more than set a mode, cannot hold an exit that lowers.
struct Modes {
  bool grad = grad_enabled();
  std::optional<DType> autocast = autocast_dtype();
  AutocastLists autocast_lists = nabla::autocast_lists();  // autocast("cpu"): Note [Autocast lists]
  bool anomaly = anomaly_enabled();
};

void set_modes(const Modes& m) {
  set_grad_enabled(m.grad);
  set_autocast_dtype(m.autocast);
  set_autocast_lists(m.autocast_lists);
  set_anomaly_enabled(m.anomaly);
}

class ModesScope {
 public:
  explicit ModesScope(const Modes& m) { set_modes(m); }
  ~ModesScope() { set_modes(saved_); }
  ModesScope(const ModesScope&) = delete;
  ModesScope& operator=(const ModesScope&) = delete;

 private:
  Modes saved_;
};

// What runs after a statement: the rest of its block, then of each enclosing block
// up to the loop's body or the function's, each under its modes.
struct Rest {
  const Block* block;
  size_t from;
  const Rest* next;
  Modes modes{};  // those in force where the statement is
};

Flow run_rest(Impl& im, const Rest* r, const Exits& x);

// The fields the rest of a block writes in place (Note [Fields written inside a lowered loop]).
Fields rest_fields(Impl& im, const Rest* r, Fields fields = {}) {
  for (; r; r = r->next) add_fields_written_in(im, *r->block, fields, r->from);
  return fields;
}

// A return in a loop step (Note [Returns inside a lowered loop]): the result goes into
// (return), and (returned) and the loop's break flag are set.
Flow returned_from_step(Impl& im, const Exits& x) {
  if (!x.result || !x.returned || !x.flag)
    fail("a 'return' inside a loop that lowers to a while_loop or scan cannot be lowered here: assign the result to a "
         "variable, break, and return it after the loop");
  Value v = std::move(im.ret);
  TensorList leaves;
  if (!tensor_leaves(v, leaves)) {
    const Stmt* at = im.ev.script->returns.last_return;
    try {
      fail("a 'return' inside a loop that lowers to a while_loop or scan returns tensors, or tuples and lists of "
           "them, which the loop carries; this one returns " + type_text(v) + " (expected a tensor)");
    } catch (...) {
      if (!at) throw;
      im.rethrow_located(at->span);
    }
  }
  Tensor yes = scalar_of(Value::boolean(true), DType::b8);
  im.store(loc(*x.result), std::move(v));
  im.store(loc(*x.returned), Value::tensor(yes));
  im.store(loc(*x.flag), Value::tensor(yes));
  return Flow::Normal;
}

// How a branch of a lowered cond ends: a break sets the flag and a continue ends the
// step, a return in a step leaves through the loops; in a function body, the branch
// ran to the function's end, so what it returned (none when it fell off the end) goes
// into the result variable.
Flow settle(Impl& im, Flow f, const Exits& x) {
  if (x.loop) {
    if (f == Flow::Return) return returned_from_step(im, x);
    if (f == Flow::Continue) return Flow::Normal;
    if (f != Flow::Break || !x.flag) return f;
    im.store(loc(*x.flag), Value::tensor(scalar_of(Value::boolean(true), DType::b8)));
    return Flow::Normal;
  }
  if (x.result && (f == Flow::Return || f == Flow::Normal)) {
    im.store(loc(*x.result), f == Flow::Return ? std::move(im.ret) : Value());
    return Flow::Normal;
  }
  return f;
}

void add_exit_vars(const Exits& x, Vars& vars) {
  if (x.flag) add_var(*x.flag, vars);
  if (x.result) add_var(*x.result, vars);
  if (x.returned) add_var(*x.returned, vars);
}

Vars exit_if_vars(Impl& im, const IfStmt& i, size_t k, const Rest& after, const Exits& x) {
  Vars vars;
  for (size_t j = k; j < i.blocks.size(); ++j) assigned_in(im, i.blocks[j], vars);
  if (i.else_block) assigned_in(im, *i.else_block, vars);
  for (const Rest* r = &after; r; r = r->next) assigned_in(im, *r->block, vars, r->from);
  add_exit_vars(x, vars);
  return vars;
}

// The if/elif chain of i from condition k on, followed by `after`.
Flow exit_if(Impl& im, const IfStmt& i, size_t k, const Rest& after, const Exits& x) {
  auto branch = [&](const Block& b) {
    Rest r{&b, 0, &after, after.modes};
    return run_rest(im, &r, x);
  };
  if (k == i.conds.size()) return i.else_block ? branch(*i.else_block) : run_rest(im, &after, x);
  const Expr& cond = *i.conds[k];
  Value c = condition_value(im, cond);
  if (!traced(im, c)) return im.value_true(c, cond) ? branch(i.blocks[k]) : exit_if(im, i, k + 1, after, x);
  std::string origin = k == 0 ? i.span.where() : cond.span.where();
  Fields fields;
  for (size_t j = k; j < i.blocks.size(); ++j) add_fields_written_in(im, i.blocks[j], fields);
  if (i.else_block) add_fields_written_in(im, *i.else_block, fields);
  fields = rest_fields(im, &after, std::move(fields));
  Vars outputs = lower_choice(
      im, predicate(c.t), exit_if_vars(im, i, k, after, x), origin, [&] { return settle(im, branch(i.blocks[k]), x); },
      [&] { return settle(im, exit_if(im, i, k + 1, after, x), x); }, &fields);
  std::string rest = x.loop ? "the rest of the step" : "the rest of the function";
  im.ev.script->notes.push_back(origin + (k == 0 ? ": if" : ": elif") + " on a tensor that may leave " +
                                (x.loop ? "the step" : "the function") + " -> cond (outputs: " + names_text(outputs) +
                                "; " + rest + " runs in its branches)");
  if (x.loop || !x.result) return Flow::Normal;
  im.ret = im.load(loc(*x.result));  // Note [Returns on a tensor condition]
  return Flow::Return;
}

// After a loop that may return (Note [Returns inside a lowered loop]): once a lowered
// step could have returned, (returned) is a traced flag, and the rest runs in the
// else-branch of a cond on it whose then-branch returns (return).
Flow after_loop(Impl& im, const Stmt& loop, const Rest& after, const Exits& x) {
  Value returned = im.load(loc(*x.returned));
  if (!traced(im, returned)) return run_rest(im, &after, x);
  Vars vars;
  for (const Rest* r = &after; r; r = r->next) assigned_in(im, *r->block, vars, r->from);
  add_exit_vars(x, vars);
  std::string origin = loop.span.where();
  Fields fields = rest_fields(im, &after);
  Vars outputs = lower_choice(
      im, returned.t, vars, origin,
      [&] {
        im.ret = im.load(loc(*x.result));
        return settle(im, Flow::Return, x);
      },
      [&] { return settle(im, run_rest(im, &after, x), x); }, &fields);
  im.ev.script->notes.push_back(origin + ": a loop that may return -> cond on (returned) after it (outputs: " +
                                names_text(outputs) + "; the rest of the " + (x.loop ? "step" : "function") +
                                " runs in its else-branch)");
  if (x.loop) return Flow::Normal;
  im.ret = im.load(loc(*x.result));
  return Flow::Return;
}

// A context block that holds an exit (Note [Exits inside a context block]): its body,
// then `after`.
Flow exit_context(Impl& im, const ContextStmt& c, const Rest& after, const Exits& x) {
  Modes inside = after.modes;
  if (c.keyword == "no_grad" || c.keyword == "enable_grad") inside.grad = c.keyword == "enable_grad";
  else if (c.keyword == "detect_anomaly") inside.anomaly = true;
  else if (c.keyword == "autocast") {
    AutocastRegion region = im.autocast_region(c);
    inside.autocast = region.dtype;
    inside.autocast_lists = region.lists;
  }
  else
    fail("a 'break', 'continue' or 'return' inside a '" + c.keyword + "' block cannot be lowered to a cond (only " +
         "no_grad, enable_grad, autocast and detect_anomaly blocks may hold one): assign a variable inside the block " +
         "and decide after it");
  if (!c.args.empty() && c.keyword != "autocast") fail("'" + c.keyword + "' takes no arguments");
  Rest body{&c.body, 0, &after, inside};
  return run_rest(im, &body, x);
}

Flow run_rest(Impl& im, const Rest* r, const Exits& x) {
  for (; r; r = r->next) {
    ModesScope modes(r->modes);
    for (size_t k = r->from; k < r->block->stmts.size(); ++k) {
      const Stmt& s = *r->block->stmts[k];
      Rest after{r->block, k + 1, r->next, r->modes};
      if (s.kind == StmtKind::If && stmt_exits(s, x, false))
        return exit_if(im, static_cast<const IfStmt&>(s), 0, after, x);
      if (s.kind == StmtKind::Context && stmt_exits(s, x, false))
        return exit_context(im, static_cast<const ContextStmt&>(s), after, x);
      Flow f = im.exec(s);
      if (f != Flow::Normal) return f;
      if (is_loop(s) && stmt_exits(s, x, false)) return after_loop(im, s, after, x);
    }
  }
  return Flow::Normal;
}

// A loop step's exits: its break flag, and the function's return through it.
Exits step_exits(Impl& im, const Name* flag) {
  const FunctionReturns& fr = im.ev.script->returns;
  Exits x{.flag = flag, .loop = true};
  if (fr.result && fr.returned) {
    x.result = fr.result;
    x.returned = fr.returned;
    x.function = true;
  }
  return x;
}

// Counts a loop step of the running function for its lifetime: inside one, a none
// result means "not returned yet" (lower_choice).
class StepScope {
 public:
  explicit StepScope(Impl& im) : returns_(im.ev.script->returns) { ++returns_.steps; }
  ~StepScope() { --returns_.steps; }
  StepScope(const StepScope&) = delete;
  StepScope& operator=(const StepScope&) = delete;

 private:
  FunctionReturns& returns_;
};

// Restores the caller's FunctionReturns when a function body ends.
class ReturnsScope {
 public:
  ReturnsScope(Impl& im, FunctionReturns now) : returns_(im.ev.script->returns), saved_(returns_) { returns_ = now; }
  ~ReturnsScope() { returns_ = saved_; }
  ReturnsScope(const ReturnsScope&) = delete;
  ReturnsScope& operator=(const ReturnsScope&) = delete;

 private:
  FunctionReturns& returns_;
  FunctionReturns saved_;
};

}  // namespace

bool body_breaks(const Block& body) { return block_exits(body, Exits{.loop = true}, true) || block_returns(body); }

bool body_returns_early(const Block& body) {
  Exits x{.function = true};
  for (const auto& s : body.stmts)
    if ((s->kind == StmtKind::If || s->kind == StmtKind::Context) && stmt_exits(*s, x, false)) return true;
  return body_returns_in_loop(body);
}

bool body_returns_in_loop(const Block& body) { return loop_returns_in(body); }

void add_return_vars(Impl& im, const Block& body, Vars& vars) {
  const FunctionReturns& fr = im.ev.script->returns;
  if (!fr.result || !fr.returned || !block_returns(body)) return;
  add_var(*fr.result, vars);
  add_var(*fr.returned, vars);
}

void set_result_zeros(Impl& im, const Value& like) { im.store(loc(*im.ev.script->returns.result), zeros_of_tree(like)); }

Flow run_lowered_step(Impl& im, const Block& body, const Name* flag) {
  Exits x = step_exits(im, flag);
  StepScope step(im);
  Value before = x.result ? im.load(loc(*x.result)) : Value();
  Rest r{&body, 0, nullptr};
  Flow f = settle(im, run_rest(im, &r, x), x);
  TensorList leaves;
  if (x.result && before.is_none() && tensor_leaves(im.load(loc(*x.result)), leaves))
    throw ResultTypeFound{im.load(loc(*x.result))};  // Note [Returns inside a lowered loop]
  return f;
}

Tensor not_broken(Impl& im, const Name& flag) {
  Value f = im.load(loc(flag));
  return binary_op(BinaryOp::Eq, f, Value::boolean(false)).t;
}

Flow run_unrolled_step(Impl& im, const Block& body, const Name* flag) {
  Exits x = step_exits(im, flag);
  StepScope step(im);
  Rest r{&body, 0, nullptr};
  if (!flag || !traced(im, im.load(loc(*flag)))) return run_rest(im, &r, x);
  Vars vars;
  assigned_in(im, body, vars);
  add_exit_vars(x, vars);
  Fields fields = fields_written_in(im, body);
  lower_choice(
      im, im.load(loc(*flag)).t, vars, body.span.where(), [] { return Flow::Normal; },
      [&] { return settle(im, run_rest(im, &r, x), x); }, &fields);
  return Flow::Normal;
}

Flow run_function_body(Impl& im, const Block& body, const Name* result, const Name* returned) {
  ReturnsScope returns(im, FunctionReturns{result, returned, 0});
  if (!result) return im.exec_block(body);
  im.store(loc(*result), Value());
  if (returned) im.store(loc(*returned), Value::tensor(scalar_of(Value::boolean(false), DType::b8)));
  Rest r{&body, 0, nullptr};
  return run_rest(im, &r, Exits{.result = result, .returned = returned, .function = true});
}

}  // namespace nabla::interp::script
