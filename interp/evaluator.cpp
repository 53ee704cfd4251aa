// The evaluator: resolver, statements, expressions, calls, models, custom
// differentiable functions, imports and the error path (see evaluator.hpp).
#include "interp/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "lang/parser.hpp"

namespace nabla::interp {

using namespace lang;

// ---- errors -----------------------------------------------------------------------

void fail(const std::string& message) { throw LangError(message); }

std::string LangError::formatted() const {
  std::string out = located ? format_error(span, message) : "error: " + message;
  for (const auto& line : trace) out += "\n" + line;
  return out;
}

void Evaluator::throw_interrupt() {
  interrupt_flag.store(false);
  LangError e("interrupted");
  e.interrupted = true;
  throw e;
}

// ---- stdlib sources -----------------------------------------------------------------

namespace {
std::mutex& stdlib_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<std::string, std::string>& stdlib_sources() {
  static std::unordered_map<std::string, std::string> m;
  return m;
}
}  // namespace

void register_stdlib_source(const std::string& name, const std::string& source) {
  std::lock_guard<std::mutex> lock(stdlib_mutex());
  stdlib_sources()[name] = source;
}
const std::string* find_stdlib_source(const std::string& name) {
  std::lock_guard<std::mutex> lock(stdlib_mutex());
  auto it = stdlib_sources().find(name);
  return it == stdlib_sources().end() ? nullptr : &it->second;
}

// ---- the implementation ---------------------------------------------------------------

enum class Flow { Normal, Break, Continue, Return };

// A break or continue that reached a function or module boundary.
std::string stray_flow_message(Flow f) {
  return f == Flow::Break ? "'break' outside a loop" : "'continue' outside a loop";
}

struct CallRec {
  const SourceSpan* site;
  const std::string* name;
};

struct RCtx {
  RCtx* parent = nullptr;
  bool is_module = false;
  Module* module = nullptr;
  FnInfo* info = nullptr;
  std::vector<std::unordered_map<std::string, int>> blocks;
  const ModelInfo* model = nullptr;  // methods and constructors: bare member names
};

struct Evaluator::Impl {
  Evaluator& ev;
  explicit Impl(Evaluator& e) : ev(e) {}

  // Resolution results keyed by AST node address (programs are kept alive).
  std::unordered_map<const void*, Loc> locs;
  std::unordered_map<const FnDecl*, FnInfo> fn_infos;
  std::unordered_map<const ModelDecl*, ModelInfo> model_infos;
  std::vector<std::shared_ptr<Program>> programs;

  // Execution state.
  Frame* frame = nullptr;
  Module* module = nullptr;
  Value ret;
  std::vector<CallRec> stack;
  const SourceSpan* call_site = nullptr;
  const Expr* origin_expr = nullptr;

  // ================================ resolver ================================
  RCtx* rc = nullptr;

  Loc declare(const std::string& name) {
    if (rc->is_module) {
      if (rc->blocks.size() <= 1) return {-1, rc->module->slot_of(name)};
      auto& b = rc->blocks.back();
      auto it = b.find(name);
      if (it != b.end()) return {-1, it->second};
      int s = rc->module->anon_slot(name);
      b[name] = s;
      return {-1, s};
    }
    auto& b = rc->blocks.back();
    auto it = b.find(name);
    if (it != b.end()) return {0, it->second};
    int s = rc->info->nslots++;
    b[name] = s;
    return {0, s};
  }

  Loc lookup(const std::string& name) {
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

  void declare_pattern(const Pattern& p) {
    if (!p.is_tuple()) {
      locs[&p] = declare(p.name);
      return;
    }
    for (auto& item : p.items) declare_pattern(item);
  }

  void resolve_block(const Block& b, bool new_scope = true) {
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

  FnInfo& resolve_fn(const FnDecl& d, const ModelInfo* model) {
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
    }
    info.nparams = static_cast<int>(d.params.size());
    RCtx* saved = rc;
    rc = &c;
    if (d.expr_body) resolve_expr(*d.expr_body);
    else resolve_block(d.block_body, false);
    rc = saved;
    return info;
  }

  void resolve_model(const ModelDecl& d) {
    ModelInfo& mi = model_infos[&d];
    mi = ModelInfo{};
    for (auto& m : d.methods) {
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
        resolve_expr(*static_cast<AssignStmt*>(s.get())->value);  // a field: the target is by name
        continue;
      }
      resolve_stmt(*s);
    }
    for (auto& m : d.methods) resolve_fn(*m, c.model);
    rc = saved;
  }

