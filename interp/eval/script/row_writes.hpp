// Note [Rows written at a step's index] (row_writes.cpp): a scan's `out[..., t, ...] = h`
// as a stacked step output instead of a carried tensor.
// Internal to interp/eval/script/.
#pragma once
#include <string>
#include <vector>

#include "interp/eval/script/field_writes.hpp"
#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

struct RowWrites {
  Vars vars;                         // the written variables, one statement each (null: a field's)
  std::vector<std::string> names;    // each variable's or field's name
  std::vector<const Expr*> targets;  // each statement's target, out[..., t, ...]
  std::vector<int64_t> dims;         // the dim of its tensor that t indexes
  std::vector<Value> before;         // each variable's tensor before the loop
  std::vector<Value> values;         // what the step wrote (the evaluator's hook fills them)
};

// The qualifying statements of a `for` over a range whose body may not break or
// return (`vars`: what the loop would carry, `fields`: the fields it writes, less those
// whose rows are kept here); empty when none qualify or script mode retries without them.
RowWrites row_writes_in(Impl& im, const ForStmt& f, const Vars& vars, Fields& fields);
Vars without(const Vars& vars, const Vars& drop);  // (a null in drop stands for no variable)
std::string rows_text(const RowWrites& rw);      // "out, self.buf"
// After the step ran: "" when each statement ran once and nothing in the step read the
// written tensors (else why the loop must carry them after all).
std::string rows_written(Region& body, const RowWrites& rw, const Tensor& xs);
// Each step's value as a full row of its tensor (cast and broadcast, inside the region).
TensorList row_yields(const RowWrites& rw);
// After the node: each variable's stacked rows written into its tensor at the rows
// the loop visited (`xs`, the range's values).
void write_rows(const RowWrites& rw, const TensorList& stacks, const Tensor& xs);

// Installs rw as what the evaluator's hook fills, for the scope's lifetime.
class RowWritesScope {
 public:
  RowWritesScope(ScriptMode& s, RowWrites* rw) : s_(s), saved_(s.row_writes) { s_.row_writes = rw; }
  ~RowWritesScope() { s_.row_writes = saved_; }
  RowWritesScope(const RowWritesScope&) = delete;
  RowWritesScope& operator=(const RowWritesScope&) = delete;

 private:
  ScriptMode& s_;
  RowWrites* saved_;
};

// Script mode lowers the loop again with no rows kept, for the scope's lifetime.
class NoRowWritesScope {
 public:
  explicit NoRowWritesScope(ScriptMode& s) : s_(s), saved_(s.no_row_writes) { s_.no_row_writes = true; }
  ~NoRowWritesScope() { s_.no_row_writes = saved_; }
  NoRowWritesScope(const NoRowWritesScope&) = delete;
  NoRowWritesScope& operator=(const NoRowWritesScope&) = delete;

 private:
  ScriptMode& s_;
  bool saved_;
};

}  // namespace nabla::interp::script
