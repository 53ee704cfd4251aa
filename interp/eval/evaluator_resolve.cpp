// The resolver: before a program runs, gives every Name a place (a frame slot at a
// depth, a module slot, a field of self, or self) and records the slot counts of
// functions and model constructors (see evaluator.hpp). Reads the AST and writes
// only the resolution results (locs, fn_infos, model_infos, Name::depth/slot); it
// must not execute anything.
#include "interp/eval/evaluator_impl.hpp"
#include "interp/eval/script/exits.hpp"

namespace nabla::interp {

Loc Evaluator::Impl::declare(const std::string& name) {
  if (rc->is_module) {
    if (rc->blocks.size() <= 1) return {-1, rc->module->slot_of(name)};
    auto& b = rc->blocks.back();
    auto it = b.find(name);
    if (it != b.end()) return {-1, it->second};
    int s = rc->module->anon_slot(name);
    b[name] = s;
    if (recording_test_locals) (*recording_test_locals)[name] = s;
    return {-1, s};
  }
  auto& b = rc->blocks.back();
  auto it = b.find(name);
  if (it != b.end()) return {0, it->second};
  int s = rc->info->nslots++;
  b[name] = s;
  return {0, s};
}

Loc Evaluator::Impl::lookup(const std::string& name) {
  int depth = 0;
  for (RCtx* c = rc; c; c = c->parent) {
    if (c->is_module) {
      for (size_t k = c->blocks.size(); k-- > 1;) {
        auto it = c->blocks[k].find(name);
        if (it != c->blocks[k].end()) return {-1, it->second};
      }
      return {-1, c->module->slot_of(name)};
    }
    for (size_t k = c->blocks.size(); k-- > 0;) {
      auto it = c->blocks[k].find(name);
      if (it != c->blocks[k].end()) return {depth, it->second};
    }
    if (c->model) {
      if (name == "self") return {depth, -3};
      if (c->model->members.count(name)) return {depth, -2};
    }
    ++depth;
  }
  return {-1, module->slot_of(name)};
}

void Evaluator::Impl::resolve_name(Name& n) {
  bool heard_of = rc->module->names.count(n.id) > 0;
  Loc l = lookup(n.id);
  n.depth = l.depth;
  n.slot = l.slot;
  if (l.depth < 0 && !heard_of && rc->module->names.count(n.id)) scope_of_new_names[&n] = names_in_scope();
}

// The names the resolver can see from here, innermost first (the module's own come
// from the module when the name is found undefined).
std::vector<std::string> Evaluator::Impl::names_in_scope() const {
  std::vector<std::string> out;
  for (const RCtx* c = rc; c; c = c->parent) {
    for (size_t k = c->blocks.size(); k-- > 0;)
      for (auto& [name, slot] : c->blocks[k]) out.push_back(name);
    if (c->model) out.insert(out.end(), c->model->members.begin(), c->model->members.end());
  }
  return out;
}

// Script mode's hidden variables, read only by it (interp/eval/script/exits.cpp): a
// loop whose body may break gets a flag in its own scope (Note [Break and continue on
// a tensor condition]), a function that returns from inside an if or a loop a result
// variable (Note [Returns on a tensor condition]), and one that returns from inside a
// loop a returned flag (Note [Returns inside a lowered loop]). Their names are none a
// program can write.
void Evaluator::Impl::declare_hidden(std::unordered_map<const Block*, std::unique_ptr<Name>>& vars, const Block& body,
                                     const char* id) {
  auto var = std::make_unique<Name>();
  var->id = id;
  var->span = body.span;
  Loc l = declare(var->id);
  var->depth = l.depth;
  var->slot = l.slot;
  vars[&body] = std::move(var);
}

void Evaluator::Impl::declare_break_flag(const Block& body) {
  if (script::body_breaks(body)) declare_hidden(break_flags, body, "(break)");
}

void Evaluator::Impl::declare_pattern(const Pattern& p) {
  if (!p.is_tuple()) {
    locs[&p] = declare(p.name);
    return;
  }
  for (auto& item : p.items) declare_pattern(item);
}

void Evaluator::Impl::resolve_block(const Block& b, bool new_scope) {
  if (new_scope) rc->blocks.emplace_back();
  // Functions of a block see each other (mutual recursion).
  for (auto& s : b.stmts)
    if (s->kind == StmtKind::Fn) {
      auto* f = static_cast<FnStmt*>(s.get());
      locs[f] = declare(f->decl->name);
    }
  for (auto& s : b.stmts) resolve_stmt(*s);
  if (new_scope) rc->blocks.pop_back();
}

FnInfo& Evaluator::Impl::resolve_fn(const FnDecl& d, const ModelInfo* model) {
  FnInfo& info = fn_infos[&d];
  info = FnInfo{};
  for (auto& p : d.params)
    if (p.default_value) resolve_expr(*p.default_value);  // in the enclosing scope
  RCtx c;
  c.parent = rc;
  c.info = &info;
  c.model = model;
  c.module = rc->module;
  c.blocks.emplace_back();
  for (auto& p : d.params) {
    c.blocks.back()[p.name] = info.nslots++;
    info.variadic |= p.variadic;
  }
  info.nparams = static_cast<int>(d.params.size());
  RCtx* saved = rc;
  rc = &c;
  if (d.expr_body) {
    resolve_expr(*d.expr_body);
  } else {
    if (script::body_returns_early(d.block_body)) declare_hidden(result_vars, d.block_body, "(return)");
    if (script::body_returns_in_loop(d.block_body)) declare_hidden(returned_flags, d.block_body, "(returned)");
    resolve_block(d.block_body, false);
  }
  rc = saved;
  return info;
}

// A model's constructor is its body (fields, `let`s and calls in order); a method named
// __init__, as a PyTorch user writes one, would never run, and the fields it sets
// would be missing later, far from here ("model A has no attribute 'pe'").
void Evaluator::Impl::reject_init_method(const FnDecl& m) {
  try {
    fail("a model's constructor is its body: a method named __init__ is never called; write its statements "
         "in the model body (`name = value` for a field, `let _ = self.register_buffer(...)` for a call)");
  } catch (...) {
    rethrow_located(m.span);
  }
}

// Note [A field named as a local of the body]
// In a model body `name = expr` makes a field. After `let a = ...` in the same body,
// `a = a.unsqueeze(0)` made a field a and left the local a as it was, so the
// statements after it (`self.register_buffer("pe", a)`) read the old value, silently:
// a PyTorch __init__ ported line by line rebinds a local this way (the translation
// tutorial's positional encoding). Such an assignment is an error that names both
// readings. A parameter is no local here: `heads = heads` is the usual field.
static void reject_field_over_local(const BlockNames& body, int nparams, const std::string& name) {
  auto it = body.find(name);
  if (it == body.end() || it->second < nparams) return;
  fail("'" + name + " = ...' in a model body makes a field, but " + name +
       " is a let of this body, which would keep its old value for the statements after: write 'let " + name +
       " = ...' to rebind the local (as a PyTorch __init__ does), or give the field another name");
}

void Evaluator::Impl::resolve_model(const ModelDecl& d) {
  ModelInfo& mi = model_infos[&d];
  mi = ModelInfo{};
  for (auto& m : d.methods) {
    if (m->name == "__init__" && !d.is_function) reject_init_method(*m);
    mi.methods[m->name] = m;
    mi.members.insert(m->name);
  }
  if (!d.is_function) {
    for (auto& s : d.body.stmts) {
      if (s->kind == StmtKind::Assign) {
        auto* a = static_cast<AssignStmt*>(s.get());
        if (a->target->kind == ExprKind::Name) mi.members.insert(static_cast<Name*>(a->target.get())->id);
      } else if (s->kind == StmtKind::Buffer) {
        mi.members.insert(static_cast<BufferStmt*>(s.get())->name);
      }
    }
  }
  for (auto& p : d.params)
    if (p.default_value) resolve_expr(*p.default_value);
  RCtx c;
  c.parent = rc;
  c.info = &mi.ctor;
  c.model = d.is_function ? nullptr : &mi;
  c.module = rc->module;
  c.blocks.emplace_back();
  for (auto& p : d.params) c.blocks.back()[p.name] = mi.ctor.nslots++;
  mi.ctor.nparams = static_cast<int>(d.params.size());
  RCtx* saved = rc;
  rc = &c;
  for (auto& s : d.body.stmts)
    if (s->kind == StmtKind::Fn) locs[s.get()] = declare(static_cast<FnStmt*>(s.get())->decl->name);
  for (auto& s : d.body.stmts) {
    if (s->kind == StmtKind::Assign && static_cast<AssignStmt*>(s.get())->target->kind == ExprKind::Name) {
      try {
        reject_field_over_local(c.blocks.back(), mi.ctor.nparams,
                                static_cast<const Name&>(*static_cast<AssignStmt*>(s.get())->target).id);
      } catch (...) {
        rethrow_located(s->span);
      }
      resolve_expr(*static_cast<AssignStmt*>(s.get())->value);  // a field: the target is by name
      continue;
    }
    resolve_stmt(*s);
  }
  for (auto& m : d.methods)
    if (!m->is_static) resolve_fn(*m, c.model);
  rc = saved;
  // A static method sees the scope the model is defined in, not the constructor's.
  for (auto& m : d.methods)
    if (m->is_static) resolve_fn(*m, nullptr);
}

void Evaluator::Impl::resolve_stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Expr: resolve_expr(*static_cast<const ExprStmt&>(s).expr); break;
    case StmtKind::Let: {
      auto& l = static_cast<const LetStmt&>(s);
      if (l.value) resolve_expr(*l.value);
      declare_pattern(l.target);
      break;
    }
    case StmtKind::Assign: {
      auto& a = static_cast<const AssignStmt&>(s);
      resolve_expr(*a.value);
      resolve_expr(*a.target);
      break;
    }
    case StmtKind::AugAssign: {
      auto& a = static_cast<const AugAssignStmt&>(s);
      resolve_expr(*a.value);
      resolve_expr(*a.target);
      break;
    }
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      for (size_t k = 0; k < i.conds.size(); ++k) {
        resolve_expr(*i.conds[k]);
        resolve_block(i.blocks[k]);
      }
      if (i.else_block) resolve_block(*i.else_block);
      break;
    }
    case StmtKind::While: {
      auto& w = static_cast<const WhileStmt&>(s);
      resolve_expr(*w.cond);
      rc->blocks.emplace_back();
      declare_break_flag(w.body);
      ++rc->loops;
      resolve_block(w.body);
      --rc->loops;
      rc->blocks.pop_back();
      break;
    }
    case StmtKind::For: {
      auto& f = static_cast<const ForStmt&>(s);
      resolve_expr(*f.iterable);
      rc->blocks.emplace_back();
      declare_pattern(f.target);
      declare_break_flag(f.body);
      ++rc->loops;
      resolve_block(f.body, false);
      --rc->loops;
      rc->blocks.pop_back();
      break;
    }
    case StmtKind::Break:
    case StmtKind::Continue:
      // Found here, at the statement, as Python's compiler finds it: at run time a
      // stray break in a function or a test block ended the call or the test, and the
      // error was shown at the call (or, for a test block, at no line at all).
      if (rc->loops == 0) {
        LangError err(stray_flow_message(s.kind == StmtKind::Break ? Flow::Break : Flow::Continue));
        locate(err, s.span);
        throw err;
      }
      break;
    case StmtKind::Return: {
      auto& r = static_cast<const ReturnStmt&>(s);
      if (r.value) resolve_expr(*r.value);
      break;
    }
    case StmtKind::Fn: {
      auto& f = static_cast<const FnStmt&>(s);
      if (!locs.count(&f)) locs[&f] = declare(f.decl->name);
      resolve_fn(*f.decl, nullptr);
      break;
    }
    case StmtKind::Model: {
      auto& m = static_cast<const ModelStmt&>(s);
      locs[&m] = declare(m.decl->name);
      resolve_model(*m.decl);
      break;
    }
    case StmtKind::Buffer: resolve_expr(*static_cast<const BufferStmt&>(s).value); break;
    case StmtKind::Import: {
      auto& i = static_cast<const ImportStmt&>(s);
      locs[&i] = declare(import_alias(i));
      break;
    }
    case StmtKind::Context: {
      auto& c = static_cast<const ContextStmt&>(s);
      for (auto& a : c.args) resolve_expr(*a.value);
      resolve_block(c.body);
      break;
    }
    case StmtKind::Test: {
      auto& t = static_cast<const TestStmt&>(s);
      BlockNames* saved = recording_test_locals;
      recording_test_locals = &test_locals[&t];
      resolve_block(t.body);
      recording_test_locals = saved;
      break;
    }
  }
}

