// Note [Rows written at a step's index]
// `out[t] = h` or `out[:, t] = h` in a `for t in range(n)` is how many RNNs and decoders
// collect their outputs. Lowered as a write in place (Note [Variables written in place
// inside a lowered region]), the scan carries all of `out` and rewrites it at every
// step: a 256-step RNN took 75-120 ms against 2-3 ms for `hs.append(h)`. So a statement
// that only writes the step's row, where
//  - it is a statement of the body itself (it runs once per step), `out[..., t, ...]`
//    with t the loop's target and whole slices or one `...` around it;
//  - `out` holds a tensor, is written by that one statement, and is not assigned, and
//    no other variable the loop carries holds a tensor on its memory;
//  - the loop is over a range and may not break or return;
// becomes a stacked step output, as an appended list does: the evaluator's hook
// (take_row_write) keeps the value instead of writing it, and after the scan one
// write puts the stacked rows into `out` at the rows the range visited (a range never
// names a row twice, so the last write of each row is its only one). If the step
// read `out` after all (a read of it, or of a view or alias of it, made before the
// loop), its rows would be stale: the loop is lowered again, carrying `out`.
#include "interp/eval/script/row_writes.hpp"

#include <algorithm>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/advanced_indexing.hpp"

namespace nabla::interp::script {

namespace {

bool whole_slice(const Expr& e) {
  if (e.kind != ExprKind::Slice) return false;
  auto& s = static_cast<const Slice&>(e);
  return !s.start && !s.stop && !s.step;
}

// The position of the loop target among the index items, or -1 when the items are not
// whole slices, at most one `...`, and the target once.
int64_t target_item(const Index& ix, const Loc& target, int64_t* ellipsis) {
  int64_t at = -1;
  *ellipsis = -1;
  for (size_t k = 0; k < ix.items.size(); ++k) {
    const Expr& e = *ix.items[k];
    if (whole_slice(e)) continue;
    if (e.kind == ExprKind::Ellipsis && *ellipsis < 0) {
      *ellipsis = static_cast<int64_t>(k);
      continue;
    }
    if (e.kind != ExprKind::Name || at >= 0) return -1;
    auto& n = static_cast<const Name&>(e);
    if (n.depth != target.depth || n.slot != target.slot) return -1;
    at = static_cast<int64_t>(k);
  }
  return at;
}

// The dim of a rank-`rank` tensor that item `at` indexes (a `...` covers what the
// other items do not).
int64_t dim_of_item(int64_t at, int64_t ellipsis, size_t items, int64_t rank) {
  if (ellipsis < 0 || at < ellipsis) return at;
  return at + rank - static_cast<int64_t>(items);
}

// Whether b holds a continue (in nested blocks too): the statements after it would run
// inside a cond's branches, not once per step.
bool has_continue(const Block& b) {
  for (const auto& s : b.stmts) {
    switch (s->kind) {
      case StmtKind::Continue: return true;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(*s);
        for (const Block& blk : i.blocks)
          if (has_continue(blk)) return true;
        if (i.else_block && has_continue(*i.else_block)) return true;
        break;
      }
      case StmtKind::While: if (has_continue(static_cast<const WhileStmt&>(*s).body)) return true; break;
      case StmtKind::For: if (has_continue(static_cast<const ForStmt&>(*s).body)) return true; break;
      case StmtKind::Context: if (has_continue(static_cast<const ContextStmt&>(*s).body)) return true; break;
      default: break;
    }
  }
  return false;
}

// Whether another variable the loop carries (or another field it writes) holds a
// tensor on t's memory (`let v = out[1]` with out carried): its region copy would not
// see the rows kept here. `v`: t's own variable (null for a field's).
bool shares_memory(Impl& im, const Vars& vars, const Fields& fields, const Name* v, const Tensor& t) {
  for (const Field& f : fields)
    if (f.tensor.impl() != t.impl() && f.tensor.storage() == t.storage()) return true;
  for (const Name* n : vars) {
    if (v && same_var(*n, *v)) continue;
    TensorList leaves;
    tensor_leaves(im.load(loc(*n)), leaves);
    for (const Tensor& x : leaves)
      if (x.storage() == t.storage()) return true;
  }
  return false;
}

}  // namespace

Vars without(const Vars& vars, const Vars& drop) {
  Vars out;
  for (const Name* n : vars)
    if (std::none_of(drop.begin(), drop.end(), [&](const Name* d) { return d && same_var(*d, *n); })) out.push_back(n);
  return out;
}

namespace {

// Note [Fields written inside a lowered loop]: `self.buf[t] = h` as a stacked output
// when it is the field's only write, as `out[t] = h` is for a variable's.
void add_field_rows(Impl& im, const Loc& target, const Index& ix, const Vars& vars, Fields& fields, RowWrites& rw) {
  const Field* f = field_at(fields, *ix.object);
  int64_t ellipsis;
  const int64_t at = target_item(ix, target, &ellipsis);
  // A parameter that requires grad is carried: the body's own run writes it as eager
  // does, failing where eager fails (outside no_grad), at the write's line.
  if (!f || f->writes != 1 || at < 0 || f->tensor.requires_grad() || shares_memory(im, vars, fields, nullptr, f->tensor))
    return;
  const int64_t rank = f->tensor.dim();
  if (static_cast<int64_t>(ix.items.size()) - (ellipsis >= 0 ? 1 : 0) > rank) return;
  rw.vars.push_back(nullptr);
  rw.names.push_back(f->name);
  rw.targets.push_back(&ix);
  rw.dims.push_back(dim_of_item(at, ellipsis, ix.items.size(), rank));
  rw.before.push_back(Value::tensor(f->tensor));
  fields.erase(fields.begin() + (f - fields.data()));
}

}  // namespace

