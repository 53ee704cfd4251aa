// CPU kernels of the normalization rows (batch_norm, layer_norm) and of dropout.
// Statistics accumulate in double with two passes (mean, then squared deviations),
// which stays accurate for inputs with a large mean, whatever the storage dtype.
#include <omp.h>

#include <cmath>
#include <limits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/layout.hpp"
#include "tensor/random.hpp"

namespace nabla::cpu {

namespace {

// A per-channel (or per-feature) parameter as doubles; `fill` when it is absent.
std::vector<double> values_or(const Tensor& t, int64_t n, double fill) {
  return t.defined() ? to_double_vector(t) : std::vector<double>(static_cast<size_t>(n), fill);
}

// ---- batch_norm ----------------------------------------------------------------
// x is seen as a contiguous [N, C, S] block (ChannelLayout, tensor/layout.hpp), S being
// the product of the dims after C.

struct ChannelStats {
  std::vector<double> mean, var;  // var is biased (divides by the count)
};

template <class T>
ChannelStats channel_stats(const T* x, int64_t N, int64_t C, int64_t S) {
  ChannelStats st{std::vector<double>(C), std::vector<double>(C)};
  double count = static_cast<double>(N * S);
  parallel_for(
      0, C, N * C * S,
      [&](int64_t lo, int64_t hi) {
        for (int64_t c = lo; c < hi; ++c) {
          double sum = 0;
          for (int64_t n = 0; n < N; ++n) {
            const T* row = x + (n * C + c) * S;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < S; ++i) sum += static_cast<double>(row[i]);
          }
          double m = sum / count, sq = 0;
          for (int64_t n = 0; n < N; ++n) {
            const T* row = x + (n * C + c) * S;
#pragma omp simd reduction(+ : sq)
            for (int64_t i = 0; i < S; ++i) {
              double d = static_cast<double>(row[i]) - m;
              sq += d * d;
            }
          }
          st.mean[c] = m;
          st.var[c] = sq / count;
        }
      });
  return st;
}

// Eval mode normalizes with the running statistics instead of the batch's.
ChannelStats running_stats(const Tensor& running_mean, const Tensor& running_var) {
  return {to_double_vector(running_mean), to_double_vector(running_var)};
}

// y[n, c, :] = x[n, c, :] * scale[c] + shift[c]
template <class T>
void channel_affine(const T* x, T* y, int64_t N, int64_t C, int64_t S, const std::vector<double>& scale,
                    const std::vector<double>& shift) {
  parallel_for(
      0, N * C, N * C * S,
      [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          int64_t c = r % C;
          double a = scale[c], b = shift[c];
          const T* in = x + r * S;
          T* out = y + r * S;
#pragma omp simd
          for (int64_t i = 0; i < S; ++i) out[i] = static_cast<T>(static_cast<double>(in[i]) * a + b);
        }
      });
}

// running = (1 - momentum) * running + momentum * stat, in place, in the running
// tensor's own dtype and layout (it is a buffer of the caller's module, not a copy).
void update_running(const Tensor& running, const std::vector<double>& stat, double momentum) {
  std::vector<double> v = to_double_vector(running);
  for (size_t c = 0; c < v.size(); ++c) v[c] = (1.0 - momentum) * v[c] + momentum * stat[c];
  copy_into(running, tensor_from(v, running.sizes(), running.dtype()));
  running.bump_version();
}

// Per channel, over the [N, S] items of channel c: sum(g) and sum(g * (x - mean)),
// the two reductions batch_norm's backward needs.
template <class T>
void grad_sums(const T* g, const T* x, int64_t N, int64_t C, int64_t S, const std::vector<double>& mean,
               std::vector<double>& sum_g, std::vector<double>& sum_g_xc) {
  parallel_for(
      0, C, 2 * N * C * S,
      [&](int64_t lo, int64_t hi) {
        for (int64_t c = lo; c < hi; ++c) {
          double sg = 0, sgx = 0, m = mean[c];
          for (int64_t n = 0; n < N; ++n) {
            const T* gr = g + (n * C + c) * S;
            const T* xr = x + (n * C + c) * S;
#pragma omp simd reduction(+ : sg, sgx)
            for (int64_t i = 0; i < S; ++i) {
              double gi = static_cast<double>(gr[i]);
              sg += gi;
              sgx += gi * (static_cast<double>(xr[i]) - m);
            }
          }
          sum_g[c] = sg;
          sum_g_xc[c] = sgx;
        }
      });
}

// gx[n, c, :] = k[c] * (g - shift_g[c] - (x - mean[c]) * slope[c]): batch_norm's input
// gradient with the per-channel constants folded (slope = 0 in eval mode).
template <class T>
void input_grad(const T* g, const T* x, T* gx, int64_t N, int64_t C, int64_t S, const std::vector<double>& k,
                const std::vector<double>& shift_g, const std::vector<double>& mean, const std::vector<double>& slope) {
  parallel_for(
      0, N * C, 2 * N * C * S,
      [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          int64_t c = r % C;
          double kc = k[c], sc = shift_g[c], mc = mean[c], lc = slope[c];
          const T* gr = g + r * S;
          const T* xr = x + r * S;
          T* out = gx + r * S;
#pragma omp simd
          for (int64_t i = 0; i < S; ++i)
            out[i] = static_cast<T>(kc * (static_cast<double>(gr[i]) - sc - (static_cast<double>(xr[i]) - mc) * lc));
        }
      });
}

}  // namespace

