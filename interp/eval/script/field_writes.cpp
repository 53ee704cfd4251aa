// Note [Fields written inside a lowered loop]
// `self.buf[t] = h`, `self.buf[:, t] = h` or `self.state.add_(h)` in a model's loop
// writes into a parameter's or buffer's tensor reached through an attribute, not a
// variable: Note [Variables written in place inside a lowered region] carries only
// variables, so the loop used to unroll ("let buf = self.buf" was the workaround).
// Now a field written in the body is carried as a variable written in place is:
//  - found by the statements' form (the expression under the written index chain,
//    views and in-place methods is `obj.field`, obj a variable the body neither
//    assigns nor declares, or a model's field named bare), and read once before the
//    loop; a field that holds no tensor, or a tensor that is a view of a larger
//    memory, is left alone (the write stays the capture's refusal, and the loop
//    unrolls);
//  - the region binds a copy of the field's tensor and stands it for the field's
//    memory (Note [Aliases of a variable written in place]): reads of the field in the
//    body read the copy, and writes through it go into the copy, while the eager run of
//    the body writes the real tensor, which the region puts back when it ends;
//  - the node carries the copy, and after it the field's tensor takes the result with
//    one copy_: in the function's capture a write into a parameter or buffer is its
//    copy node (Note [A write into part of a parameter]), so the live tensor changes at
//    every call, as eager's;
//  - `self.buf[t] = h`, its only write, at the top of a scan's body is a stacked step
//    output instead (Note [Rows written at a step's index]);
//  - a tensor that the layers and functions the body calls write (BatchNorm's running
//    statistics), which no statement names, is found by a first run of the body and
//    carried the same way when the statement is lowered again (Note [Tensors a lowered
//    region's calls write], graph/capture_writes.cpp; adopt_called_writes).
// A parameter that requires grad is written as eager writes it: eager refuses the
// write outside no_grad (the body's run fails, and the loop unrolls to eager's error),
// and inside no_grad the copy after the node is made without gradients too.
#include "interp/eval/script/field_writes.hpp"

#include <algorithm>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "graph/ir.hpp"

namespace nabla::interp::script {

namespace {

// obj.a.b down to a variable, or a bare field name: what can be read again before the
// loop. Its variable must not change in the body.
bool stable_path(Impl& im, const Block& body, const Expr& e) {
  if (e.kind == ExprKind::Attribute) return stable_path(im, body, *static_cast<const Attribute&>(e).object);
  if (e.kind != ExprKind::Name) return false;
  auto& n = static_cast<const Name&>(e);
  return n.slot < 0 || (!assigned_by_name(body, n) && !declares(im, body, n));
}

std::string path_text(const Expr& e) {
  if (e.kind == ExprKind::Name) return static_cast<const Name&>(e).id;
  auto& a = static_cast<const Attribute&>(e);
  return path_text(*a.object) + "." + a.name;
}

// The field a statement writes into: an attribute, or a name the resolver left to the model.
const Expr* written_field(Impl& im, const Block& body, const Stmt& s) {
  const Expr* w = written_by(s);
  if (!w) return nullptr;
  const Expr& root = written_root(*w);
  if (root.kind == ExprKind::Name && static_cast<const Name&>(root).slot < 0) return &root;
  if (root.kind != ExprKind::Attribute || !stable_path(im, body, root)) return nullptr;
  return &root;
}

bool whole_memory(const Tensor& t) {
  return t.is_contiguous() && t.offset() == 0 &&
         t.storage()->nbytes == static_cast<size_t>(t.numel()) * dtype_size(t.dtype());
}

void add_field(Impl& im, const Expr& e, Fields& out) {
  Value v;
  try {
    v = im.eval(e);
  } catch (const std::exception&) {
    return;  // not readable before the loop: the body's own run says why
  }
  if (v.tag != Tag::Tensor || !whole_memory(v.t)) return;
  for (Field& f : out)
    if (f.tensor.impl() == v.t.impl()) {
      f.sites.push_back(&e);
      ++f.writes;
      return;
    }
  out.push_back(Field{path_text(e), v.t, {&e}, 1});
}

void fields_in(Impl& im, const Block& body, const Block& b, Fields& out, size_t from = 0) {
  for (size_t k = from; k < b.stmts.size(); ++k) {
    const auto& s = b.stmts[k];
    if (const Expr* e = written_field(im, body, *s)) add_field(im, *e, out);
    switch (s->kind) {
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(*s);
        for (const Block& blk : i.blocks) fields_in(im, body, blk, out);
        if (i.else_block) fields_in(im, body, *i.else_block, out);
        break;
      }
      case StmtKind::While: fields_in(im, body, static_cast<const WhileStmt&>(*s).body, out); break;
      case StmtKind::For: fields_in(im, body, static_cast<const ForStmt&>(*s).body, out); break;
      case StmtKind::Context: fields_in(im, body, static_cast<const ContextStmt&>(*s).body, out); break;
      default: break;
    }
  }
}

}  // namespace

