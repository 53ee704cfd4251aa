// Note [Fields written inside a lowered loop] (field_writes.cpp): `self.buf[t] = h`,
// `self.state.add_(h)` in a loop that lowers, the field's tensor carried (or its rows
// stacked) as a variable's is.
// Internal to interp/eval/script/.
#pragma once
#include <string>
#include <vector>

#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

// The fields a block writes in place, one entry per tensor.
struct Field {
  std::string name;                 // as written: "self.buf", "buf" (a field named bare)
  Tensor tensor;                    // the field's tensor before the statement
  std::vector<const Expr*> sites;   // the expressions that name it (self.buf in self.buf[t] = h)
  int writes = 0;                   // the statements that write into it
};
using Fields = std::vector<Field>;

// The fields the statements of `body` (nested blocks too) write in place, read before
// the loop: each an attribute (self.buf, self.cell.state) of a variable the body
// neither assigns nor declares, or a model's field named bare, holding a tensor that is
// all of its memory.
Fields fields_written_in(Impl& im, const Block& body);
// The same for the statements of b from `from` on, added to `out` (each tensor once).
void add_fields_written_in(Impl& im, const Block& b, Fields& out, size_t from = 0);
// The field that expression e names, or null.
const Field* field_at(const Fields& fields, const Expr& e);
// "self.buf, self.state" (empty when none).
std::string field_names(const Fields& fields);
// Note [Tensors a lowered region's calls write] (graph/capture_writes.cpp): the tensors
// `region`'s run wrote through the layers it calls that `fields` do not hold yet, each
// adopted (no longer the region's problem) and added to `fields`, named as the
// function's capture names it. Returns how many were added.
size_t adopt_called_writes(Capture& region, Fields& fields);
// The same for a loop body lowered again: remembered for `body`, whose
// fields_written_in then holds them. Returns whether there were new ones.
bool remember_called_writes(Impl& im, Capture& region, const Block& body, const Fields& fields);
// After the node: the field's tensor takes the loop's result for it, as eager's writes
// went into it (Note [A write into part of a parameter]).
void write_field(const Field& f, const Tensor& result);

}  // namespace nabla::interp::script
