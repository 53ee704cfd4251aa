// CPU kernels of the indexing and joining ops: gather, scatter_add, index_select,
// embedding, cat, stack. Shapes were checked by the rows' shape rules; index
// values are checked here, before any parallel loop (an exception must not leave an
// OpenMP region). Every op but scatter_add only moves elements, so those kernels
// copy bytes and work for every dtype (f16/bf16 included).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/layout.hpp"

namespace nabla::cpu {

namespace {

// The index tensor as i64 (an i32 index is widened once, here), in any layout:
// backward rules pass expanded indices, which must not be materialised.
Tensor index_i64(const Tensor& index) { return as_dtype(index, DType::i64); }

// Every index must lie in [0, size); the error names the op, the value, the dim
// and its size. Broadcast (stride 0) dims are looked at once; the range is found in
// parallel, the culprit only on failure.
void check_indices(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  Shape distinct = index.sizes();
  for (size_t d = 0; d < distinct.size(); ++d)
    if (index.strides()[d] == 0) distinct[d] = 1;
  Tensor values = contiguous_raw(make_view(index, distinct, index.strides(), index.offset()));
  const int64_t* p = values.data<int64_t>();
  int64_t n = values.numel();
  // Count the out-of-range indices (cheap to combine across threads).
  int64_t bad_count = parallel_reduce<int64_t>(
      0, n, n, 0,
      [&](int64_t lo, int64_t hi) {
        int64_t bad = 0;
        for (int64_t i = lo; i < hi; ++i) bad += p[i] < 0 || p[i] >= size;
        return bad;
      },
      [](int64_t a, int64_t b) { return a + b; });
  if (bad_count == 0) return;
  int64_t bad = *std::find_if(p, p + n, [&](int64_t v) { return v < 0 || v >= size; });
  throw Error(std::string(op) + ": index " + std::to_string(bad) + " is out of bounds for dim " + std::to_string(dim) +
              " with size " + std::to_string(size));
}

// Copies nblocks blocks of block_bytes each (dst and src advance by their steps).
// Large copies are cut into pieces so that even one big block uses every thread.
void copy_blocks(char* dst, int64_t dst_step, const char* src, int64_t src_step, int64_t nblocks, int64_t block_bytes) {
  if (nblocks == 0 || block_bytes == 0) return;
  constexpr int64_t kPiece = int64_t{256} << 10;
  int64_t pieces = (block_bytes + kPiece - 1) / kPiece;
  parallel_for(
      0, nblocks * pieces, copy_work(nblocks * block_bytes),
      [&](int64_t lo, int64_t hi) {
        for (int64_t item = lo; item < hi; ++item) {
          int64_t b = item / pieces, start = (item % pieces) * kPiece;
          int64_t len = std::min(kPiece, block_bytes - start);
          std::memcpy(dst + b * dst_step + start, src + b * src_step + start, len);
        }
      });
}

// out[o, i, :] = x[o, index[i], :] with x viewed as [outer, size, inner]: one memcpy
// per selected row. Shared by index_select and embedding.
void select_rows(const Tensor& x_in, int64_t dim, const Tensor& index, const Tensor& out) {
  Tensor x = contiguous_raw(x_in);
  int64_t outer = size_product(x.sizes(), 0, dim), size = x.sizes()[dim];
  int64_t inner = size_product(x.sizes(), dim + 1, x.sizes().size());
  Tensor flat = contiguous_raw(index);
  int64_t n = flat.numel();
  int64_t row = inner * static_cast<int64_t>(dtype_size(x.dtype()));
  const int64_t* idx = flat.data<int64_t>();
  const char* src = static_cast<const char*>(x.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  int64_t rows = outer * n;
  parallel_for(
      0, rows, copy_work(rows * row),
      [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          int64_t o = r / n, i = r % n;
          std::memcpy(dst + r * row, src + (o * size + idx[i]) * row, row);
        }
      });
}

// Writes each input into its slab of `out` along dim: a memcpy per contiguous block
// when the input is contiguous with out's dtype, else a strided converting copy.
void join(const TensorList& inputs, int64_t dim, const Tensor& out) {
  int64_t outer = size_product(out.sizes(), 0, dim), inner = size_product(out.sizes(), dim + 1, out.sizes().size());
  int64_t esize = static_cast<int64_t>(dtype_size(out.dtype()));
  int64_t out_block = out.sizes()[dim] * inner * esize;
  int64_t at = 0;  // where the current input starts along dim
  for (const Tensor& t : inputs) {
    int64_t len = t.sizes()[dim];
    if (t.numel() > 0) {
      char* dst = static_cast<char*>(out.raw_data()) + at * inner * esize;
      if (t.is_contiguous() && t.dtype() == out.dtype()) {
        int64_t block = len * inner * esize;
        copy_blocks(dst, out_block, static_cast<const char*>(t.raw_data()), block, outer, block);
      } else {
        copy_into(slab(out, dim, at, len), t);
      }
    }
    at += len;
  }
}

}  // namespace

void gather(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = at_least_1d(in[0]);
  int64_t dim = wrap_dim(attrs.i("dim"), x.dim(), "gather");
  Tensor index = index_i64(at_least_1d(in[1]));
  check_indices("gather", index, dim, x.sizes()[dim]);
  Tensor xv = without_dim_step(x, index.sizes(), dim);
  Tensor o = make_view(out[0], index.sizes(), contiguous_strides(index.sizes()), out[0].offset());
  int64_t step = x.strides()[dim] * static_cast<int64_t>(dtype_size(x.dtype()));
  visit_bytes(dtype_size(x.dtype()), [&](auto tag) {
    using T = typename decltype(tag)::type;
    StridedLoop<3> loop({&o, &xv, &index});
    loop.run([&](char** p, int64_t n, const int64_t* s) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t k = at<const int64_t>(p[2], s[2], i);
        at<T>(p[0], s[0], i) = *reinterpret_cast<const T*>(p[1] + i * s[1] + k * step);
      }
    });
  });
}

