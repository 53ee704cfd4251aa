// The evaluator's hot paths: statements, expressions and the scalar fast paths
// (eval, exec_inner, exec_for, exec_block, binary_values), with name reads and
// writes. These stay in one translation unit so that the compiler inlines across
// them; what is not on the hot path (resolver, calls, models, modules, raising and
// locating errors, context blocks, iterate) lives in the other evaluator_*.cpp files
// and must not move here. See evaluator.hpp for the design.
#include "interp/eval/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/eval/capture_reads.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/values/object_regions.hpp"
#include "interp/eval/script/script_mode.hpp"
#include "interp/builtins/profile.hpp"

namespace nabla::interp {

// ---- locations ------------------------------------------------------------------------

Value Evaluator::Impl::self_field(Frame* f, const std::string& name) {
  if (f->self.tag != Tag::Instance) undefined(name);
  auto* inst = f->self.as<InstanceObj>();
  if (Field* fld = inst->find(name)) {
    if (noting_reads()) note_field_read(f->self, name, fld->value);  // Note [What a capture read]
    return fld->value;
  }
  auto& methods = inst->cls->info->methods;
  if (methods.count(name)) return bound(f->self, name);
  fail("model " + inst->cls->decl->name + " has no field '" + name + "' yet (it is assigned later in the body)");
}

const Value& Evaluator::Impl::read_name(const Name& n) {
  if (n.depth < 0) {
    if (!module->defined[n.slot]) undefined(n.id, &n);
    if (noting_reads()) note_module_read(*module, n.slot, n.id, module->slots[n.slot]);  // Note [What a capture read]
    return module->slots[n.slot];
  }
  Frame* f = frame_at(n.depth);
  if (n.slot >= 0) {
    if (n.depth > 0 && noting_reads()) note_frame_read(*f, n.slot, n.id, f->slots[n.slot]);
    return f->slots[n.slot];
  }
  if (n.slot == -3) return f->self;
  tmp_ = self_field(f, n.id);
  return tmp_;
}

void Evaluator::Impl::assign_name(const Name& n, Value v) {
  if (n.depth < 0) {
    if (!module->defined[n.slot]) undefined(n.id, &n, " (declare it with let)");
    if (current_capture())  // Note [What a capture read]
      check_change_in_capture(*module, "assign to '" + n.id + "', a global variable");
    module->slots[n.slot] = std::move(v);
    return;
  }
  Frame* f = frame_at(n.depth);
  if (n.slot >= 0) {
    if (n.depth > 0 && current_capture())
      check_change_in_capture(*f, "assign to '" + n.id + "', a variable of an enclosing function");
    f->slots[n.slot] = std::move(v);
    return;
  }
  if (n.slot == -3) fail("cannot assign to self");
  if (f->self.tag != Tag::Instance) undefined(n.id, &n, " (declare it with let)");
  auto* inst = f->self.as<InstanceObj>();
  if (current_capture()) {  // Note [A tensor field written in a capture]
    FieldWrite w = tensor_field_write(*inst, n.id, v);
    if (w == FieldWrite::written) return;
    if (w == FieldWrite::check) check_change_in_capture(*inst, "set attribute '" + n.id + "' of a " + inst->cls->decl->name);
  }
  set_field(*inst, n.id, std::move(v), false);
}

// ---- statements -------------------------------------------------------------------------

void Evaluator::Impl::bind_pattern(const Pattern& p, Value v) {
  if (!p.is_tuple()) {
    store(loc_of(&p), std::move(v));
    return;
  }
  Evaluator::CallSiteScope site(ev, &p.span);  // where a model's __iter__ is called from
  std::vector<Value> items = unpack(v, p.items.size());
  for (size_t k = 0; k < items.size(); ++k) bind_pattern(p.items[k], std::move(items[k]));
}

void Evaluator::Impl::assign_target(const Expr& target, Value v) {
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
      Evaluator::CallSiteScope site(ev, &a.span);  // where a model's __setattr__ hook is called from
      ev.set_attr(obj, a.name, std::move(v));
      return;
    }
    case ExprKind::Index: {
      if (ev.script && take_row_write(*ev.script, target, v)) return;  // Note [Rows written at a step's index]
      auto& i = static_cast<const Index&>(target);
      Value obj = eval(*i.object);
      std::vector<Value> idx = eval_index_items(i);
      if (obj.tag == Tag::Tensor) set_origin(target);  // x[i] = v writes with an op
      Evaluator::CallSiteScope site(ev, &i.span);  // where a model's __setitem__ is called from
      assign_index(ev, obj, idx, v);
      return;
    }
    case ExprKind::Tuple:
    case ExprKind::List: {
      auto& items = target.kind == ExprKind::Tuple ? static_cast<const TupleLit&>(target).items
                                                   : static_cast<const ListLit&>(target).items;
      Evaluator::CallSiteScope site(ev, &target.span);  // where a model's __iter__ is called from
      std::vector<Value> vals = unpack(v, items.size());
      for (size_t k = 0; k < items.size(); ++k) assign_target(*items[k], std::move(vals[k]));
      return;
    }
    default: fail("cannot assign to this expression");
  }
}