// A long chain (Note [Deep expressions] in lang/ast.hpp) with a loop down its first
// operands; the order in which names are resolved does not matter.
void Evaluator::Impl::resolve_chain(const Expr& top) {
  const Expr* e = &top;
  for (const Expr* first = first_operand(top); first; first = first_operand(*first)) {
    resolve_other_operands(*e);
    e = first;
  }
  resolve_expr(*e);
}

// The operands of a chain link other than its first.
void Evaluator::Impl::resolve_other_operands(const Expr& link) {
  switch (link.kind) {
    case ExprKind::Binary: resolve_expr(*static_cast<const Binary&>(link).rhs); break;
    case ExprKind::Logical: resolve_expr(*static_cast<const Logical&>(link).rhs); break;
    case ExprKind::Index:
      for (auto& x : static_cast<const Index&>(link).items) resolve_expr(*x);
      break;
    case ExprKind::Call:
      for (auto& a : static_cast<const Call&>(link).args) resolve_expr(*a.value);
      break;
    default: break;  // Unary, Attribute: the first operand is all
  }
}

void Evaluator::Impl::resolve_expr(const Expr& e) {
  if (e.chain_length >= kLongChain) return resolve_chain(e);
  if (stack_nearly_full()) {
    LangError err("expression nests too deeply: the native stack is full");
    locate(err, e.span);
    throw err;
  }
  switch (e.kind) {
    case ExprKind::None:
    case ExprKind::Bool:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::String:
    case ExprKind::Ellipsis: break;
    case ExprKind::FString:
      for (auto& p : static_cast<const FString&>(e).parts)
        if (p.expr) resolve_expr(*p.expr);
      break;
    case ExprKind::List:
      for (auto& x : static_cast<const ListLit&>(e).items) resolve_expr(*x);
      break;
    case ExprKind::Tuple:
      for (auto& x : static_cast<const TupleLit&>(e).items) resolve_expr(*x);
      break;
    case ExprKind::Dict: {
      auto& d = static_cast<const DictLit&>(e);
      for (auto& x : d.keys) resolve_expr(*x);
      for (auto& x : d.values)
        if (x) resolve_expr(*x);  // null: an unpacked mapping ({**m}), held in keys
      break;
    }
    case ExprKind::Name: resolve_name(const_cast<Name&>(static_cast<const Name&>(e))); break;
    case ExprKind::Attribute: resolve_expr(*static_cast<const Attribute&>(e).object); break;
    case ExprKind::Index: {
      auto& i = static_cast<const Index&>(e);
      resolve_expr(*i.object);
      for (auto& x : i.items) resolve_expr(*x);
      break;
    }
    case ExprKind::Slice: {
      auto& s = static_cast<const Slice&>(e);
      if (s.start) resolve_expr(*s.start);
      if (s.stop) resolve_expr(*s.stop);
      if (s.step) resolve_expr(*s.step);
      break;
    }
    case ExprKind::Call: {
      auto& c = static_cast<const Call&>(e);
      resolve_expr(*c.callee);
      for (auto& a : c.args) resolve_expr(*a.value);
      break;
    }
    case ExprKind::Unary: resolve_expr(*static_cast<const Unary&>(e).operand); break;
    case ExprKind::Binary: {
      auto& b = static_cast<const Binary&>(e);
      resolve_expr(*b.lhs);
      resolve_expr(*b.rhs);
      break;
    }
    case ExprKind::Logical: {
      auto& b = static_cast<const Logical&>(e);
      resolve_expr(*b.lhs);
      resolve_expr(*b.rhs);
      break;
    }
    case ExprKind::Conditional: {
      auto& c = static_cast<const Conditional&>(e);
      resolve_expr(*c.cond);
      resolve_expr(*c.then_value);
      resolve_expr(*c.else_value);
      break;
    }
    case ExprKind::Lambda: resolve_fn(*static_cast<const Lambda&>(e).decl, nullptr); break;
    case ExprKind::Comprehension: resolve_comprehension(static_cast<const Comprehension&>(e)); break;
  }
}