  void resolve_stmt(const Stmt& s) {
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
        resolve_block(w.body);
        break;
      }
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(s);
        resolve_expr(*f.iterable);
        rc->blocks.emplace_back();
        declare_pattern(f.target);
        resolve_block(f.body, false);
        rc->blocks.pop_back();
        break;
      }
      case StmtKind::Break:
      case StmtKind::Continue: break;
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
      case StmtKind::Test: resolve_block(static_cast<const TestStmt&>(s).body); break;
    }
  }

  static std::string import_alias(const ImportStmt& i) {
    if (!i.alias.empty()) return i.alias;
    if (!i.is_path) {
      auto dot = i.module.rfind('.');
      return dot == std::string::npos ? i.module : i.module.substr(dot + 1);
    }
    std::string stem = i.module;
    auto slash = stem.find_last_of("/\\");
    if (slash != std::string::npos) stem = stem.substr(slash + 1);
    auto dot = stem.rfind('.');
    if (dot != std::string::npos) stem = stem.substr(0, dot);
    return stem;
  }

  void resolve_expr(const Expr& e) {
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
        for (auto& x : d.values) resolve_expr(*x);
        break;
      }
      case ExprKind::Name: {
        auto& n = const_cast<Name&>(static_cast<const Name&>(e));
        Loc l = lookup(n.id);
        n.depth = l.depth;
        n.slot = l.slot;
        break;
      }
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
    }
  }

  void resolve_program(const Program& p, Module* m, bool child_scope) {
    RCtx c;
    c.is_module = true;
    c.module = m;
    c.blocks.emplace_back();
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

  // ================================ locations ================================
  Frame* frame_at(int depth) {
    Frame* f = frame;
    while (depth-- > 0) f = f->parent.get();
    return f;
  }

  const Loc& loc_of(const void* node) {
    auto it = locs.find(node);
    if (it == locs.end()) fail("internal error: unresolved binding");
    return it->second;
  }

  void store(const Loc& l, Value v) {
    if (l.depth < 0) {
      module->slots[l.slot] = std::move(v);
      module->defined[l.slot] = 1;
    } else {
      frame_at(l.depth)->slots[l.slot] = std::move(v);
    }
  }

  [[noreturn]] void undefined(const std::string& name) { fail("undefined name '" + name + "'"); }

  Value self_field(Frame* f, const std::string& name) {
    if (f->self.tag != Tag::Instance) undefined(name);
    auto* inst = f->self.as<InstanceObj>();
    if (Field* fld = inst->find(name)) return fld->value;
    auto& methods = inst->cls->info->methods;
    if (methods.count(name)) return bound(f->self, name);
    fail("model " + inst->cls->decl->name + " has no field '" + name + "' yet (it is assigned later in the body)");
  }

  static Value bound(const Value& self, const std::string& name) {
    auto b = std::make_shared<BoundObj>();
    b->self = self;
    b->name = name;
    return Value::object(Tag::Bound, std::move(b));
  }

  const Value& read_name(const Name& n) {
    if (n.depth < 0) {
      if (!module->defined[n.slot]) undefined(n.id);
      return module->slots[n.slot];
    }
    Frame* f = frame_at(n.depth);
    if (n.slot >= 0) return f->slots[n.slot];
    if (n.slot == -3) return f->self;
    tmp_ = self_field(f, n.id);
    return tmp_;
  }
  Value tmp_;

  void assign_name(const Name& n, Value v) {
    if (n.depth < 0) {
      if (!module->defined[n.slot]) fail("undefined name '" + n.id + "' (declare it with let)");
      module->slots[n.slot] = std::move(v);
      return;
    }
    Frame* f = frame_at(n.depth);
    if (n.slot >= 0) {
      f->slots[n.slot] = std::move(v);
      return;
    }
    if (n.slot == -3) fail("cannot assign to self");
    if (f->self.tag != Tag::Instance) fail("undefined name '" + n.id + "' (declare it with let)");
    set_field(*f->self.as<InstanceObj>(), n.id, std::move(v), false);
  }

  // ================================ models ================================
  static void set_field(InstanceObj& inst, const std::string& name, Value v, bool buffer) {
    FieldKind kind = buffer ? FieldKind::buffer
                     : v.tag == Tag::Instance ? FieldKind::submodule
                     : v.tag == Tag::Tensor && v.t.defined() && v.t.requires_grad() && v.t.is_leaf()
                         ? FieldKind::parameter
                         : FieldKind::attribute;
    if (buffer && v.tag != Tag::Tensor) fail("buffer '" + name + "' must be a tensor, got " + type_name(v));
    if (Field* f = inst.find(name)) {
      if (f->kind == FieldKind::buffer && v.tag == Tag::Tensor) kind = FieldKind::buffer;
      f->value = std::move(v);
      f->kind = kind;
      return;
    }
    inst.fields.push_back({name, std::move(v), kind});
  }

  // ================================ statements ================================
  Flow exec_block(const Block& b) {
    for (auto& s : b.stmts) {
      Flow f = exec(*s);
      if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
  }

  void locate(LangError& e, const SourceSpan& span) {
    e.located = true;
    e.span = span;
    size_t n = stack.size();
    if (n == 0) return;
    auto line = [](const SourceSpan* s, const std::string& name) {
      return "  at " + (s ? s->where() : std::string("<native>")) + " in " + name;
    };
    std::vector<std::string> lines;
    lines.push_back(line(&span, *stack[n - 1].name + "()"));
    for (size_t k = n - 1; k >= 1; --k) lines.push_back(line(stack[k].site, *stack[k - 1].name + "()"));
    lines.push_back(line(stack[0].site, "<module>"));
    if (lines.size() > 24) {
      size_t skipped = lines.size() - 20;
      std::vector<std::string> cut(lines.begin(), lines.begin() + 10);
      cut.push_back("  ... " + std::to_string(skipped) + " more calls ...");
      cut.insert(cut.end(), lines.end() - 10, lines.end());
      lines = std::move(cut);
    }
    e.trace = std::move(lines);
  }

  [[noreturn]] void rethrow_located(const SourceSpan& span) {
    try {
      throw;
    } catch (LangError& e) {
      if (!e.located) locate(e, span);
      throw;
    } catch (Error& e) {
      LangError le(e.what());
      locate(le, span);
      throw le;
    } catch (std::bad_alloc&) {
      LangError le("out of memory");
      locate(le, span);
      throw le;
    } catch (std::exception& e) {
      LangError le(e.what());
      locate(le, span);
      throw le;
    }
  }

  Flow exec(const Stmt& s) {
    try {
      return exec_inner(s);
    } catch (...) {
      rethrow_located(s.span);
    }
  }

  void bind_pattern(const Pattern& p, Value v) {
    if (!p.is_tuple()) {
      store(loc_of(&p), std::move(v));
      return;
    }
    std::vector<Value> items = unpack(v, p.items.size());
    for (size_t k = 0; k < items.size(); ++k) bind_pattern(p.items[k], std::move(items[k]));
  }

  std::vector<Value> unpack(const Value& v, size_t n) {
    std::vector<Value> items;
    if (v.tag == Tag::List || v.tag == Tag::Tuple) items = v.as<ListObj>()->items;
    else if (v.tag == Tag::Tensor || v.tag == Tag::Range || v.tag == Tag::Dict) items = ev.iterate(v);
    else fail(std::string("cannot unpack ") + type_name(v) + " into " + std::to_string(n) + " names");
    if (items.size() != n)
      fail("cannot unpack " + std::to_string(items.size()) + " values into " + std::to_string(n) + " names");
    return items;
  }

  void assign_target(const Expr& target, Value v) {
    switch (target.kind) {
      case ExprKind::Name:
        try {
          assign_name(static_cast<const Name&>(target), std::move(v));
        } catch (...) {
          rethrow_located(target.span);
        }
        return;
      case ExprKind::Attribute: {
        auto& a = static_cast<const Attribute&>(target);
        Value obj = eval(*a.object);
        ev.set_attr(obj, a.name, std::move(v));
        return;
      }
      case ExprKind::Index: {
        auto& i = static_cast<const Index&>(target);
        Value obj = eval(*i.object);
        std::vector<Value> idx = eval_index_items(i);
        assign_index(ev, obj, idx, v);
        return;
      }
      case ExprKind::Tuple:
      case ExprKind::List: {
        auto& items = target.kind == ExprKind::Tuple ? static_cast<const TupleLit&>(target).items
                                                     : static_cast<const ListLit&>(target).items;
        std::vector<Value> vals = unpack(v, items.size());
        for (size_t k = 0; k < items.size(); ++k) assign_target(*items[k], std::move(vals[k]));
        return;
      }
      default: fail("cannot assign to this expression");
    }
  }

  Flow exec_inner(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Expr: {
        Value v = eval(*static_cast<const ExprStmt&>(s).expr);
        last_value = std::move(v);
        last_was_expr = true;
        return Flow::Normal;
      }
      case StmtKind::Let: {
        auto& l = static_cast<const LetStmt&>(s);
        Value v = l.value ? eval(*l.value) : Value();
        if (!l.target.is_tuple()) store(loc_of(&l.target), std::move(v));
        else bind_pattern(l.target, std::move(v));
        return Flow::Normal;
      }
      case StmtKind::Assign: {
        auto& a = static_cast<const AssignStmt&>(s);
        Value v = eval(*a.value);
        if (a.target->kind == ExprKind::Name) {
          auto& n = static_cast<const Name&>(*a.target);
          if (n.depth < 0 && module->defined[n.slot]) {
            module->slots[n.slot] = std::move(v);
            return Flow::Normal;
          }
          if (n.depth == 0 && n.slot >= 0) {
            frame->slots[n.slot] = std::move(v);
            return Flow::Normal;
          }
        }
        assign_target(*a.target, std::move(v));
        return Flow::Normal;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssignStmt&>(s);
        exec_aug(a);
        return Flow::Normal;
      }
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(s);
        for (size_t k = 0; k < i.conds.size(); ++k)
          if (cond_true(*i.conds[k])) return exec_block(i.blocks[k]);
        if (i.else_block) return exec_block(*i.else_block);
        return Flow::Normal;
      }
      case StmtKind::While: {
        auto& w = static_cast<const WhileStmt&>(s);
        while (true) {
          ev.check_interrupt();
          if (!cond_true(*w.cond)) break;
          Flow f = exec_block(w.body);
          if (f == Flow::Break) break;
          if (f == Flow::Return) return f;
        }
        return Flow::Normal;
      }
      case StmtKind::For: return exec_for(static_cast<const ForStmt&>(s));
      case StmtKind::Break: return Flow::Break;
      case StmtKind::Continue: return Flow::Continue;
      case StmtKind::Return: {
        auto& r = static_cast<const ReturnStmt&>(s);
        ret = r.value ? eval(*r.value) : Value();
        return Flow::Return;
      }
      case StmtKind::Fn: {
        auto& f = static_cast<const FnStmt&>(s);
        store(loc_of(&f), make_function(f.decl, f.decl->name));
        return Flow::Normal;
      }
      case StmtKind::Model: {
        auto& m = static_cast<const ModelStmt&>(s);
        auto cls = std::make_shared<ModelClassObj>();
        cls->decl = m.decl;
        cls->info = &model_infos.at(m.decl.get());
        cls->env = frame ? frame->shared_from_this() : nullptr;
        cls->module = module_ptr();
        for (auto& p : m.decl->params) cls->defaults.push_back(p.default_value ? eval(*p.default_value) : Value());
        store(loc_of(&m), Value::object(m.decl->is_function ? Tag::FnClass : Tag::ModelClass, std::move(cls)));
        return Flow::Normal;
      }
      case StmtKind::Buffer: {
        auto& b = static_cast<const BufferStmt&>(s);
        if (!frame || frame->self.tag != Tag::Instance) fail("'buffer' is only allowed in a model body");
        set_field(*frame->self.as<InstanceObj>(), b.name, eval(*b.value), true);
        return Flow::Normal;
      }
      case StmtKind::Import: {
        auto& i = static_cast<const ImportStmt&>(s);
        store(loc_of(&i), Value::object(Tag::Module, do_import(i)));
        return Flow::Normal;
      }
      case StmtKind::Context: return exec_context(static_cast<const ContextStmt&>(s));
      case StmtKind::Test: return Flow::Normal;  // run by run_tests
    }
    return Flow::Normal;
  }

  Value last_value;
  bool last_was_expr = false;

  bool cond_true(const Expr& e) {
    Value v = eval(e);
    if (v.tag == Tag::Bool) return v.b;
    try {
      return truthy(v);
    } catch (...) {
      rethrow_located(e.span);
    }
  }

  void exec_aug(const AugAssignStmt& a) {
    const Expr& t = *a.target;
    if (t.kind == ExprKind::Name) {
      auto& n = static_cast<const Name&>(t);
      Value cur = read_name(n);
      Value rhs = eval(*a.value);
      set_origin_for(cur, rhs, t);
      assign_name(n, binary_op(a.op, cur, rhs));
    } else if (t.kind == ExprKind::Attribute) {
      auto& at = static_cast<const Attribute&>(t);
      Value obj = eval(*at.object);
      Value cur = ev.get_attr(obj, at.name);
      Value rhs = eval(*a.value);
      set_origin_for(cur, rhs, t);
      ev.set_attr(obj, at.name, binary_op(a.op, cur, rhs));
    } else if (t.kind == ExprKind::Index) {
      auto& ix = static_cast<const Index&>(t);
      Value obj = eval(*ix.object);
      std::vector<Value> idx = eval_index_items(ix);
      Value cur = index_value(ev, obj, idx);
      Value rhs = eval(*a.value);
      set_origin_for(cur, rhs, t);
      assign_index(ev, obj, idx, binary_op(a.op, cur, rhs));
    } else {
      fail("cannot assign to this expression");
    }
  }

  Flow exec_for(const ForStmt& f) {
    Value it = eval(*f.iterable);
    bool simple = !f.target.is_tuple();
    Loc l = simple ? loc_of(&f.target) : Loc{};
    auto body = [&](Value v) -> int {  // 0 go on, 1 break, 2 return
      ev.check_interrupt();
      if (simple) store(l, std::move(v));
      else bind_pattern(f.target, std::move(v));
      Flow fl = exec_block(f.body);
      if (fl == Flow::Break) return 1;
      if (fl == Flow::Return) return 2;
      return 0;
    };
    if (it.tag == Tag::Range) {
      auto r = *it.as<RangeObj>();
      int64_t n = r.size();
      for (int64_t k = 0; k < n; ++k) {
        int c = body(Value::integer(r.start + k * r.step));
        if (c == 1) break;
        if (c == 2) return Flow::Return;
      }
      return Flow::Normal;
    }
    if (it.tag == Tag::List) {
      // Python semantics: a list that grows while iterating is seen growing.
      auto keep = it.o;
      auto* l2 = it.as<ListObj>();
      for (size_t k = 0; k < l2->items.size(); ++k) {
        int c = body(l2->items[k]);
        if (c == 1) break;
        if (c == 2) return Flow::Return;
      }
      return Flow::Normal;
    }
    std::vector<Value> items = ev.iterate(it);
    for (auto& v : items) {
      int c = body(std::move(v));
      if (c == 1) break;
      if (c == 2) return Flow::Return;
    }
    return Flow::Normal;
  }

  Flow exec_context(const ContextStmt& c) {
    if (!c.args.empty() && c.keyword != "autocast")
      fail("'" + c.keyword + "' takes no arguments");
    if (c.keyword == "no_grad") {
      NoGradGuard g;
      return exec_block(c.body);
    }
    if (c.keyword == "enable_grad") {
      GradModeGuard g(true);
      return exec_block(c.body);
    }
    if (c.keyword == "detect_anomaly") {
      AnomalyGuard g;
      return exec_block(c.body);
    }
    fail("unknown context '" + c.keyword + "' (expected no_grad, enable_grad or detect_anomaly)");
  }

  // ================================ imports ================================
  std::shared_ptr<Module> module_ptr() {
    return module->shared_from_this();
  }

  std::shared_ptr<Module> do_import(const ImportStmt& i) {
    if (!i.is_path) {
      auto cached = ev.import_cache.find(i.module);
      if (cached != ev.import_cache.end()) return cached->second;
      auto nm = ev.native_modules.find(i.module);
      if (nm != ev.native_modules.end()) {
        auto m = nm->second(ev);
        ev.import_cache[i.module] = m;
        return m;
      }
      const std::string* src = find_stdlib_source(i.module);
      std::string text;
      std::string path = "<stdlib>/" + i.module + ".dsl";
      if (src) {
        text = *src;
      } else {
        // Look for stdlib/<name>.dsl on disk: $NABLA_STDLIB, then next to the source tree.
        std::vector<std::string> dirs;
        if (const char* env = std::getenv("NABLA_STDLIB")) dirs.push_back(env);
#ifdef NABLA_STDLIB_DIR
        dirs.push_back(NABLA_STDLIB_DIR);
#endif
        dirs.push_back("stdlib");
        bool found = false;
        for (auto& d : dirs) {
          std::ifstream f(d + "/" + i.module + ".dsl");
          if (f) {
            std::stringstream ss;
            ss << f.rdbuf();
            text = ss.str();
            path = d + "/" + i.module + ".dsl";
            found = true;
            break;
          }
        }
        if (!found) fail("no module named '" + i.module + "'");
      }
      auto m = load_module(i.module, path, text);
      ev.import_cache[i.module] = m;
      return m;
    }
    std::string base = module->path;
    std::string dir;
    auto slash = base.find_last_of('/');
    if (slash != std::string::npos) dir = base.substr(0, slash + 1);
    std::string path = !i.module.empty() && i.module[0] == '/' ? i.module : dir + i.module;
    auto cached = ev.import_cache.find("file:" + path);
    if (cached != ev.import_cache.end()) return cached->second;
    std::ifstream f(path);
    if (!f) fail("cannot import '" + i.module + "': no file " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    auto m = load_module(import_alias(i), path, ss.str());
    ev.import_cache["file:" + path] = m;
    return m;
  }

  std::shared_ptr<Module> load_module(const std::string& name, const std::string& path, const std::string& text) {
    auto file = std::make_shared<SourceFile>();
    file->name = path;
    file->text = text;
    auto parsed = parse(file);
    if (!parsed.program) fail("in module '" + name + "':\n" + parsed.error.value_or("syntax error"));
    auto m = ev.new_module(name, path);
    std::shared_ptr<Program> prog(std::move(parsed.program));
    bool dummy = false;
    ev.run_program(prog, m, false, &dummy);
    return m;
  }

  // ================================ functions ================================
  Value make_function(const std::shared_ptr<FnDecl>& decl, const std::string& name) {
    auto f = std::make_shared<FuncObj>();
    f->decl = decl;
    f->info = &fn_infos.at(decl.get());
    f->env = frame ? frame->shared_from_this() : nullptr;
    f->module = module_ptr();
    f->qualname = name;
    bool any = false;
    for (auto& p : decl->params) any |= p.default_value != nullptr;
    if (any)
      for (auto& p : decl->params) f->defaults.push_back(p.default_value ? eval(*p.default_value) : Value());
    return Value::object(Tag::Func, std::move(f));
  }

  struct FrameGuard {
    Impl& im;
    Frame* f;
    Module* m;
    size_t depth;
    FrameGuard(Impl& i) : im(i), f(i.frame), m(i.module), depth(i.stack.size()) {}
    ~FrameGuard() {
      im.frame = f;
      im.module = m;
      im.stack.resize(depth);
    }
  };

  // Binds arguments to the first params of `frame` (Python rules, no *args).
  void bind_args(const std::string& fname, const std::vector<Param>& params, const std::vector<Value>* defaults,
                 CallArgs& args, Frame& fr, size_t skip) {
    size_t np = params.size() - skip;
    if (args.pos.size() > np)
      fail(fname + "() takes " + std::to_string(np) + " argument" + (np == 1 ? "" : "s") + " but " +
           std::to_string(args.pos.size()) + (args.pos.size() == 1 ? " was" : " were") + " given");
    std::vector<uint8_t> set(params.size(), 0);
    for (size_t k = 0; k < args.pos.size(); ++k) {
      fr.slots[k + skip] = std::move(args.pos[k]);
      set[k + skip] = 1;
    }
    for (auto& [name, v] : args.kw) {
      size_t k = skip;
      while (k < params.size() && params[k].name != name) ++k;
      if (k == params.size()) fail(fname + "() got an unexpected keyword argument '" + name + "'");
      if (set[k]) fail(fname + "() got multiple values for argument '" + name + "'");
      fr.slots[k] = std::move(v);
      set[k] = 1;
    }
    for (size_t k = skip; k < params.size(); ++k) {
      if (set[k]) continue;
      if (!params[k].default_value) fail(fname + "() missing required argument '" + params[k].name + "'");
      if (defaults) {
        fr.slots[k] = (*defaults)[k];
      } else {
        fr.slots[k] = eval(*params[k].default_value);  // evaluated in the enclosing frame
      }
    }
  }

  Value invoke(const FnDecl& d, const FnInfo& info, const std::shared_ptr<Frame>& env, Module* mod,
               const std::vector<Value>* defaults, const Value& self, CallArgs& args, const std::string& name,
               size_t skip = 0, std::vector<Value>* prefix = nullptr) {
    const SourceSpan* site = call_site;
    ev.check_interrupt();
    if (static_cast<int>(stack.size()) >= ev.max_depth) fail("maximum recursion depth exceeded");
    auto fr = std::make_shared<Frame>(info.nslots);
    fr->parent = env;
    fr->self = self;
    if (prefix)
      for (size_t k = 0; k < prefix->size(); ++k) fr->slots[k] = (*prefix)[k];
    if (skip == 0 && args.kw.empty() && args.pos.size() == d.params.size()) {
      for (size_t k = 0; k < args.pos.size(); ++k) fr->slots[k] = std::move(args.pos[k]);  // the common case
    } else {
      // Defaults of methods are evaluated in the enclosing frame at call time.
      FrameGuard g(*this);
      frame = env.get();
      module = mod;
      bind_args(name, d.params, defaults && !defaults->empty() ? defaults : nullptr, args, *fr, skip);
    }
    FrameGuard g(*this);
    stack.push_back({site, &name});
    frame = fr.get();
    module = mod;
    if (d.expr_body) return eval(*d.expr_body);
    Flow f = exec_block(d.block_body);
    if (f == Flow::Return) return std::move(ret);
    if (f == Flow::Break || f == Flow::Continue) fail(stray_flow_message(f));
    return Value();
  }

  Value call_func(const FuncObj& f, CallArgs& args) {
    return invoke(*f.decl, *f.info, f.env, f.module.get(), &f.defaults, Value(), args,
                  f.qualname.empty() ? std::string("<lambda>") : f.qualname);
  }

  Value instantiate(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args) {
    auto inst = std::make_shared<InstanceObj>();
    inst->cls = cls;
    Value self = Value::object(Tag::Instance, inst);
    const ModelDecl& d = *cls->decl;
    const ModelInfo& mi = *cls->info;
    const SourceSpan* site = call_site;
    ev.check_interrupt();
    if (static_cast<int>(stack.size()) >= ev.max_depth) fail("maximum recursion depth exceeded");
    auto fr = std::make_shared<Frame>(mi.ctor.nslots);
    fr->parent = cls->env;
    fr->self = self;
    {
      FrameGuard g(*this);
      frame = cls->env.get();
      module = cls->module.get();
      bind_args(d.name, d.params, &cls->defaults, args, *fr, 0);
    }
    FrameGuard g(*this);
    stack.push_back({site, &d.name});
    frame = fr.get();
    module = cls->module.get();
    struct Pop {
      Frame& f;
      ~Pop() { f.self = Value(); }  // break the instance <-> constructor frame cycle
    } pop{*fr};
    for (auto& s : d.body.stmts) {
      if (s->kind == StmtKind::Assign) {
        auto& a = static_cast<const AssignStmt&>(*s);
        if (a.target->kind == ExprKind::Name) {
          try {
            Value v = eval(*a.value);
            set_field(*inst, static_cast<const Name&>(*a.target).id, std::move(v), false);
          } catch (...) {
            rethrow_located(s->span);
          }
          continue;
        }
      }
      Flow f = exec(*s);
      if (f == Flow::Return) fail("'return' in a model body");
      if (f != Flow::Normal) fail(stray_flow_message(f));
    }
    inst->ctor_frame = fr;
    return self;
  }

  Value call_model_method(const Value& self, const std::string& name, CallArgs& args) {
    auto* inst = self.as<InstanceObj>();
    auto& methods = inst->cls->info->methods;
    auto it = methods.find(name);
    if (it == methods.end()) {
      if (Field* f = inst->find(name)) return ev.call_value(f->value, args);
      if (name == "forward") fail("model " + inst->cls->decl->name + " has no forward method, so it cannot be called");
      return builtin_model_method(self, name, args);
    }
    const FnDecl& d = *it->second;
    const FnInfo& info = fn_infos.at(&d);
    std::string qn = inst->cls->decl->name + "." + name;
    // The name must outlive the call record: keep it in a stable place.
    const std::string& stable = intern(qn);
    return invoke(d, info, inst->ctor_frame, inst->cls->module.get(), nullptr, self, args, stable);
  }

  std::unordered_set<std::string> interned;
  const std::string& intern(const std::string& s) { return *interned.insert(s).first; }

  Value builtin_model_method(const Value& self, const std::string& name, CallArgs& args);

  // ================================ custom functions ================================
  Value apply_custom(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args);
  Value call_custom_method(const ModelClassObj& cls, const std::string& name, CallArgs& args);

  // ================================ expressions ================================
  void set_origin(const Expr& e) {
    if (origin_expr == &e) return;
    origin_expr = &e;
    set_current_origin(e.span.where());
  }
  void set_origin_for(const Value& a, const Value& b, const Expr& e) {
    if ((a.tag == Tag::Tensor && a.t.defined() && a.t.requires_grad()) ||
        (b.tag == Tag::Tensor && b.t.defined() && b.t.requires_grad())) {
      if (grad_enabled()) set_origin(e);
    }
  }

  std::vector<Value> eval_index_items(const Index& ix) {
    std::vector<Value> idx;
    idx.reserve(ix.items.size());
    for (auto& it : ix.items) {
      if (it->kind == ExprKind::Slice) {
        auto& s = static_cast<const Slice&>(*it);
        idx.push_back(make_slice_value(s.start ? eval(*s.start) : Value(), s.stop ? eval(*s.stop) : Value(),
                                       s.step ? eval(*s.step) : Value()));
      } else if (it->kind == ExprKind::Ellipsis) {
        idx.push_back(ellipsis_value());
      } else {
        idx.push_back(eval(*it));
      }
    }
    return idx;
  }

  Value binary_values(const Binary& b, const Value& l, const Value& r) {
    const Expr& e = b;
    if (l.tag == Tag::Int && r.tag == Tag::Int) {
        switch (b.op) {  // the fast path of scalar loops
          case BinaryOp::Add: {
            int64_t out;
            if (!__builtin_add_overflow(l.i, r.i, &out)) return Value::integer(out);
            break;
          }
          case BinaryOp::Sub: {
            int64_t out;
            if (!__builtin_sub_overflow(l.i, r.i, &out)) return Value::integer(out);
            break;
          }
          case BinaryOp::Lt: return Value::boolean(l.i < r.i);
          case BinaryOp::Le: return Value::boolean(l.i <= r.i);
          case BinaryOp::Gt: return Value::boolean(l.i > r.i);
          case BinaryOp::Ge: return Value::boolean(l.i >= r.i);
          case BinaryOp::Eq: return Value::boolean(l.i == r.i);
          case BinaryOp::Ne: return Value::boolean(l.i != r.i);
          default: break;
        }
      }
      if (l.tag == Tag::Tensor || r.tag == Tag::Tensor) set_origin_for(l, r, e);
      return binary_op(b.op, l, r);
    }

  // Float-float and int-int arithmetic and comparisons inline (the scalar loop's
  // hot path); anything else, overflow included, goes to binary_values.
  static bool scalar_binary_fast(BinaryOp op, const Value& l, const Value& r, Value* out) {
    if (l.tag == Tag::Float && r.tag == Tag::Float) {
      double a = l.f, b = r.f;
      switch (op) {
        case BinaryOp::Add: *out = Value::number(a + b); return true;
        case BinaryOp::Sub: *out = Value::number(a - b); return true;
        case BinaryOp::Mul: *out = Value::number(a * b); return true;
        case BinaryOp::Lt: *out = Value::boolean(a < b); return true;
        case BinaryOp::Le: *out = Value::boolean(a <= b); return true;
        case BinaryOp::Gt: *out = Value::boolean(a > b); return true;
        case BinaryOp::Ge: *out = Value::boolean(a >= b); return true;
        default: return false;
      }
    }
    if (l.tag == Tag::Int && r.tag == Tag::Int) {
      int64_t a = l.i, b = r.i, c;
      switch (op) {
        case BinaryOp::Add:
          if (__builtin_add_overflow(a, b, &c)) return false;
          *out = Value::integer(c);
          return true;
        case BinaryOp::Sub:
          if (__builtin_sub_overflow(a, b, &c)) return false;
          *out = Value::integer(c);
          return true;
        case BinaryOp::Lt: *out = Value::boolean(a < b); return true;
        case BinaryOp::Le: *out = Value::boolean(a <= b); return true;
        case BinaryOp::Gt: *out = Value::boolean(a > b); return true;
        case BinaryOp::Ge: *out = Value::boolean(a >= b); return true;
        case BinaryOp::Eq: *out = Value::boolean(a == b); return true;
        case BinaryOp::Ne: *out = Value::boolean(a != b); return true;
        default: return false;
      }
    }
    return false;
  }

  Value eval(const Expr& e) {
    // Leaves without a call or a try region: the hot path of scalar loops.
    switch (e.kind) {
      case ExprKind::Int: return Value::integer(static_cast<const IntLit&>(e).value);
      case ExprKind::Float: return Value::number(static_cast<const FloatLit&>(e).value);
      case ExprKind::Name: {
        auto& n = static_cast<const Name&>(e);
        if (n.depth < 0) {
          if (module->defined[n.slot]) return module->slots[n.slot];
        } else if (n.depth == 0 && n.slot >= 0) {
          return frame->slots[n.slot];
        }
        break;
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(e);
        Value l = eval(*b.lhs);
        Value r = eval(*b.rhs);
        Value fast;
        if (scalar_binary_fast(b.op, l, r, &fast)) return fast;
        try {
          return binary_values(b, l, r);
        } catch (...) {
          rethrow_located(e.span);
        }
      }
      default: break;
    }
    try {
      return eval_inner(e);
    } catch (...) {
      rethrow_located(e.span);
    }
  }

  CallArgs eval_args(const Call& c) {
    CallArgs a;
    a.pos.reserve(c.args.size());
    for (auto& arg : c.args) {
      if (arg.name.empty()) a.pos.push_back(eval(*arg.value));
      else a.kw.emplace_back(arg.name, eval(*arg.value));
    }
    return a;
  }

  Value eval_inner(const Expr& e) {
    switch (e.kind) {
      case ExprKind::None: return Value();
      case ExprKind::Bool: return Value::boolean(static_cast<const BoolLit&>(e).value);
      case ExprKind::Int: return Value::integer(static_cast<const IntLit&>(e).value);
      case ExprKind::Float: return Value::number(static_cast<const FloatLit&>(e).value);
      case ExprKind::String: return make_str(static_cast<const StringLit&>(e).value);
      case ExprKind::FString: {
        std::string out;
        for (auto& p : static_cast<const FString&>(e).parts) {
          if (!p.expr) {
            out += p.text;
            continue;
          }
          Value v = eval(*p.expr);
          out += p.format_spec.empty() ? str(v) : format_value(v, p.format_spec);
        }
        return make_str(std::move(out));
      }
      case ExprKind::List: {
        std::vector<Value> items;
        for (auto& x : static_cast<const ListLit&>(e).items) items.push_back(eval(*x));
        return make_list(std::move(items));
      }
      case ExprKind::Tuple: {
        std::vector<Value> items;
        for (auto& x : static_cast<const TupleLit&>(e).items) items.push_back(eval(*x));
        return make_tuple(std::move(items));
      }
      case ExprKind::Dict: {
        auto& d = static_cast<const DictLit&>(e);
        auto obj = std::make_shared<DictObj>();
        for (size_t k = 0; k < d.keys.size(); ++k) {
          Value key = eval(*d.keys[k]);
          check_key(key);
          obj->set(key, eval(*d.values[k]));
        }
        return Value::object(Tag::Dict, std::move(obj));
      }
      case ExprKind::Name: return read_name(static_cast<const Name&>(e));
      case ExprKind::Attribute: {
        auto& a = static_cast<const Attribute&>(e);
        Value obj = eval(*a.object);
        return ev.get_attr(obj, a.name);
      }
      case ExprKind::Index: {
        auto& ix = static_cast<const Index&>(e);
        Value obj = eval(*ix.object);
        std::vector<Value> idx = eval_index_items(ix);
        if (obj.tag == Tag::Tensor && obj.t.requires_grad() && grad_enabled()) set_origin(e);
        return index_value(ev, obj, idx);
      }
      case ExprKind::Slice: fail("a slice is only allowed inside [ ]");
      case ExprKind::Ellipsis: fail("'...' is only allowed inside [ ]");
      case ExprKind::Call: {
        auto& c = static_cast<const Call&>(e);
        if (c.callee->kind == ExprKind::Attribute) {
          auto& a = static_cast<const Attribute&>(*c.callee);
          Value obj = eval(*a.object);
          CallArgs args = eval_args(c);
          call_site = &c.span;
          ev.current_span = &c.span;
          current_call = &e;
          return ev.call_method(obj, a.name, args);
        }
        Value callee = eval(*c.callee);
        CallArgs args = eval_args(c);
        call_site = &c.span;
        ev.current_span = &c.span;
        current_call = &e;
        return ev.call_value(callee, args);
      }
      case ExprKind::Unary: {
        auto& u = static_cast<const Unary&>(e);
        Value v = eval(*u.operand);
        if (u.op == UnaryOp::Not) return Value::boolean(!truthy(v));
        if (v.tag == Tag::Tensor) set_origin_for(v, Value(), e);
        return unary_op(u.op, v);
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(e);
        Value l = eval(*b.lhs);
        Value r = eval(*b.rhs);
        return binary_values(b, l, r);
      }
      case ExprKind::Logical: {
        auto& b = static_cast<const Logical&>(e);
        Value l = eval(*b.lhs);
        bool t = truthy(l);
        if (b.op == LogicalOp::And) return t ? eval(*b.rhs) : l;
        return t ? l : eval(*b.rhs);
      }
      case ExprKind::Conditional: {
        auto& c = static_cast<const Conditional&>(e);
        return cond_true(*c.cond) ? eval(*c.then_value) : eval(*c.else_value);
      }
      case ExprKind::Lambda: return make_function(static_cast<const Lambda&>(e).decl, "");
    }
    fail("internal error: unknown expression");
  }
  const Expr* current_call = nullptr;

  static void check_key(const Value& k) {
    switch (k.tag) {
      case Tag::Str:
      case Tag::Int:
      case Tag::Bool:
      case Tag::Float:
      case Tag::None:
      case Tag::DType: return;
      case Tag::Tuple:
        for (auto& x : k.as<ListObj>()->items) check_key(x);
        return;
      default: fail(std::string("unhashable type: '") + type_name(k) + "' cannot be a dict key");
    }
  }
};