Flow Evaluator::Impl::exec_inner(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Expr: {
      Value v = eval(*static_cast<const ExprStmt&>(s).expr);
      last_value = std::move(v);
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
        if (n.depth < 0 && module->defined[n.slot] && !current_capture()) {  // Note [What a capture read]
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
      if (ev.script) return script_if(i, 0);  // compile(mode="script"): interp/eval/script/control_flow.cpp
      for (size_t k = 0; k < i.conds.size(); ++k)
        if (cond_true(*i.conds[k])) return exec_block(i.blocks[k]);
      if (i.else_block) return exec_block(*i.else_block);
      return Flow::Normal;
    }
    case StmtKind::While: {
      auto& w = static_cast<const WhileStmt&>(s);
      if (ev.script) return script_while(w);
      return exec_while_from(w, std::nullopt);
    }
    case StmtKind::For: return exec_for(static_cast<const ForStmt&>(s));
    case StmtKind::Break: return Flow::Break;
    case StmtKind::Continue: return Flow::Continue;
    case StmtKind::Return: {
      auto& r = static_cast<const ReturnStmt&>(s);
      ret = r.value ? eval(*r.value) : Value();
      if (ev.script) ev.script->returns.last_return = &s;  // Note [Returns inside a lowered loop]
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
      try {
        store(loc_of(&i), Value::object(Tag::Module, do_import(i)));
      } catch (LangError& e) {
        locate_at_import(e, i.span);
        throw;
      }
      return Flow::Normal;
    }
    case StmtKind::Context: return exec_context(static_cast<const ContextStmt&>(s));
    case StmtKind::Test: return Flow::Normal;  // run by run_tests
  }
  return Flow::Normal;
}

// `first`: the condition's first value when the caller has evaluated it already.
Flow Evaluator::Impl::exec_while_from(const WhileStmt& w, std::optional<bool> first) {
  while (true) {
    ev.check_interrupt();
    ev.count_step();
    bool go = first ? *first : cond_true(*w.cond);
    first.reset();
    if (!go) break;
    Flow f = exec_block(w.body);
    if (f == Flow::Break) break;
    if (f == Flow::Return) return f;
  }
  return Flow::Normal;
}

bool Evaluator::Impl::cond_true(const Expr& e) { return value_true(eval(e), e); }

