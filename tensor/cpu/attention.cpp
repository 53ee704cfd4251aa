// CPU kernel of scaled_dot_product_attention: softmax(q k^T * scale [+ causal mask]) v
// computed flash-attention style. Queries go in blocks of kBlockQ rows; for each
// block the keys are visited in blocks of kBlockK with an online softmax (a running
// row max and row sum, the accumulator rescaled when the max grows), so at most one
// [kBlockQ, kBlockK] block of the score matrix exists at a time. Both block products
// (q_blk k_blk^T and p_blk v_blk) go to GEMM. With is_causal (query i sees keys
// j <= i, the top-left aligned lower triangle, as PyTorch's tril(ones(L, S))), key
// blocks lying wholly above the diagonal are skipped.
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/cpu/blas.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/cpu/vec_math.hpp"

namespace nabla::cpu {

namespace {

constexpr int64_t kBlockQ = 64;
constexpr int64_t kBlockK = 64;

template <class T>
void attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out, bool causal, double scale_d) {
  int64_t nd = out.dim();
  int64_t L = q.sizes()[q.dim() - 2], E = q.sizes()[q.dim() - 1];
  int64_t S = k.sizes()[k.dim() - 2], Ev = v.sizes()[v.dim() - 1];
  Shape batch(out.sizes().begin(), out.sizes().begin() + (nd - 2));
  int64_t batches = shape_numel(batch);
  int64_t qblocks = (L + kBlockQ - 1) / kBlockQ;
  const T* pq = static_cast<const T*>(q.raw_data());
  const T* pk = static_cast<const T*>(k.raw_data());
  const T* pv = static_cast<const T*>(v.raw_data());
  T* po = static_cast<T*>(out.raw_data());
  const T scale = static_cast<T>(scale_d);
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
      T* ob = po + b * L * Ev + q0 * Ev;  // the accumulator lives in the output rows
      std::fill(ob, ob + bq * Ev, T(0));
      std::fill(m.begin(), m.end(), neg_inf);
      std::fill(l.begin(), l.end(), T(0));
      // Causal: the last query row of the block sees keys up to q0 + bq - 1.
      int64_t s_end = causal ? std::min(S, q0 + bq) : S;
      for (int64_t k0 = 0; k0 < s_end; k0 += kBlockK) {
        int64_t bk = std::min(kBlockK, s_end - k0);
        // s = scale * q_blk k_blk^T, [bq, bk] with leading dim bk.
        if (E > 0)
          gemm(false, true, bq, bk, E, scale, qb, E, kb + k0 * E, E, T(0), s.data(), bk);
        else
          std::fill(s.begin(), s.begin() + bq * bk, T(0));
        for (int64_t i = 0; i < bq; ++i) {
          T* row = s.data() + i * bk;
          if (causal) {
            int64_t first_masked = q0 + i + 1 - k0;  // keys j > q0 + i are masked
            for (int64_t j = std::max<int64_t>(first_masked, 0); j < bk; ++j) row[j] = neg_inf;
          }
          T mx = m[i];
          for (int64_t j = 0; j < bk; ++j) mx = std::max(mx, row[j]);
          // Key 0 is never masked and comes first, so mx is finite from the first block on.
          T correction = m[i] == neg_inf ? T(0) : vmath::exp(m[i] - mx);
          T sum = 0;
          for (int64_t j = 0; j < bk; ++j) {
            T e = vmath::exp(row[j] - mx);
            row[j] = e;
            sum += e;
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
        T inv = T(1) / l[i];  // S == 0: 0/0, NaN, as softmax over nothing
        T* orow = ob + i * Ev;
        for (int64_t c = 0; c < Ev; ++c) orow[c] *= inv;
      }
    }
  });
}

}  // namespace

void scaled_dot_product_attention(const TensorList& in, const Attrs& attrs, TensorList& out) {
  int64_t E = in[0].sizes()[in[0].dim() - 1];
  double scale = attrs.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : attrs.f("scale");
  bool causal = attrs.b("is_causal");
  visit_float(out[0].dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = typename decltype(tag)::type;
    DType dt = out[0].dtype();
    attention<T>(contiguous_raw(as_dtype(in[0], dt)), contiguous_raw(as_dtype(in[1], dt)),
                 contiguous_raw(as_dtype(in[2], dt)), out[0], causal, scale);
  });
}

}  // namespace nabla::cpu