// ---- model builtins ------------------------------------------------------------------

namespace {

void collect_params(const Value& v, const std::string& prefix, std::vector<std::pair<std::string, Value>>& out,
                    bool buffers, std::unordered_set<const void*>& seen) {
  if (v.tag == Tag::Instance) {
    for (const Field& f : v.as<InstanceObj>()->fields) {
      std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
      bool want = buffers ? f.kind == FieldKind::buffer : f.kind == FieldKind::parameter;
      if (want) {
        if (seen.insert(f.value.t.impl()).second) out.emplace_back(name, f.value);
      } else if (f.kind == FieldKind::submodule || f.value.tag == Tag::List || f.value.tag == Tag::Tuple ||
                 f.value.tag == Tag::Dict) {
        collect_params(f.value, name, out, buffers, seen);
      }
    }
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    auto& items = v.as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].tag == Tag::Instance) collect_params(items[k], prefix + "." + std::to_string(k), out, buffers, seen);
  } else if (v.tag == Tag::Dict) {
    for (auto& [k, x] : v.as<DictObj>()->entries)
      if (x.tag == Tag::Instance) collect_params(x, prefix + "." + str(k), out, buffers, seen);
  }
}

void set_training(const Value& v, bool mode) {
  if (v.tag == Tag::Instance) {
    auto* inst = v.as<InstanceObj>();
    bool found = false;
    for (Field& f : inst->fields) {
      if (f.name == "training") {
        f.value = Value::boolean(mode);
        found = true;
      } else if (f.kind == FieldKind::submodule || f.value.tag == Tag::List || f.value.tag == Tag::Tuple) {
        set_training(f.value, mode);
      }
    }
    if (!found) inst->fields.push_back({"training", Value::boolean(mode), FieldKind::attribute});
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    for (auto& x : v.as<ListObj>()->items) set_training(x, mode);
  }
}