std::string rows_text(const RowWrites& rw) {
  std::string s;
  for (const std::string& n : rw.names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

RowWrites row_writes_in(Impl& im, const ForStmt& f, const Vars& vars, Fields& fields) {
  RowWrites rw;
  if (im.ev.script->no_row_writes || f.target.is_tuple() || has_continue(f.body)) return rw;
  const Loc target = im.loc_of(&f.target);
  Vars seen, twice;
  for (const auto& s : f.body.stmts) {
    if (s->kind != StmtKind::Assign) continue;
    const Expr& t = *static_cast<const AssignStmt&>(*s).target;
    if (t.kind != ExprKind::Index) continue;
    auto& ix = static_cast<const Index&>(t);
    if (ix.object->kind != ExprKind::Name || static_cast<const Name&>(*ix.object).slot < 0) {
      add_field_rows(im, target, ix, vars, fields, rw);
      continue;
    }
    auto& v = static_cast<const Name&>(*ix.object);
    if (v.slot < 0 || std::none_of(vars.begin(), vars.end(), [&](const Name* n) { return same_var(*n, v); })) continue;
    bool again = std::any_of(seen.begin(), seen.end(), [&](const Name* n) { return same_var(*n, v); });
    add_var(v, seen);
    if (again) add_var(v, twice);
    int64_t ellipsis;
    const int64_t at = target_item(ix, target, &ellipsis);
    Value held = im.load(loc(v));
    if (again || at < 0 || held.tag != Tag::Tensor || assigned_by_name(f.body, v) ||
        shares_memory(im, vars, fields, &v, held.t))
      continue;
    const int64_t rank = held.t.dim();
    if (static_cast<int64_t>(ix.items.size()) - (ellipsis >= 0 ? 1 : 0) > rank) continue;
    rw.vars.push_back(&v);
    rw.names.push_back(v.id);
    rw.targets.push_back(&t);
    rw.dims.push_back(dim_of_item(at, ellipsis, ix.items.size(), rank));
    rw.before.push_back(held);
  }
  // A variable two statements write is carried as before.
  for (size_t k = rw.vars.size(); k-- > 0;) {
    if (!rw.vars[k] || std::none_of(twice.begin(), twice.end(), [&](const Name* n) { return same_var(*n, *rw.vars[k]); }))
      continue;
    rw.vars.erase(rw.vars.begin() + static_cast<long>(k));
    rw.names.erase(rw.names.begin() + static_cast<long>(k));
    rw.targets.erase(rw.targets.begin() + static_cast<long>(k));
    rw.dims.erase(rw.dims.begin() + static_cast<long>(k));
    rw.before.erase(rw.before.begin() + static_cast<long>(k));
  }
  rw.values.assign(rw.vars.size(), Value());
  return rw;
}

std::string rows_written(Region& body, const RowWrites& rw, const Tensor& xs) {
  const std::vector<int64_t> rows = to_int64_vector(xs);
  for (size_t k = 0; k < rw.vars.size(); ++k) {
    if (rw.values[k].tag == Tag::None) return "'" + rw.names[k] + "' was not written at the step";
    const int64_t n = rw.before[k].t.size(rw.dims[k]);
    for (int64_t r : rows)
      if (r < -n || r >= n) return "the loop's index " + std::to_string(r) + " is out of range for '" + rw.names[k] + "'";
    for (const auto& [id, t] : body.capture().captured())
      if (t.storage() == rw.before[k].t.storage()) return "the step reads '" + rw.names[k] + "'";
  }
  return "";
}

TensorList row_yields(const RowWrites& rw) {
  TensorList rows;
  for (size_t k = 0; k < rw.vars.size(); ++k) {
    const Tensor& out = rw.before[k].t;
    std::vector<int64_t> row = out.sizes().vec();
    row.erase(row.begin() + rw.dims[k]);
    Tensor v = to_tensor_arg(rw.values[k], "tensor assignment");
    v = drop_leading_ones(to_dtype(v, out.dtype()), static_cast<int64_t>(row.size()));
    rows.push_back(contiguous(expand(v, IntList(row.begin(), row.end()))));
  }
  return rows;
}

void write_rows(const RowWrites& rw, const TensorList& stacks, const Tensor& xs) {
  for (size_t k = 0; k < rw.vars.size(); ++k) {
    const Tensor& out = rw.before[k].t;
    const int64_t d = rw.dims[k], n = out.size(d);
    std::vector<double> rows;
    for (int64_t r : to_int64_vector(xs)) rows.push_back(static_cast<double>(r < 0 ? r + n : r));
    Tensor at = tensor_from(rows, {static_cast<int64_t>(rows.size())}, DType::i64);
    IntList order;  // the stacked dim 0 moved to d
    for (int64_t j = 1; j <= d; ++j) order.push_back(j);
    order.push_back(0);
    for (int64_t j = d + 1; j < stacks[k].dim(); ++j) order.push_back(j);
    Tensor placed = permute(stacks[k], order);
    put_indexed(out, placed, [&](const Tensor& positions) { return index_select(positions, d, to_device(at, out.device())); },
                false);
  }
}

}  // namespace nabla::interp::script

namespace nabla::interp {

bool take_row_write(ScriptMode& s, const lang::Expr& target, const Value& v) {
  script::RowWrites* rw = s.row_writes;
  if (!rw) return false;
  for (size_t k = 0; k < rw->targets.size(); ++k)
    if (rw->targets[k] == &target) {
      rw->values[k] = v;
      return true;
    }
  return false;
}

}  // namespace nabla::interp
