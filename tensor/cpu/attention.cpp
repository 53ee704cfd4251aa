// CPU kernel of scaled_dot_product_attention: softmax(q k^T * scale + mask) v, with
// dropout on the weights, computed flash-attention style. Queries go in blocks of kBlockQ rows; for each
// block the keys are visited in blocks of kBlockK with an online softmax (a running
// row max and row sum, the accumulator rescaled when the max grows), so at most one
// [kBlockQ, kBlockK] block of the score matrix exists at a time. Both block products
// (q_blk k_blk^T and p_blk v_blk) go to GEMM. With is_causal (query i sees keys
// j <= i, the top-left aligned lower triangle, as PyTorch's tril(ones(L, S))), key
// blocks lying wholly above the diagonal are skipped. An attn_mask is read in place
// (broadcast, never expanded), as an additive one: a bool mask becomes 0 / -inf. A
// row that sees no key (every score -inf) is 0, as PyTorch's (its _safe_softmax, since
// 2.5; a NaN score still makes its row NaN). Dropout draws its
// keep-mask first (uniform_at of one seed, as the dropout kernel), the output the
// backward reads; the weights are dropped after the softmax's sum, as PyTorch's.
// Grouped-query attention is broadcasting (Note [Grouped-query attention]).
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/cpu/blas.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/cpu/vec_math.hpp"
#include "tensor/layout.hpp"
#include "tensor/random.hpp"

namespace nabla::cpu {

namespace {

constexpr int64_t kBlockQ = 64;
constexpr int64_t kBlockK = 64;

// An attn_mask as the kernel reads it: additive values of the compute type, at least
// 2-D and contiguous, with the steps of its rows and columns (0 where broadcast).
template <class T>
struct AdditiveMask {
  Tensor values;  // undefined: no mask
  int64_t row_step = 0, col_step = 0;
};

template <class T>
AdditiveMask<T> additive_mask(const Tensor& mask) {
  AdditiveMask<T> m;
  if (!mask.defined()) return m;
  Tensor t = mask;
  if (t.dim() < 2) {  // a [S] or 0-dim mask as [1, S] or [1, 1]
    Shape sizes{1, 1}, strides{0, 0};
    if (t.dim() == 1) {
      sizes[1] = t.sizes()[0];
      strides[1] = t.strides()[0];
    }
    t = make_view(t, sizes, strides, t.offset());
  }
  DType dt = dtype_of<T>::value;
  if (t.dtype() == DType::b8) {
    Tensor b = contiguous_raw(t);
    m.values = empty(b.sizes(), dt);
    const bool* src = static_cast<const bool*>(b.raw_data());
    T* dst = static_cast<T*>(m.values.raw_data());
    for (int64_t i = 0; i < b.numel(); ++i) dst[i] = src[i] ? T(0) : -std::numeric_limits<T>::infinity();
  } else {
    m.values = contiguous_raw(as_dtype(t, dt));
  }
  int64_t rows = t.sizes()[t.dim() - 2], cols = t.sizes()[t.dim() - 1];
  m.row_step = rows == 1 ? 0 : cols;
  m.col_step = cols == 1 ? 0 : 1;
  return m;
}

// Writes the dropout keep-mask (one bool per score, keep with probability 1 - p).
void draw_keep_mask(const Tensor& keep, double p) {
  uint64_t seed = p < 1.0 ? random_bits() : 0;
  bool* k = static_cast<bool*>(keep.raw_data());
  int64_t n = keep.numel();
  parallel_for(0, n, n * 8, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) k[i] = p < 1.0 && uniform_at(seed, static_cast<uint64_t>(i)) >= p;
  });
}

struct AttentionArgs {
  bool causal = false;
  double scale = 1.0;
  double dropout_p = 0.0;
  const bool* keep = nullptr;  // the keep-mask [batch..., L, S], or null without dropout
};