void no_args(const CallArgs& args, const std::string& name) {
  if (!args.pos.empty() || !args.kw.empty()) fail(name + "() takes no arguments");
}

}  // namespace

const char* const kModelMethods[] = {"parameters", "named_parameters", "buffers", "named_buffers",
                                     "zero_grad",  "train",            "eval",    "children"};

Value Evaluator::Impl::builtin_model_method(const Value& self, const std::string& name, CallArgs& args) {
  if (name == "parameters" || name == "named_parameters" || name == "buffers" || name == "named_buffers") {
    no_args(args, name);
    std::vector<std::pair<std::string, Value>> out;
    std::unordered_set<const void*> seen;
    collect_params(self, "", out, name.find("buffers") != std::string::npos, seen);
    std::vector<Value> items;
    bool named = name.rfind("named_", 0) == 0;
    for (auto& [n, v] : out) items.push_back(named ? make_tuple({make_str(n), v}) : v);
    return make_list(std::move(items));
  }
  if (name == "zero_grad") {
    no_args(args, name);
    std::vector<std::pair<std::string, Value>> out;
    std::unordered_set<const void*> seen;
    collect_params(self, "", out, false, seen);
    for (auto& [n, v] : out) v.t.set_grad(Tensor());
    return Value();
  }
  if (name == "train" || name == "eval") {
    bool mode = name == "train";
    if (name == "train" && !args.pos.empty()) mode = truthy(args.pos[0]);
    set_training(self, mode);
    return self;
  }
  if (name == "children") {
    no_args(args, name);
    std::vector<Value> items;
    for (const Field& f : self.as<InstanceObj>()->fields)
      if (f.kind == FieldKind::submodule) items.push_back(f.value);
    return make_list(std::move(items));
  }
  fail("model " + self.as<InstanceObj>()->cls->decl->name + " has no attribute '" + name + "'");
}

