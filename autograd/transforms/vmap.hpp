// vmap's core: tensors batched at a level (Note [Transform levels]) and how an op
// call on them runs, by the row's batching rule or by a loop over the batch.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "autograd/transforms/levels.hpp"

namespace nabla {

// What a row's batching rule (OpDef::batch) sees: the physical inputs, each with
// the dim that holds the batch (-1: not batched), the attributes and the batch
// size. The rule returns the physical outputs and sets out_bdims (one per output).
class BatchContext {
 public:
  BatchContext(const OpDef& def, TensorList physical, std::vector<int64_t> bdims, const Attrs& attrs,
               int64_t batch_size)
      : def_(def), physical_(std::move(physical)), bdims_(std::move(bdims)), attrs_(attrs), batch_size_(batch_size) {}

  const OpDef& def() const { return def_; }
  size_t num_inputs() const { return physical_.size(); }
  const Tensor& physical(size_t i) const { return physical_[i]; }
  int64_t bdim(size_t i) const { return bdims_[i]; }
  bool batched(size_t i) const { return bdims_[i] >= 0; }
  // The per-example rank of input i (its physical rank less the batch dim).
  int64_t logical_dim(size_t i) const;
  const Attrs& attrs() const { return attrs_; }
  int64_t batch_size() const { return batch_size_; }

  // Input i with the batch dim first: moved there, or (unbatched) expanded to it.
  Tensor batch_first(size_t i) const;
  // The op of this row on other inputs and attributes (every output batched at 0).
  TensorList call_batched_first(const TensorList& inputs, const Attrs& attrs);

  std::vector<int64_t> out_bdims;

 private:
  const OpDef& def_;
  TensorList physical_;
  std::vector<int64_t> bdims_;
  const Attrs& attrs_;
  int64_t batch_size_;
};

namespace transforms {

// A tensor batched at `level`: per-example sizes, its values in `physical` (whose
// dim `bdim` is the batch).
Tensor make_batched(const Tensor& physical, uint64_t level, int64_t bdim);
// The physical tensor of t at `level` with the batch dim moved to `to` (t not batched
// there: expanded to `batch_size` along a new dim `to`).
Tensor unbatch(const Tensor& t, uint64_t level, int64_t batch_size, int64_t to);
// Whether t is batched at `level`.
bool batched_at(const Tensor& t, uint64_t level);

// An op call some of whose inputs are batched at `level`.
TensorList batch_call(const OpDef& def, const TensorList& inputs, const Attrs& attrs, Level& level);

// A random factory's draw (rand, randn, randint) of per-example shape `shape` as the
// innermost vmap's randomness says (Note [vmap randomness]): an error, one draw for
// the whole batch, or a batched tensor with a draw per example. `draw` makes a plain
// tensor of a shape; `name` names the factory in the error.
Tensor random_under_vmap(const char* name, const Shape& shape, const std::function<Tensor(const Shape&)>& draw);

// Prints `text` on stderr the first time `key` is seen in this process.
void note_once(const std::string& key, const std::string& text);

}  // namespace transforms
}  // namespace nabla