// The first iterable is read in the enclosing scope (Python's rule); the loop
// variables live in a scope of their own that ends with the comprehension, so they
// neither leak out nor replace a variable of the same name outside.
void Evaluator::Impl::resolve_comprehension(const Comprehension& c) {
  resolve_expr(*c.clauses.front().expr);
  rc->blocks.emplace_back();
  for (size_t k = 0; k < c.clauses.size(); ++k) {
    if (k > 0) resolve_expr(*c.clauses[k].expr);
    if (!c.clauses[k].is_filter()) declare_pattern(c.clauses[k].target);
  }
  resolve_expr(*c.element);
  if (c.value) resolve_expr(*c.value);
  rc->blocks.pop_back();
}

void Evaluator::Impl::resolve_program(const Program& p, Module* m, bool child_scope, const BlockNames* visible) {
  RCtx c;
  c.is_module = true;
  c.module = m;
  c.blocks.emplace_back();
  if (visible) c.blocks.push_back(*visible);  // read and assigned, but a `let` makes a name of its own
  if (child_scope) c.blocks.emplace_back();
  RCtx* saved = rc;
  Module* saved_module = module;
  module = m;
  rc = &c;
  Block b;  // a view of the statements (not owning)
  for (auto& s : p.stmts)
    if (s->kind == StmtKind::Fn) locs[s.get()] = declare(static_cast<FnStmt*>(s.get())->decl->name);
  try {
    for (auto& s : p.stmts) resolve_stmt(*s);
  } catch (...) {
    rc = saved;
    module = saved_module;
    throw;
  }
  rc = saved;
  module = saved_module;
}

}  // namespace nabla::interp