// ---- custom differentiable functions --------------------------------------------------

namespace {

struct DslFunctionNode : Node {
  Evaluator* ev = nullptr;
  std::shared_ptr<ModelClassObj> cls;
  Value ctx;
  size_t num_inputs = 0;
  std::string node_name;

  TensorList apply(TensorList&& grads) override {
    CallArgs args;
    args.pos.push_back(ctx);
    for (size_t k = 0; k < grads.size(); ++k) {
      Tensor g = grads[k].defined() ? grads[k] : zeros(output_metas[k].sizes, output_metas[k].dtype);
      args.pos.push_back(Value::tensor(g));
    }
    Value out = ev->impl->call_custom_method(*cls, "backward", args);
    std::vector<Value> items;
    if (out.tag == Tag::Tuple || out.tag == Tag::List) items = out.as<ListObj>()->items;
    else items.push_back(out);
    if (items.size() != num_inputs)
      fail(cls->decl->name + ".backward returned " + std::to_string(items.size()) + " gradient" +
           (items.size() == 1 ? "" : "s") + " but forward took " + std::to_string(num_inputs) + " input" +
           (num_inputs == 1 ? "" : "s"));
    TensorList result(num_inputs);
    for (size_t k = 0; k < num_inputs; ++k) {
      if (items[k].is_none() || !next_edges[k].valid()) continue;
      if (items[k].tag != Tag::Tensor)
        fail(cls->decl->name + ".backward: gradient " + std::to_string(k) + " must be a tensor or none, got " +
             type_name(items[k]));
      result[k] = items[k].t;
    }
    return result;
  }
  std::string name() const override { return node_name; }
  void release_saved() override { ctx = Value(); }
};

}  // namespace