template <class T>
void attention(const Tensor& q, const Tensor& k, const Tensor& v, const AdditiveMask<T>& mask, const Tensor& out,
               const AttentionArgs& args) {
  int64_t nd = out.dim();
  int64_t L = q.sizes()[q.dim() - 2], E = q.sizes()[q.dim() - 1];
  int64_t S = k.sizes()[k.dim() - 2], Ev = v.sizes()[v.dim() - 1];
  Shape batch(out.sizes().begin(), out.sizes().begin() + (nd - 2));
  int64_t batches = shape_numel(batch);
  int64_t qblocks = (L + kBlockQ - 1) / kBlockQ;
  const T* pq = static_cast<const T*>(q.raw_data());
  const T* pk = static_cast<const T*>(k.raw_data());
  const T* pv = static_cast<const T*>(v.raw_data());
  const T* pm = mask.values.defined() ? static_cast<const T*>(mask.values.raw_data()) : nullptr;
  T* po = static_cast<T*>(out.raw_data());
  const T scale = static_cast<T>(args.scale);
  const T keep_scale = static_cast<T>(args.dropout_p < 1.0 ? 1.0 / (1.0 - args.dropout_p) : 0.0);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  int64_t tasks = batches * qblocks;
  parallel_for(0, tasks, batches * L * S * (E + Ev), [&](int64_t lo, int64_t hi) {
    std::vector<T> s(static_cast<size_t>(kBlockQ * kBlockK));  // the one score block
    std::vector<T> m(kBlockQ), l(kBlockQ);                      // running max and sum
    for (int64_t task = lo; task < hi; ++task) {
      int64_t b = task / qblocks, q0 = (task % qblocks) * kBlockQ;
      int64_t bq = std::min(kBlockQ, L - q0);
      const T* qb = pq + batch_offset(q, batch, b) + q0 * E;
      const T* kb = pk + batch_offset(k, batch, b);
      const T* vb = pv + batch_offset(v, batch, b);
      const T* mb = pm ? pm + batch_offset(mask.values, batch, b) : nullptr;
      const bool* keep_b = args.keep ? args.keep + b * L * S : nullptr;
      T* ob = po + b * L * Ev + q0 * Ev;  // the accumulator lives in the output rows
      std::fill(ob, ob + bq * Ev, T(0));
      std::fill(m.begin(), m.end(), neg_inf);
      std::fill(l.begin(), l.end(), T(0));
      // Causal: the last query row of the block sees keys up to q0 + bq - 1.
      int64_t s_end = args.causal ? std::min(S, q0 + bq) : S;
      for (int64_t k0 = 0; k0 < s_end; k0 += kBlockK) {
        int64_t bk = std::min(kBlockK, s_end - k0);
        // s = scale * q_blk k_blk^T, [bq, bk] with leading dim bk.
        if (E > 0)
          gemm(false, true, bq, bk, E, scale, qb, E, kb + k0 * E, E, T(0), s.data(), bk);
        else
          std::fill(s.begin(), s.begin() + bq * bk, T(0));
        for (int64_t i = 0; i < bq; ++i) {
          T* row = s.data() + i * bk;
          if (args.causal) {
            int64_t first_masked = q0 + i + 1 - k0;  // keys j > q0 + i are masked
            for (int64_t j = std::max<int64_t>(first_masked, 0); j < bk; ++j) row[j] = neg_inf;
          }
          if (mb) {
            const T* mrow = mb + (q0 + i) * mask.row_step + k0 * mask.col_step;
            for (int64_t j = 0; j < bk; ++j) row[j] += mrow[j * mask.col_step];
          }
          T mx = m[i];
          for (int64_t j = 0; j < bk; ++j) mx = std::max(mx, row[j]);
          if (mx == neg_inf) {  // no key of this row is visible yet (max skips NaNs: keep one in l)
            for (int64_t j = 0; j < bk; ++j)
              if (row[j] != row[j]) l[i] = row[j];
            std::fill(row, row + bk, T(0));
            continue;
          }
          T correction = m[i] == neg_inf ? T(0) : vmath::exp(m[i] - mx);
          T sum = 0;
          for (int64_t j = 0; j < bk; ++j) {
            T e = vmath::exp(row[j] - mx);
            row[j] = e;
            sum += e;
          }
          if (keep_b) {  // dropped after the sum: the softmax normalizes over every key
            const bool* keep_row = keep_b + (q0 + i) * S + k0;
            for (int64_t j = 0; j < bk; ++j) row[j] = keep_row[j] ? row[j] * keep_scale : T(0);
          }
          l[i] = l[i] * correction + sum;
          m[i] = mx;
          if (correction != T(1)) {
            T* orow = ob + i * Ev;
            for (int64_t c = 0; c < Ev; ++c) orow[c] *= correction;
          }
        }
        // acc += p_blk v_blk
        if (Ev > 0) gemm(false, false, bq, Ev, bk, T(1), s.data(), bk, vb + k0 * Ev, Ev, T(1), ob, Ev);
      }
      for (int64_t i = 0; i < bq; ++i) {
        T inv = l[i] == T(0) ? T(0) : T(1) / l[i];  // no visible key: 0 (the accumulator is 0 too)
        T* orow = ob + i * Ev;
        for (int64_t c = 0; c < Ev; ++c) orow[c] *= inv;
      }
    }
  });
}

}  // namespace

void scaled_dot_product_attention(const TensorList& in, const Attrs& attrs, TensorList& out) {
  int64_t E = in[0].sizes()[in[0].dim() - 1];
  AttentionArgs args;
  args.scale = attrs.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : attrs.f("scale");
  args.causal = attrs.b("is_causal");
  args.dropout_p = attrs.f("dropout_p");
  if (args.dropout_p > 0.0) {
    draw_keep_mask(out[1], args.dropout_p);
    args.keep = static_cast<const bool*>(out[1].raw_data());
  }
  int64_t heads = in[0].dim() >= 3 ? in[0].sizes()[in[0].dim() - 3] : 1;
  int64_t groups = attrs.b("enable_gqa") ? heads / in[1].sizes()[in[1].dim() - 3] : 1;
  visit_float(out[0].dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = typename decltype(tag)::type;
    DType dt = out[0].dtype();
    auto operand = [&](const Tensor& t) { return gqa_view(contiguous_raw(as_dtype(t, dt)), heads, groups); };
    AdditiveMask<T> mask = additive_mask<T>(gqa_view(in[3], heads, groups));
    attention<T>(operand(in[0]), operand(in[1]), operand(in[2]), mask, gqa_view(out[0], heads, groups), args);
  });
}

}  // namespace nabla::cpu
