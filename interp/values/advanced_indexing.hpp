// Indexing with several index tensors and assignment through index tensors (Note
// [Advanced indexing] in advanced_indexing.cpp); indexing.cpp does the rest.
#pragma once
#include <functional>
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla::interp {

// An integer index tensor into dim `dim` of the tensor the basic indices (ints,
// slices, none, ...) left.
struct AdvancedIndex {
  int64_t dim;
  Tensor index;
};

// `index` (an integer tensor) as i64 positions in [0, n) along `dim`: each checked on
// the host unless vmap batches it, a negative one counted from the end by ops, so that
// a graph replays it for other values (and checks their range as it replays).
Tensor checked_positions(const Tensor& index, int64_t n, int64_t dim);

// Note [A window a graph replays] (advanced_indexing.cpp): the positions, along a dim of
// size n, of the `length` elements from `start` (a 0-dim integer tensor a capture traces),
// made by ops. With `stop` (a slice start:stop whose stop - start is fixed): Python's
// slice bounds; without (narrow): start counted from the end when negative. Where eager's
// window would not be `length` elements, they are n, which index_select refuses.
Tensor window_positions(const Tensor& start, const Tensor& stop, int64_t length, int64_t n);
// Note [A write through a view taken with a tensor index] (graph/capture_writes.cpp):
// how a write into index_select(x, dim, at) (then selected at 0 along dim when `one`)
// reaches x: put_indexed at those positions.
std::function<void(const Tensor&)> write_through(const Tensor& x, int64_t dim, const Tensor& at, bool one);

// x.narrow(dim, start, length) with `start` a 0-dim integer tensor a graph capture
// traces, as an index_select of its window; undefined when start is not one.
Tensor narrow_window(const Tensor& x, int64_t dim, const Tensor& start, int64_t length);

// x indexed by every one of `adv` at once (PyTorch's rule for where their shape goes).
Tensor take_advanced(const Tensor& x, const std::vector<AdvancedIndex>& adv);

// The same index applied to another tensor of x's shape (indexing.cpp's, so that an
// assignment reads its index exactly as a read does).
using IndexPositions = std::function<Tensor(const Tensor&)>;

// value without its leading size-1 dims past `dims` (PyTorch's index_put_ and its
// copy into a view allow them: x[0] = ones([1, 4]) for x of [3, 4]), so that it
// broadcasts to a target of `dims` dims.
Tensor drop_leading_ones(const Tensor& value, int64_t dims);

// x with values[k] at its flat position positions[k] (the last of several writes to one
// position wins, as PyTorch's CPU kernels), by ops only, so that a graph replays it for
// any positions (Note [An index a graph replays]). `each_once`: no position repeats.
Tensor put_flat(const Tensor& x, const Tensor& values, const Tensor& positions, bool each_once);

// x[index] = value, in place: value broadcast to the indexed shape; a position named
// twice takes the last value. `each_once`: the index names no position twice whatever
// its values (Note [An index a graph replays]).
void put_indexed(const Tensor& x, const Tensor& value, const IndexPositions& positions_of, bool each_once);

}  // namespace nabla::interp