Value Evaluator::Impl::call_custom_method(const ModelClassObj& cls, const std::string& name, CallArgs& args) {
  auto it = cls.info->methods.find(name);
  if (it == cls.info->methods.end()) fail("function " + cls.decl->name + " has no " + name + " method");
  const FnDecl& d = *it->second;
  const std::string& qn = intern(cls.decl->name + "." + name);
  return invoke(d, fn_infos.at(&d), cls.env, cls.module.get(), nullptr, Value(), args, qn);
}

Value Evaluator::Impl::apply_custom(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args) {
  if (!args.kw.empty()) fail(cls->decl->name + "() takes positional arguments only");
  auto ctxo = std::make_shared<ObjectObj>();
  ctxo->type_name = "ctx";
  ctxo->set("saved", make_tuple());
  std::vector<Value> needs;
  for (auto& a : args.pos) needs.push_back(Value::boolean(a.tag == Tag::Tensor && a.t.requires_grad()));
  ctxo->set("needs_input_grad", make_tuple(needs));
  NativeFn save = [](Evaluator&, CallArgs& a) {
    auto* self = a.pos[0].as<ObjectObj>();
    std::vector<Value> items(a.pos.begin() + 1, a.pos.end());
    self->set("saved", make_tuple(std::move(items)));
    return Value();
  };
  ctxo->methods["save"] = save;
  ctxo->methods["save_for_backward"] = save;
  Value ctx = Value::object(Tag::Object, ctxo);
  std::vector<Value> inputs = args.pos;
  CallArgs fargs;
  fargs.pos.push_back(ctx);
  for (auto& a : args.pos) fargs.pos.push_back(a);
  Value out;
  {
    NoGradGuard g;
    out = call_custom_method(*cls, "forward", fargs);
  }
  bool record = false;
  if (grad_enabled())
    for (auto& a : inputs) record |= a.tag == Tag::Tensor && a.t.requires_grad();
  bool tuple = out.tag == Tag::Tuple || out.tag == Tag::List;
  std::vector<Value> outs = tuple ? out.as<ListObj>()->items : std::vector<Value>{out};
  for (auto& o : outs)
    if (o.tag != Tag::Tensor) fail(cls->decl->name + ".forward must return tensors, got " + type_name(o));
  if (!record) return out;
  auto node = std::make_shared<DslFunctionNode>();
  node->ev = &ev;
  node->cls = cls;
  node->ctx = ctx;
  node->num_inputs = inputs.size();
  node->node_name = cls->decl->name + "Backward";
  node->origin = current_call ? current_call->span.where() : std::string();
  node->next_edges.resize(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].tag == Tag::Tensor && inputs[k].t.requires_grad()) node->next_edges[k] = gradient_edge(inputs[k].t);
  for (size_t k = 0; k < outs.size(); ++k) {
    Tensor t = detach(outs[k].t);  // a fresh impl: forward may return an input
    node->output_metas.push_back({t.sizes(), t.dtype()});
    if (is_floating(t.dtype())) {
      AutogradMeta& meta = t.impl()->autograd_meta();
      meta.requires_grad = true;
      meta.grad_fn = node;
      meta.output_nr = static_cast<uint32_t>(k);
    }
    outs[k] = Value::tensor(t);
  }
  return tuple ? make_tuple(std::move(outs)) : outs[0];
}