void Evaluator::Impl::exec_aug(const AugAssignStmt& a) {
  const Expr& t = *a.target;
  if (t.kind == ExprKind::Name) {
    auto& n = static_cast<const Name&>(t);
    Value cur = read_name(n);
    Value rhs = eval(*a.value);
    if (cur.tag == Tag::Tensor || rhs.tag == Tag::Tensor) set_origin(t);
    assign_name(n, binary_op(a.op, cur, rhs));
  } else if (t.kind == ExprKind::Attribute) {
    auto& at = static_cast<const Attribute&>(t);
    Value obj = eval(*at.object);
    Value cur = obj.tag == Tag::Instance ? get_attr_at(obj, at) : ev.get_attr(obj, at.name);
    Value rhs = eval(*a.value);
    if (cur.tag == Tag::Tensor || rhs.tag == Tag::Tensor) set_origin(t);
    Evaluator::CallSiteScope site(ev, &at.span);
    ev.set_attr(obj, at.name, binary_op(a.op, cur, rhs));
  } else if (t.kind == ExprKind::Index) {
    auto& ix = static_cast<const Index&>(t);
    Value obj = eval(*ix.object);
    std::vector<Value> idx = eval_index_items(ix);
    call_site = &ix.span;
    Value cur = index_value(ev, obj, idx);
    Value rhs = eval(*a.value);
    if (cur.tag == Tag::Tensor || rhs.tag == Tag::Tensor) set_origin(t);
    assign_index(ev, obj, idx, binary_op(a.op, cur, rhs));
  } else {
    fail("cannot assign to this expression");
  }
}

Flow Evaluator::Impl::exec_for(const ForStmt& f) {
  Value it = eval(*f.iterable);
  call_site = &f.iterable->span;  // where a model's __iter__ is called from
  if (ev.script)
    if (std::optional<Flow> lowered = script_for(f, it)) return *lowered;  // a scan: interp/eval/script/control_flow.cpp
  return exec_for_value(f, it);
}

Flow Evaluator::Impl::exec_for_value(const ForStmt& f, const Value& it) {
  bool simple = !f.target.is_tuple();
  Loc l = simple ? loc_of(&f.target) : Loc{};
  Flow result = Flow::Normal;
  each_item(it, [&](Value v) {
    ev.check_interrupt();
    ev.count_step();
    if (simple) store(l, std::move(v));
    else bind_pattern(f.target, std::move(v));
    Flow fl = ev.script ? script_step(f.body) : exec_block(f.body);
    if (fl == Flow::Return) result = Flow::Return;
    return fl != Flow::Break && fl != Flow::Return;
  });
  return result;
}

// ---- expressions --------------------------------------------------------------------------

// Makes `e` the current origin (tensor/origin.hpp), for every expression that may run
// an op: autograd nodes, graph capture, CPU and GPU allocations, anomaly mode, errors
// from deep inside ops and a profiler all read it. It is always kept current, with no
// condition, because it costs an int store: the text is interned once per AST node
// (See Note [Interned origins]). An expression of the standard library stands for the
// user's call into it instead (See Note [User line] in evaluator_trace.cpp).
void Evaluator::Impl::set_origin(const Expr& e) {
  if (e.origin_id == 0) [[unlikely]] {
    e.origin_id = intern_origin(e.span.where());
    note_origin_expression(e.origin_id, e.span.text());
  }
  const SourceFile* file = e.span.file.get();
  if (file && file->library && !ev.full_trace) [[unlikely]] {
    set_current_origin_id(library_origin(e));
    return;
  }
  set_current_origin_id(e.origin_id);
}

// The call about to run: error traces, call-site spans and the origin.
void Evaluator::Impl::enter_call(const Call& c) {
  call_site = &c.span;
  ev.current_span = &c.span;
  current_call = &c;
  set_origin(c);
}