namespace {

bool holds(const Fields& fields, const Tensor& t) {
  return std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.tensor.storage() == t.storage(); });
}

// A field for a tensor a called layer writes: no site names it. Its name is the
// model's ("bn.running_mean") where the function's capture has one, else its type
// and the call that wrote it ("f64[3] written at bn (m.dsl:8:11)").
void add_called_field(Capture& capture, const Tensor& t, const std::string& where, Fields& out) {
  if (holds(out, t)) return;
  std::string name = capture.name_of(t);
  if (name.empty() || name.rfind("free", 0) == 0)
    name = graph::meta_str({t.sizes(), t.dtype()}) + " written" + (where.empty() ? " by a call" : " at " + where);
  out.push_back(Field{name, t, {}, 0});
}

void add_remembered(Impl& im, const Block& b, Fields& out) {
  for (const ScriptMode::CalledWrite& w : im.ev.script->called_writes)
    if (w.body == &b) add_called_field(*im.ev.script->capture, w.tensor, w.origin, out);
}

}  // namespace

Fields fields_written_in(Impl& im, const Block& body) {
  Fields out;
  fields_in(im, body, body, out);
  add_remembered(im, body, out);
  return out;
}

void add_fields_written_in(Impl& im, const Block& b, Fields& out, size_t from) {
  fields_in(im, b, b, out, from);
  add_remembered(im, b, out);
}

size_t adopt_called_writes(Capture& region, Fields& fields) {
  size_t added = 0;
  const std::vector<graph::Capture::OuterWrite> writes = region.outer_writes();
  for (const auto& w : writes) {
    if (holds(fields, w.tensor)) continue;  // carried already: stays the region's problem
    region.adopt_outer_write(w.tensor);
    add_called_field(region, w.tensor, w.problem.origin, fields);
    ++added;
  }
  return added;
}

bool remember_called_writes(Impl& im, Capture& region, const Block& body, const Fields& fields) {
  Fields found = fields;
  const std::vector<graph::Capture::OuterWrite> writes = region.outer_writes();
  if (adopt_called_writes(region, found) == 0) return false;
  for (size_t k = fields.size(); k < found.size(); ++k)
    for (const auto& w : writes)
      if (w.tensor.storage() == found[k].tensor.storage())
        im.ev.script->called_writes.push_back({&body, w.tensor, w.problem.origin});
  return true;
}

const Field* field_at(const Fields& fields, const Expr& e) {
  for (const Field& f : fields)
    if (std::find(f.sites.begin(), f.sites.end(), &e) != f.sites.end()) return &f;
  return nullptr;
}

std::string field_names(const Fields& fields) {
  std::string s;
  for (const Field& f : fields) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}

void write_field(const Field& f, const Tensor& result) {
  Tensor target = f.tensor;
  if (target.requires_grad() && target.is_leaf()) {  // only a no_grad body could write it
    NoGradGuard quiet;
    copy_(target, result);
    return;
  }
  copy_(target, result);
}

}  // namespace nabla::interp::script