// ---- Evaluator ----------------------------------------------------------------------

Evaluator::Evaluator() : impl(std::make_unique<Impl>(*this)) {
  output = [](const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); };
  install_builtins(*this);
  main_module = new_module("__main__", "");
}
Evaluator::~Evaluator() = default;

std::shared_ptr<Module> Evaluator::new_module(const std::string& name, const std::string& path) {
  auto m = std::make_shared<Module>();
  m->name = name;
  m->path = path;
  for (auto& [n, v] : builtins) m->set(n, v);
  return m;
}

Value Evaluator::run_program(const std::shared_ptr<Program>& prog, const std::shared_ptr<Module>& module,
                             bool want_echo, bool* has_echo) {
  impl->programs.push_back(prog);
  impl->resolve_program(*prog, module.get(), false);
  Impl::FrameGuard g(*impl);
  impl->frame = nullptr;
  impl->module = module.get();
  *has_echo = false;
  Value last;
  for (auto& s : prog->stmts) {
    impl->last_was_expr = false;
    Flow f = impl->exec(*s);
    if (f != Flow::Normal) {
      LangError e(f == Flow::Return ? "'return' outside a function" : stray_flow_message(f));
      impl->locate(e, s->span);
      throw e;
    }
    if (want_echo) {
      *has_echo = impl->last_was_expr;
      if (impl->last_was_expr) last = std::move(impl->last_value);
    }
    impl->last_value = Value();
  }
  return last;
}

std::shared_ptr<Module> Evaluator::current_module() {
  return impl->module ? impl->module->shared_from_this() : main_module;
}

void Evaluator::run_test_block(const lang::Block& body, const std::shared_ptr<Module>& module) {
  Impl::FrameGuard g(*impl);
  impl->frame = nullptr;
  impl->module = module.get();
  Flow f = impl->exec_block(body);
  if (f != Flow::Normal && f != Flow::Return) fail(stray_flow_message(f));
}

Value Evaluator::eval_source(const std::string& source, const std::string& name, const std::shared_ptr<Module>& module,
                             bool want_value) {
  auto file = std::make_shared<SourceFile>();
  file->name = name;
  file->text = source;
  auto parsed = parse(file);
  if (!parsed.program) fail(parsed.error.value_or("syntax error"));
  std::shared_ptr<Program> prog(std::move(parsed.program));
  impl->programs.push_back(prog);
  impl->resolve_program(*prog, module.get(), true);
  Impl::FrameGuard g(*impl);
  impl->frame = nullptr;
  impl->module = module.get();
  Value last;
  for (auto& s : prog->stmts) {
    impl->last_was_expr = false;
    Flow f = impl->exec(*s);
    if (f != Flow::Normal) fail("'return', 'break' or 'continue' outside a function or loop");
    if (want_value && impl->last_was_expr) last = std::move(impl->last_value);
  }
  return last;
}