std::vector<Value> Evaluator::Impl::eval_index_items(const Index& ix) {
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

Value Evaluator::Impl::binary_values(const Binary& b, const Value& l, const Value& r) {
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
  if (l.tag == Tag::Tensor || r.tag == Tag::Tensor) set_origin(e);
  return binary_op(b.op, l, r);
}

// Float-float and int-int arithmetic and comparisons inline (the scalar loop's
// hot path); anything else, overflow included, goes to binary_values.
bool Evaluator::Impl::scalar_binary_fast(BinaryOp op, const Value& l, const Value& r, Value* out) {
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

// A literal, or a variable of this frame or of the module, read with no call and no try
// region; false for any other expression (and for a name the slow path must see: one
// not yet defined, or a global while a capture notes what it reads).
bool Evaluator::Impl::leaf_value(const Expr& e, Value* out) {
  switch (e.kind) {
    case ExprKind::Int: *out = Value::integer(static_cast<const IntLit&>(e).value); return true;
    case ExprKind::Float: *out = Value::number(static_cast<const FloatLit&>(e).value); return true;
    case ExprKind::Name: {
      auto& n = static_cast<const Name&>(e);
      if (n.depth < 0) {
        if (!module->defined[n.slot] || noting_reads()) return false;
        *out = module->slots[n.slot];
        return true;
      }
      if (n.depth != 0 || n.slot < 0) return false;
      *out = frame->slots[n.slot];
      return true;
    }
    default: return false;
  }
}

Value Evaluator::Impl::eval(const Expr& e) {
  // Leaves, and operators on leaves, without a call or a try region: the hot path of
  // scalar loops (`s = s + 1.0` reads both operands here, not in two more calls of eval).
  switch (e.kind) {
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Name: {
      Value v;
      if (leaf_value(e, &v)) return v;
      break;
    }
    case ExprKind::Binary: {
      if (e.height >= kTall) [[unlikely]] break;  // eval_inner checks the stack first
      auto& b = static_cast<const Binary&>(e);
      Value l, r;
      if (!leaf_value(*b.lhs, &l)) l = eval(*b.lhs);
      if (!leaf_value(*b.rhs, &r)) r = eval(*b.rhs);
      Value fast;
      if (scalar_binary_fast(b.op, l, r, &fast)) return fast;
      try {
        return binary_values(b, l, r);
      } catch (LangError& err) {  // the usual case, with one rethrow (rethrow_located takes two)
        if (!err.located) locate(err, e.span);
        throw;
      } catch (...) {
        rethrow_located(e.span);
      }
    }
    default: break;
  }
  try {
    return eval_inner(e);
  } catch (LangError& err) {  // the usual case, with one rethrow (rethrow_located takes two)
    if (!err.located) locate(err, e.span);
    throw;
  } catch (...) {
    rethrow_located(e.span);
  }
}

// Note [Deep expressions] (lang/ast.hpp): a chain of kLongChain links or more is
// walked down its first operands into a vector and evaluated bottom up, each link
// with eval_link, so that `a + a + ... + a` (10^6 terms) or x.f().g()... run at
// one level of native stack.
Value Evaluator::Impl::eval_chain(const Expr& e) {
  std::vector<const Expr*> links;
  const Expr* bottom = &e;
  for (const Expr* first = first_operand(e); first; first = first_operand(*first)) {
    links.push_back(bottom);
    bottom = first;
  }
  Value v = eval(*bottom);
  for (size_t k = links.size(); k-- > 0;) {
    const Expr& link = *links[k];
    try {
      v = eval_link(link, std::move(v));
    } catch (LangError& err) {  // the usual case, with one rethrow (rethrow_located takes two)
      if (!err.located) locate(err, link.span);
      throw;
    } catch (...) {
      rethrow_located(link.span);
    }
  }
  return v;
}

Value Evaluator::Impl::eval_link(const Expr& link, Value first) {
  switch (link.kind) {
    case ExprKind::Unary: return eval_unary(static_cast<const Unary&>(link), first);
    case ExprKind::Binary: {
      auto& b = static_cast<const Binary&>(link);
      Value r = eval(*b.rhs);
      return binary_values(b, first, r);  // not scalar_binary_fast: eval's copy stays inlined
    }
    case ExprKind::Logical: return eval_logical(static_cast<const Logical&>(link), std::move(first));
    case ExprKind::Attribute: return eval_attribute(static_cast<const Attribute&>(link), first);
    case ExprKind::Index: return eval_index(static_cast<const Index&>(link), first);
    case ExprKind::Call: return eval_call(static_cast<const Call&>(link), first);
    default: fail("internal error: not a chain link");
  }
}

Value Evaluator::Impl::eval_attribute(const Attribute& a, const Value& obj) {
  if (obj.tag == Tag::Tensor) set_origin(a);  // x.T, x.mT are ops
  if (obj.tag == Tag::Instance) return get_attr_at(obj, a);
  return ev.get_attr(obj, a.name);
}

// A model's obj.name read at `a`: a field at once, else through get_attr, with `a` as
// the call site of a __getattr__ hook.
Value Evaluator::Impl::get_attr_at(const Value& obj, const Attribute& a) {
  if (const Field* f = obj.as<InstanceObj>()->find(a.name)) {
    if (noting_reads()) note_field_read(obj, a.name, f->value);  // Note [What a capture read]
    return f->value;
  }
  Evaluator::CallSiteScope site(ev, &a.span);
  return ev.get_attr(obj, a.name);
}

Value Evaluator::Impl::eval_index(const Index& ix, const Value& obj) {
  if (std::optional<Value> found = index_container_fast(ix, obj)) return std::move(*found);
  std::vector<Value> idx = eval_index_items(ix);
  if (obj.tag == Tag::Tensor) set_origin(ix);
  call_site = &ix.span;  // where a model's __getitem__ is called from
  return index_value(ev, obj, idx);
}

// `first` is the callee, or for a method call x.f(...) the object x.
Value Evaluator::Impl::eval_call(const Call& c, const Value& first) {
  CallArgs args = eval_args(c);
  enter_call(c);
  if (c.callee->kind == ExprKind::Attribute)
    return ev.call_method(first, static_cast<const Attribute&>(*c.callee).name, args);
  return ev.call_value(first, args);
}

// Note [and, or and not on a traced condition]
// Under compile(mode="script") a loop or branch condition that is a tensor lowers to a
// node; `while err > tol and steps < 100` would otherwise read err > tol's value to
// short-circuit, which a graph cannot replay. So `and`, `or` and `not` whose (left)
// operand is a traced one-element tensor combine as bool masks, elementwise, both sides
// evaluated: the same truth value, now a tensor the lowering can carry.
bool Evaluator::Impl::traced_condition(const Value& v) const {
  return ev.script && v.tag == Tag::Tensor && v.t.numel() == 1 && ev.script->capture->traced(v.t);
}

namespace {

Value as_mask(const Value& v) {
  if (v.tag != Tag::Tensor) return Value::boolean(truthy(v));
  return v.t.dtype() == DType::b8 ? v : binary_op(BinaryOp::Ne, v, Value::integer(0));
}

}  // namespace

Value Evaluator::Impl::eval_unary(const Unary& u, const Value& v) {
  if (u.op == UnaryOp::Not && traced_condition(v)) return binary_op(BinaryOp::Eq, as_mask(v), Value::boolean(false));
  if (u.op == UnaryOp::Not) return Value::boolean(!truth_at(v, u.span));
  if (v.tag == Tag::Tensor) set_origin(u);
  return unary_op(u.op, v);
}

Value Evaluator::Impl::eval_logical(const Logical& l, Value lhs) {
  if (traced_condition(lhs))
    return binary_op(l.op == LogicalOp::And ? BinaryOp::BitAnd : BinaryOp::BitOr, as_mask(lhs), as_mask(eval(*l.rhs)));
  bool t = truth_at(lhs, l.span);
  if (l.op == LogicalOp::And) return t ? eval(*l.rhs) : lhs;
  return t ? lhs : eval(*l.rhs);
}

CallArgs Evaluator::Impl::eval_args(const Call& c) {
  CallArgs a;
  a.pos.reserve(c.args.size());
  for (auto& arg : c.args) {
    if (arg.splat) splat_into(arg, a.pos);
    else if (arg.name.empty()) a.pos.push_back(eval(*arg.value));
    else a.kw.emplace_back(arg.name, eval(*arg.value));
  }
  return a;
}

// Note [Interned string literals]
// A str is immutable, so every evaluation of one literal can share one value, made
// the first time and kept on the AST node (StringLit::interned), as Python interns
// its constants. Before, each evaluation allocated a new str: a dict key such as
// st["exp_avg"] in an optimizer's step was a malloc, a copy and a free every time
// (about 9000 instructions of an eager Adam step over six parameters). The
// interpreter evaluates on one thread, so the first evaluation writes it unguarded.
static Value string_literal(const StringLit& lit) {
  if (!lit.interned) lit.interned = make_str(lit.value).o;  // shared_ptr<Obj> -> shared_ptr<void>
  return Value::object(Tag::Str, std::static_pointer_cast<Obj>(lit.interned));
}

Value Evaluator::Impl::eval_inner(const Expr& e) {
  // Below a node less than kTall high the recursion is short: only tall nodes pay
  // for the stack check (Note [Deep expressions]).
  if (e.height >= kTall) [[unlikely]] {
    if (stack_nearly_full()) throw_stack_full();
    if (e.chain_length >= kLongChain) return eval_chain(e);
  }
  switch (e.kind) {
    case ExprKind::None: return Value();
    case ExprKind::Bool: return Value::boolean(static_cast<const BoolLit&>(e).value);
    case ExprKind::Int: return Value::integer(static_cast<const IntLit&>(e).value);
    case ExprKind::Float: return Value::number(static_cast<const FloatLit&>(e).value);
    case ExprKind::String: return string_literal(static_cast<const StringLit&>(e));
    case ExprKind::FString: {
      std::string out;
      for (auto& p : static_cast<const FString&>(e).parts) {
        if (!p.expr) {
          out += p.text;
          continue;
        }
        Value v = eval(*p.expr);
        if (v.tag == Tag::Tensor) set_origin(*p.expr);  // a capture's complaint about formatting it names it
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
        if (d.unpacks(k)) { unpack_into(*obj, eval(*d.keys[k])); continue; }  // {**m}
        Value key = eval(*d.keys[k]);
        check_key(key);
        obj->set(key, eval(*d.values[k]));
      }
      return Value::object(Tag::Dict, std::move(obj));
    }
    case ExprKind::Name: return read_name(static_cast<const Name&>(e));
    case ExprKind::Attribute: {
      auto& a = static_cast<const Attribute&>(e);
      return eval_attribute(a, eval(*a.object));
    }
    case ExprKind::Index: {
      auto& ix = static_cast<const Index&>(e);
      return eval_index(ix, eval(*ix.object));
    }
    case ExprKind::Slice: fail("a slice is only allowed inside [ ]");
    case ExprKind::Ellipsis: fail("'...' is only allowed inside [ ]");
    case ExprKind::Call: {
      auto& c = static_cast<const Call&>(e);
      const Expr& first = c.callee->kind == ExprKind::Attribute ? *static_cast<const Attribute&>(*c.callee).object
                                                                 : *c.callee;
      return eval_call(c, eval(first));
    }
    case ExprKind::Unary: {
      auto& u = static_cast<const Unary&>(e);
      return eval_unary(u, eval(*u.operand));
    }
    case ExprKind::Binary: {
      auto& b = static_cast<const Binary&>(e);
      Value l = eval(*b.lhs);
      Value r = eval(*b.rhs);
      return binary_values(b, l, r);
    }
    case ExprKind::Logical: {
      auto& l = static_cast<const Logical&>(e);
      return eval_logical(l, eval(*l.lhs));
    }
    case ExprKind::Conditional: {
      auto& c = static_cast<const Conditional&>(e);
      if (ev.script) return script_conditional(c);  // interp/eval/script/control_flow.cpp
      return cond_true(*c.cond) ? eval(*c.then_value) : eval(*c.else_value);
    }
    case ExprKind::Lambda: return make_function(static_cast<const Lambda&>(e).decl, "");
    case ExprKind::Comprehension: return eval_comprehension(static_cast<const Comprehension&>(e));
  }
  fail("internal error: unknown expression");
}

void Evaluator::Impl::check_key(const Value& k) { check_dict_key(k); }

}  // namespace nabla::interp