// Runs on 16-bit x itself (half_native): the running stats must be updated in
// place, and the dispatcher's f32 copies of 16-bit inputs would drop that update.
void batch_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor &weight = in[1], &bias = in[2], &running_mean = in[3], &running_var = in[4];
  DType dt = is_half(out[0].dtype()) ? DType::f32 : out[0].dtype();
  Tensor x = contiguous_raw(as_dtype(in[0], dt));
  Tensor y = out[0].dtype() == dt ? out[0] : empty(out[0].sizes(), dt);
  ChannelLayout planes = channel_layout(x);
  int64_t N = planes.N, C = planes.C, S = planes.S;
  bool training = attrs.b("training");
  double eps = attrs.f("eps"), momentum = attrs.f("momentum");
  visit_float(dt, "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    ChannelStats st = training ? channel_stats(xp, N, C, S) : running_stats(running_mean, running_var);
    std::vector<double> w = values_or(weight, C, 1.0), b = values_or(bias, C, 0.0), scale(C), shift(C);
    for (int64_t c = 0; c < C; ++c) {
      scale[c] = w[c] / std::sqrt(st.var[c] + eps);
      shift[c] = b[c] - st.mean[c] * scale[c];
    }
    channel_affine(xp, static_cast<T*>(y.raw_data()), N, C, S, scale, shift);
    if (training && running_mean.defined()) {
      // The running variance is the unbiased estimate, as in PyTorch.
      double count = static_cast<double>(N * S);
      std::vector<double> unbiased(st.var);
      for (double& v : unbiased) v *= count / (count - 1.0);
      update_running(running_mean, st.mean, momentum);
      update_running(running_var, unbiased, momentum);
    }
  });
  if (!y.is_same(out[0])) copy_into(out[0], y);
}

// Outputs grad_input, grad_weight, grad_bias of y = batch_norm(x, w, b, ...) given
// grad = dL/dy. With xhat = (x - mean) * rstd, M items per channel:
//   grad_bias = sum(g), grad_weight = sum(g * xhat),
//   grad_input = w * rstd * (g - grad_bias / M - xhat * grad_weight / M)   (training)
//   grad_input = w * rstd * g                                             (eval)
// Three passes: the mean, then the variance and both sums, then grad_input.
void batch_norm_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor &weight = in[2], &running_mean = in[3], &running_var = in[4];
  Tensor g = contiguous_raw(in[0]), x = contiguous_raw(in[1]);
  ChannelLayout planes = channel_layout(x);
  int64_t N = planes.N, C = planes.C, S = planes.S;
  bool training = attrs.b("training");
  double eps = attrs.f("eps"), count = static_cast<double>(N * S);
  visit_float(x.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    const T* gp = static_cast<const T*>(g.raw_data());
    ChannelStats st = training ? channel_stats(xp, N, C, S) : running_stats(running_mean, running_var);
    std::vector<double> sum_g(C), sum_g_xc(C), w = values_or(weight, C, 1.0);
    grad_sums(gp, xp, N, C, S, st.mean, sum_g, sum_g_xc);
    std::vector<double> k(C), shift_g(C, 0.0), slope(C, 0.0), gw(C);
    for (int64_t c = 0; c < C; ++c) {
      double rstd = 1.0 / std::sqrt(st.var[c] + eps);
      gw[c] = sum_g_xc[c] * rstd;
      k[c] = w[c] * rstd;
      if (training) {
        shift_g[c] = sum_g[c] / count;
        slope[c] = gw[c] * rstd / count;  // xhat * gw / M, with xhat = (x - mean) * rstd
      }
    }
    input_grad(gp, xp, static_cast<T*>(out[0].raw_data()), N, C, S, k, shift_g, st.mean, slope);
    copy_into(out[1], tensor_from(gw, out[1].sizes(), out[1].dtype()));
    copy_into(out[2], tensor_from(sum_g, out[2].sizes(), out[2].dtype()));
  });
}

void layer_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  RowLayout layout = layer_norm_rows(x, attrs.ints("normalized_shape"));
  int64_t rows = layout.rows, D = layout.D;
  double eps = attrs.f("eps");
  std::vector<double> w = values_or(in[1], D, 1.0), b = values_or(in[2], D, 0.0);
  visit_float(x.dtype(), "layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out[0].raw_data());
    parallel_for(
        0, rows, rows * D,
        [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo; r < hi; ++r) {
            const T* row = xp + r * D;
            double sum = 0, sq = 0;
            for (int64_t j = 0; j < D; ++j) sum += static_cast<double>(row[j]);
            double mean = sum / static_cast<double>(D);
            for (int64_t j = 0; j < D; ++j) {
              double d = static_cast<double>(row[j]) - mean;
              sq += d * d;
            }
            double rstd = 1.0 / std::sqrt(sq / static_cast<double>(D) + eps);
            for (int64_t j = 0; j < D; ++j)
              yp[r * D + j] = static_cast<T>((static_cast<double>(row[j]) - mean) * rstd * w[j] + b[j]);
          }
        });
  });
}