Value Evaluator::call_value(const Value& callee, CallArgs& args) {
  switch (callee.tag) {
    case Tag::Func: return impl->call_func(*callee.as<FuncObj>(), args);
    case Tag::Native: return callee.as<NativeObj>()->fn(*this, args);
    case Tag::Bound: {
      auto* b = callee.as<BoundObj>();
      return call_method(b->self, b->name, args);
    }
    case Tag::ModelClass:
      return impl->instantiate(std::static_pointer_cast<ModelClassObj>(callee.o), args);
    case Tag::FnClass: return impl->apply_custom(std::static_pointer_cast<ModelClassObj>(callee.o), args);
    case Tag::Instance: return impl->call_model_method(callee, "forward", args);
    default: fail(std::string("'") + type_name(callee) + "' object is not callable");
  }
}

Value Evaluator::get_attr(const Value& obj, const std::string& name) {
  switch (obj.tag) {
    case Tag::Tensor: {
      bool found = false;
      Value v = tensor_attr(*this, obj, name, &found);
      if (found) return v;
      return Impl::bound(obj, name);
    }
    case Tag::Instance: {
      auto* inst = obj.as<InstanceObj>();
      if (Field* f = inst->find(name)) return f->value;
      if (inst->cls->info->methods.count(name)) return Impl::bound(obj, name);
      for (const char* m : kModelMethods)
        if (name == m) return Impl::bound(obj, name);
      fail("model " + inst->cls->decl->name + " has no attribute '" + name + "'");
    }
    case Tag::Module: {
      auto* m = obj.as<Module>();
      if (const Value* v = m->get(name)) return *v;
      fail("module '" + m->name + "' has no attribute '" + name + "'");
    }
    case Tag::Object: {
      auto* o = obj.as<ObjectObj>();
      if (Value* v = o->find(name)) return *v;
      if (o->methods.count(name)) return Impl::bound(obj, name);
      fail(o->type_name + " has no attribute '" + name + "'");
    }
    case Tag::ModelClass:
    case Tag::FnClass:
      if (name == "name") return make_str(obj.as<ModelClassObj>()->decl->name);
      if (obj.tag == Tag::FnClass && name == "apply") return Impl::bound(obj, name);
      break;
    case Tag::Func:
      if (name == "name") return make_str(obj.as<FuncObj>()->qualname);
      break;
    case Tag::DType:
      if (name == "is_floating_point") return Value::boolean(is_floating(obj.dt));
      if (name == "itemsize") return Value::integer(static_cast<int64_t>(dtype_size(obj.dt)));
      break;
    case Tag::Range: {
      auto* r = obj.as<RangeObj>();
      if (name == "start") return Value::integer(r->start);
      if (name == "stop") return Value::integer(r->stop);
      if (name == "step") return Value::integer(r->step);
      break;
    }
    case Tag::Str:
    case Tag::List:
    case Tag::Dict:
    case Tag::Tuple:
      if (has_container_method(obj.tag, name)) return Impl::bound(obj, name);
      break;
    default: break;
  }
  fail(std::string(type_name(obj)) + " has no attribute '" + name + "'");
}

void Evaluator::set_attr(const Value& obj, const std::string& name, Value v) {
  switch (obj.tag) {
    case Tag::Instance: Impl::set_field(*obj.as<InstanceObj>(), name, std::move(v), false); return;
    case Tag::Object: obj.as<ObjectObj>()->set(name, std::move(v)); return;
    case Tag::Module: obj.as<Module>()->set(name, std::move(v)); return;
    case Tag::Tensor: {
      Tensor t = obj.t;
      if (name == "grad") {
        if (v.is_none()) t.set_grad(Tensor());
        else if (v.tag == Tag::Tensor) t.set_grad(v.t);
        else fail(std::string("tensor.grad must be a tensor or none, got ") + type_name(v));
        return;
      }
      if (name == "requires_grad") {
        t.set_requires_grad(truthy(v));
        return;
      }
      fail("cannot set attribute '" + name + "' of a tensor (only grad and requires_grad)");
    }
    default: fail(std::string("cannot set attribute '") + name + "' on " + type_name(obj));
  }
}

Value Evaluator::call_method(const Value& obj, const std::string& name, CallArgs& args) {
  switch (obj.tag) {
    case Tag::Tensor: return tensor_method(*this, obj, name, args);
    case Tag::Instance: return impl->call_model_method(obj, name, args);
    case Tag::Object: {
      auto* o = obj.as<ObjectObj>();
      auto it = o->methods.find(name);
      if (it != o->methods.end()) {
        args.pos.insert(args.pos.begin(), obj);
        return it->second(*this, args);
      }
      return call_value(get_attr(obj, name), args);
    }
    case Tag::FnClass:
      if (name == "apply") return impl->apply_custom(std::static_pointer_cast<ModelClassObj>(obj.o), args);
      break;
    case Tag::Str:
    case Tag::List:
    case Tag::Dict:
    case Tag::Tuple:
      if (has_container_method(obj.tag, name)) return container_method(*this, obj, name, args);
      break;
    default: break;
  }
  Value fn = get_attr(obj, name);
  return call_value(fn, args);
}

std::vector<std::string> Evaluator::member_names(const Value& v) {
  std::vector<std::string> out;
  switch (v.tag) {
    case Tag::Tensor: out = tensor_member_names(); break;
    case Tag::Instance: {
      auto* inst = v.as<InstanceObj>();
      for (auto& f : inst->fields) out.push_back(f.name);
      for (auto& [n, d] : inst->cls->info->methods) out.push_back(n);
      for (const char* m : kModelMethods) out.push_back(m);
      break;
    }
    case Tag::Module: {
      auto* m = v.as<Module>();
      for (size_t k = 0; k < m->slot_names.size(); ++k)
        if (m->defined[k] && m->names.count(m->slot_names[k])) {
          bool builtin = false;
          for (auto& [n, b] : builtins)
            if (n == m->slot_names[k] && values_equal(b, m->slots[k])) builtin = true;
          if (!builtin) out.push_back(m->slot_names[k]);
        }
      break;
    }
    case Tag::Object: {
      auto* o = v.as<ObjectObj>();
      for (auto& [n, x] : o->attrs) out.push_back(n);
      for (auto& [n, f] : o->methods) out.push_back(n);
      break;
    }
    default: out = container_method_names(v.tag); break;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Value> Evaluator::iterate(const Value& v) {
  switch (v.tag) {
    case Tag::List:
    case Tag::Tuple: return v.as<ListObj>()->items;
    case Tag::Range: {
      auto* r = v.as<RangeObj>();
      std::vector<Value> out;
      int64_t n = r->size();
      out.reserve(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) out.push_back(Value::integer(r->start + k * r->step));
      return out;
    }
    case Tag::Dict: {
      std::vector<Value> out;
      for (auto& [k, x] : v.as<DictObj>()->entries) out.push_back(k);
      return out;
    }
    case Tag::Str: {
      std::vector<Value> out;
      for (char c : v.as<StrObj>()->s) out.push_back(make_str(std::string(1, c)));
      return out;
    }
    case Tag::Tensor: {
      if (v.t.dim() == 0) fail("iteration over a 0-d tensor");
      std::vector<Value> out;
      for (int64_t k = 0; k < v.t.size(0); ++k) out.push_back(Value::tensor(select(v.t, 0, k)));
      return out;
    }
    default: fail(std::string("'") + type_name(v) + "' object is not iterable");
  }
}

}  // namespace nabla::interp
