#include "tensor/ordering.hpp"

#include "tensor/cpu/copy.hpp"
#include "tensor/layout.hpp"

namespace nabla {

// out [r0 * d0, r1 * d1, ...] is contiguous, so it is also [r0, d0, r1, d1, ...]; x
// seen as [1, d0, 1, d1, ...] broadcasts to that, and one copy writes every repeat.
void repeat_into(const Tensor& x, const std::vector<int64_t>& sizes, const Tensor& out) {
  if (out.numel() == 0) return;
  size_t pad = sizes.size() - static_cast<size_t>(x.dim());
  Shape split, src_sizes, src_strides;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t size = d < pad ? 1 : x.sizes()[d - pad];
    split.push_back(sizes[d]);
    split.push_back(size);
    src_sizes.push_back(1);
    src_sizes.push_back(size);
    src_strides.push_back(0);
    src_strides.push_back(d < pad ? 0 : x.strides()[d - pad]);
  }
  copy_into(make_view(out, split, contiguous_strides(split), out.offset()),
            make_view(x, src_sizes, src_strides, x.offset()));
}

namespace {

// shift taken into [0, size).
int64_t wrapped_shift(int64_t shift, int64_t size) { return size == 0 ? 0 : ((shift % size) + size) % size; }

}  // namespace

// Along one dim of size n, a roll by s writes x[0, n - s) to out[s, n) and
// x[n - s, n) to out[0, s); over k dims, each of the 2^k combinations of those
// pieces is one strided copy, so no temporary is needed.
void roll_into(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims,
               const Tensor& out) {
  if (out.numel() == 0) return;
  if (dims.empty()) {
    Tensor flat = contiguous_raw(x);
    Shape n{flat.numel()};
    roll_into(make_view(flat, n, Shape{1}, flat.offset()), shifts, {0}, make_view(out, n, Shape{1}, out.offset()));
    return;
  }
  // One total shift per distinct dim (a dim named twice rolls by the sum).
  std::vector<int64_t> ds, ss;
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t d = wrap_dim(dims[k], x.dim(), "roll");
    size_t j = 0;
    while (j < ds.size() && ds[j] != d) ++j;
    if (j == ds.size()) {
      ds.push_back(d);
      ss.push_back(0);
    }
    ss[j] += shifts[k];
  }
  for (size_t k = 0; k < ds.size(); ++k) ss[k] = wrapped_shift(ss[k], x.sizes()[ds[k]]);
  for (uint64_t pieces = 0; pieces < (uint64_t{1} << ds.size()); ++pieces) {
    Tensor dst = out, src = x;
    bool empty = false;
    for (size_t k = 0; k < ds.size() && !empty; ++k) {
      int64_t n = x.sizes()[ds[k]], s = ss[k];
      bool wrapped_piece = (pieces >> k) & 1;
      int64_t len = wrapped_piece ? s : n - s;
      empty = len == 0;
      if (empty) break;
      dst = slab(dst, ds[k], wrapped_piece ? 0 : s, len);
      src = slab(src, ds[k], wrapped_piece ? n - s : 0, len);
    }
    if (!empty) copy_into(dst, src);
  }
}

}  // namespace nabla