// out = self, then out[..., index[p], ...] += src[p] along dim. Threads split the
// positions off dim, so no two threads touch one output element, and each position
// takes its terms in order along dim, as a serial loop would (deterministic).
void scatter_add(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor o = at_least_1d(out[0]);
  copy_into(o, in[0]);
  Tensor index = index_i64(at_least_1d(in[1]));
  Tensor src = at_least_1d(as_dtype(in[2], out[0].dtype()));
  int64_t dim = wrap_dim(attrs.i("dim"), o.dim(), "scatter_add");
  check_indices("scatter_add", index, dim, o.sizes()[dim]);
  if (index.numel() == 0) return;
  // Views over the positions off dim; the loops step along dim themselves.
  Shape outer = index.sizes(), o_st = o.strides(), s_st = src.strides(), i_st = index.strides();
  int64_t len = outer[dim], o_step = o_st[dim], s_step = s_st[dim], i_step = i_st[dim];
  outer.erase(dim);
  o_st.erase(dim);
  s_st.erase(dim);
  i_st.erase(dim);
  Tensor ov = make_view(o, outer, o_st, o.offset());
  Tensor sv = make_view(src, outer, s_st, src.offset());
  Tensor iv = make_view(index, outer, i_st, index.offset());
  visit_dtype(o.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      throw Error(std::string("scatter_add: not defined for ") + dtype_name(o.dtype()));
    } else {
      StridedLoop<3> loop({&ov, &sv, &iv});
      // Adds the terms [j0, j1) along dim for a run of n positions.
      auto add_terms = [&](int64_t j0, int64_t j1) {
        return [&, j0, j1](char** p, int64_t n, const int64_t* s) {
          for (int64_t i = 0; i < n; ++i) {
            T* dst = reinterpret_cast<T*>(p[0] + i * s[0]);
            const T* from = reinterpret_cast<const T*>(p[1] + i * s[1]);
            const int64_t* idx = reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
            for (int64_t j = j0; j < j1; ++j) dst[idx[j * i_step] * o_step] += from[j * s_step];
          }
        };
      };
      // When dim is src's innermost dim each position walks its terms contiguously;
      // otherwise (embedding's backward: dim 0) sweeping whole rows of src term by
      // term reads memory in order.
      bool walk_dim = s_step == 1;
      parallel_for(0, loop.numel(), loop.numel() * len, [&](int64_t b, int64_t e) {
        if (walk_dim) {
          loop.run_range(b, e, add_terms(0, len));
        } else {
          for (int64_t j = 0; j < len; ++j) loop.run_range(b, e, add_terms(j, j + 1));
        }
      });
    }
  });
}

void index_select(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = at_least_1d(in[0]);
  int64_t dim = wrap_dim(attrs.i("dim"), x.dim(), "index_select");
  Tensor index = index_i64(in[1]);
  check_indices("index_select", index, dim, x.sizes()[dim]);
  select_rows(x, dim, index, out[0]);
}

void embedding(const TensorList& in, const Attrs&, TensorList& out) {
  Tensor index = index_i64(in[1]);
  check_indices("embedding", index, 0, in[0].sizes()[0]);
  select_rows(in[0], 0, index, out[0]);
}

void cat(const TensorList& in, const Attrs& attrs, TensorList& out) {
  join(in, wrap_dim(attrs.i("dim"), out[0].dim(), "cat"), out[0]);
}

// stack is cat of the inputs each given a size-1 dim at `dim`.
void stack(const TensorList& in, const Attrs& attrs, TensorList& out) {
  int64_t dim = wrap_dim(attrs.i("dim"), out[0].dim(), "stack");
  join(unsqueezed_at(in, dim), dim, out[0]);
}

}  // namespace nabla::cpu