// x [N, C, ...] as N * G contiguous groups of C / G channels of S items each; a group's
// statistics in double, then one fused scale-and-shift per channel.
void group_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  if (in[0].numel() == 0) return;  // no groups hold anything: [2^40, 0] walked 2^40 empty ones (a hang)
  Tensor x = contiguous_raw(in[0]);
  ChannelLayout planes = channel_layout(x);
  int64_t N = planes.N, C = planes.C, S = planes.S, G = attrs.i("num_groups");
  int64_t per_group = C / G, group_size = per_group * S;
  double eps = attrs.f("eps");
  std::vector<double> w = values_or(in[1], C, 1.0), b = values_or(in[2], C, 0.0);
  visit_float(x.dtype(), "group_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out[0].raw_data());
    parallel_for(
        0, N * G, x.numel(),
        [&](int64_t lo, int64_t hi) {
          for (int64_t ng = lo; ng < hi; ++ng) {
            const T* group = xp + ng * group_size;
            double sum = 0, sq = 0;
#pragma omp simd reduction(+ : sum)
            for (int64_t j = 0; j < group_size; ++j) sum += static_cast<double>(group[j]);
            double mean = group_size > 0 ? sum / static_cast<double>(group_size) : 0.0;
#pragma omp simd reduction(+ : sq)
            for (int64_t j = 0; j < group_size; ++j) {
              double d = static_cast<double>(group[j]) - mean;
              sq += d * d;
            }
            double rstd = 1.0 / std::sqrt(sq / static_cast<double>(group_size) + eps);
            for (int64_t k = 0; k < per_group; ++k) {
              int64_t c = ng % G * per_group + k;
              T scale = static_cast<T>(rstd * w[c]), shift = static_cast<T>(b[c] - mean * rstd * w[c]);
              const T* src = group + k * S;
              T* dst = yp + ng * group_size + k * S;
#pragma omp simd
              for (int64_t i = 0; i < S; ++i) dst[i] = src[i] * scale + shift;
            }
          }
        });
  });
}

// y = x * rsqrt(mean(x^2) + eps) * weight over rows of the normalized dims.
void rms_norm(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  RowLayout layout = layer_norm_rows(x, attrs.ints("normalized_shape"));
  int64_t rows = layout.rows, D = layout.D;
  std::vector<double> w = values_or(in[1], D, 1.0);
  visit_float(x.dtype(), "rms_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    double eps = attrs.is_none("eps") ? static_cast<double>(std::numeric_limits<T>::epsilon()) : attrs.f("eps");
    std::vector<T> wt(w.begin(), w.end());
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out[0].raw_data());
    parallel_for(
        0, rows, rows * D,
        [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo; r < hi; ++r) {
            const T* row = xp + r * D;
            double sq = 0;
#pragma omp simd reduction(+ : sq)
            for (int64_t j = 0; j < D; ++j) sq += static_cast<double>(row[j]) * static_cast<double>(row[j]);
            T rms = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(D) + eps));
#pragma omp simd
            for (int64_t j = 0; j < D; ++j) yp[r * D + j] = row[j] * rms * wt[j];
          }
        });
  });
}

// Outputs y and the 0/1 mask, both of x's dtype: y = x * mask / (1 - p). Element i's
// draw is uniform_at(seed, i) (tensor/random.hpp): one draw from the global generator
// per call, so the mask is the same at any thread count and the generator's lock is
// taken once, not once per element.
void dropout(const TensorList& in, const Attrs& attrs, TensorList& out) {
  Tensor x = contiguous_raw(in[0]);
  double p = attrs.f("p");
  bool active = attrs.b("training") && p > 0.0;
  // p == 1 drops everything: the scale is never used, so no division by zero.
  double scale = p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  uint64_t seed = active && p < 1.0 ? random_bits() : 0;
  int64_t n = x.numel();
  visit_float(x.dtype(), "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.raw_data());
    T* yp = static_cast<T*>(out[0].raw_data());
    T* mp = static_cast<T*>(out[1].raw_data());
    parallel_for(
        0, n, n,
        [&](int64_t lo, int64_t hi) {
          for (int64_t i = lo; i < hi; ++i) {
            bool keep = !active || (p < 1.0 && uniform_at(seed, static_cast<uint64_t>(i)) >= p);
            mp[i] = static_cast<T>(keep ? 1 : 0);
            yp[i] = keep ? static_cast<T>(active ? xp[i] * scale : xp[i]) : static_cast<T>(0);
          }
        });
  });
}

}  // namespace nabla::cpu
